/* Applies <udfkit/decimal.cuh> and <udfkit/datetime.cuh> on the host to the cases of a file
 * (apply_io.h), one result line each on stdout: test_libs.py compares them with Arrow's. */
#include "apply_io.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s CASES\n", argv[0]);
        return 2;
    }
    std::vector<test_case> cases;
    if (!read_cases(argv[1], cases))
        return 1;
    for (const test_case &c : cases)
        write_result(stdout, apply(c));
    return 0;
}
