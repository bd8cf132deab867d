/* The CUDA C half of the package: string views in, a bool or a string out. */
#include <udfkit/string.cuh>

/* Whether the address is at gmail.com (as written: case matters). */
__device__ bool is_gmail(udfkit::string_view email)
{
    return email.ends_with("@gmail.com");
}

/* The address with its name hidden, as Python's e = email.strip(); e[0] + "***" +
 * e[e.rfind("@"):] ("j***@example.com"); text without "@" stripped only. The builder comes
 * first. */
__device__ void masked(udfkit::string_out &out, udfkit::string_view address)
{
    const udfkit::string_view email = address.strip();
    const long long at = email.rfind("@");
    if (at < 0) {
        out.append(email);
        return;
    }
    out.append(email.substr(0, 1));
    out.append("***", 3);
    out.append(email.substr(at));
}
