/* Reading case lines and writing result lines (host code, shared by apply.cpp and
 * apply_gpu.cu). A case: `<op> <arg>...`, each argument w:<integer> (128-bit), n:<integer>,
 * x:<hex bits> or t:<hex bytes>. A result: `<error>` then, without an error, the decimal
 * `<unscaled> <scale>`, the integers, `t:<hex bytes>` or `x:<hex bits>`. */
#ifndef UDFKIT_TEST_APPLY_IO_H
#define UDFKIT_TEST_APPLY_IO_H

#include "apply.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static const char *const op_names[] = {
#define APPLY_NAME(name) #name,
    APPLY_OPS(APPLY_NAME)
#undef APPLY_NAME
};

static bool parse_int128(const char *s, udfkit::int128 *out)
{
    bool negative = *s == '-';
    if (negative)
        s++;
    unsigned __int128 m = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        m = m * 10 + (unsigned)(*s - '0');
    }
    *out = (udfkit::int128)(negative ? 0 - m : m);
    return true;
}

static std::string int128_text(udfkit::int128 v)
{
    unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    std::string s;
    do {
        s.insert(s.begin(), (char)('0' + (int)(m % 10)));
        m /= 10;
    } while (m);
    return v < 0 ? "-" + s : s;
}

/* Reads every case of a file; false with a message on stderr for a line it cannot read. */
static bool read_cases(const char *path, std::vector<test_case> &cases)
{
    FILE *f = std::fopen(path, "r");
    if (!f) {
        std::fprintf(stderr, "cannot open %s\n", path);
        return false;
    }
    char line[4096];
    int lineno = 0;
    bool ok = true;
    while (ok && std::fgets(line, sizeof line, f)) {
        lineno++;
        test_case c;
        std::memset(&c, 0, sizeof c);
        c.op = -1;
        char *save = nullptr;
        for (char *tok = strtok_r(line, " \n", &save); tok && ok; tok = strtok_r(nullptr, " \n", &save)) {
            if (c.op < 0) {
                for (int i = 0; i < op_count; i++)
                    if (!std::strcmp(tok, op_names[i]))
                        c.op = i;
                ok = c.op >= 0;
            } else if (!std::strncmp(tok, "w:", 2) && c.nw < 2) {
                ok = parse_int128(tok + 2, &c.w[c.nw++]);
            } else if (!std::strncmp(tok, "n:", 2) && c.nn < 8) {
                c.n[c.nn++] = std::strtoll(tok + 2, nullptr, 10);
            } else if (!std::strncmp(tok, "x:", 2)) {
                c.bits = std::strtoull(tok + 2, nullptr, 16);
            } else if (!std::strncmp(tok, "t:", 2) && std::strlen(tok + 2) / 2 <= sizeof c.text) {
                const char *h = tok + 2;
                for (c.text_size = 0; h[0] && h[1]; h += 2) {
                    char byte[3] = {h[0], h[1], 0};
                    c.text[c.text_size++] = (char)std::strtoul(byte, nullptr, 16);
                }
            } else {
                ok = false;
            }
        }
        if (!ok)
            std::fprintf(stderr, "%s:%d: cannot read this case\n", path, lineno);
        else if (c.op >= 0)
            cases.push_back(c);
    }
    std::fclose(f);
    return ok;
}

static void write_result(FILE *out, const test_result &r)
{
    std::fprintf(out, "%d", r.error);
    if (!r.error) {
        switch (r.kind) {
        case result_decimal: std::fprintf(out, " %s %d", int128_text(r.unscaled).c_str(), r.scale); break;
        case result_ints:
            for (int i = 0; i < r.count; i++)
                std::fprintf(out, " %lld", r.n[i]);
            break;
        case result_text:
            std::fprintf(out, " t:");
            for (int i = 0; i < r.text_size; i++)
                std::fprintf(out, "%02x", (unsigned char)r.text[i]);
            break;
        case result_bits: std::fprintf(out, " x:%llx", r.bits); break;
        }
    }
    std::fprintf(out, "\n");
}

#endif
