/* Applies <udfkit/string.cuh>'s functions to the cases of a file and prints one result line
 * per case, for test_string_lib.py to compare with CPython's.
 *
 * Input: lines "S <hex>" (string i, in order), then "C <op> <arg>...", an argument s<i>
 * naming string i, anything else an integer. Output: per case, V<offset>,<size> for a view
 * (offset into its string), B<text> for text written (see text()), I<n>, T or F, E where the function
 * reports failure, P<status>[:<value>] for parsing.
 *
 * Every case runs twice: each string ending right before an inaccessible page, then starting
 * right after one, so that a read outside [data, data + size) faults; both runs must agree.
 * Text is written twice as the kernels do (measured, then into exactly the bytes measured,
 * also ending before an inaccessible page) and a third time into one byte less, which must
 * be marked overflowed. */
#include <udfkit/string.cuh>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

/* A buffer between two inaccessible pages. */
struct guarded {
    char *inside = nullptr;
    size_t capacity = 0;

    explicit guarded(size_t cap)
    {
        const size_t page = (size_t)sysconf(_SC_PAGESIZE);
        capacity = (cap + page - 1) / page * page;
        char *base = (char *)mmap(nullptr, capacity + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED || mprotect(base, page, PROT_NONE) || mprotect(base + page + capacity, page, PROT_NONE)) {
            perror("mmap");
            exit(2);
        }
        inside = base + page;
    }
    /* The bytes of s against the end (at_end) or the start of the buffer. */
    udfkit::string_view place(const std::string &s, bool at_end) const
    {
        char *at = at_end ? inside + capacity - s.size() : inside;
        memcpy(at, s.data(), s.size());
        return udfkit::string_view(at, (long long)s.size());
    }
    char *end() const { return inside + capacity; }
};

struct context {
    std::vector<std::string> strings;
    std::vector<guarded> slots;
    guarded out{1 << 22};
    bool at_end = true;
    std::vector<udfkit::string_view> placed;
};

std::string hex(const char *p, long long n)
{
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (long long i = 0; i < n; i++) {
        s += digits[(unsigned char)p[i] >> 4];
        s += digits[(unsigned char)p[i] & 15];
    }
    return s;
}

std::string unhex(const std::string &h)
{
    std::string s;
    for (size_t i = 0; i + 1 < h.size(); i += 2)
        s += (char)std::stoi(h.substr(i, 2), nullptr, 16);
    return s;
}

[[noreturn]] void fail(const std::string &why)
{
    fprintf(stderr, "string_lib_check: %s\n", why.c_str());
    exit(1);
}

/* Written text: its hex where short, else its size, the hex of its first 48 bytes and its
 * FNV-1a hash (test_string_lib.py computes the same). */
std::string text(const std::string &bytes)
{
    if (bytes.size() <= 48)
        return "B" + hex(bytes.data(), (long long)bytes.size());
    unsigned long long h = 0xcbf29ce484222325ull;
    for (unsigned char b : bytes)
        h = (h ^ b) * 0x100000001b3ull;
    char digest[32];
    snprintf(digest, sizeof digest, "%016llx", h);
    return "B" + std::to_string(bytes.size()) + ":" + hex(bytes.data(), 48) + ":" + digest;
}

/* Text written by f: measured, written into exactly that, then into one byte less. */
std::string written(context &c, const std::function<void(udfkit::string_out &)> &f)
{
    udfkit::string_out measure = {nullptr, 0, 0, 0};
    f(measure);
    const long long n = measure.size;
    if ((size_t)n > c.out.capacity)
        fail("a result longer than the output buffer");
    udfkit::string_out out = {c.out.end() - n, 0, n, 0};
    f(out);
    if (out.size != n || out.overflowed)
        fail("the second pass wrote a different size");
    const std::string bytes(out.data, (size_t)n);
    if (n > 0) {
        udfkit::string_out short_out = {c.out.end() - (n - 1), 0, n - 1, 0};
        f(short_out);
        if (!short_out.overflowed || short_out.size != n || memcmp(short_out.data, bytes.data(), (size_t)(n - 1)))
            fail("one byte less was not marked overflowed");
    }
    return text(bytes);
}

std::string view_of(const udfkit::string_view &base, const udfkit::string_view &v)
{
    if (v.size() > 0 && (v.data() < base.data() || v.data() + v.size() > base.data() + base.size()))
        fail("a view outside its string");
    const long long offset = v.size() > 0 ? v.data() - base.data() : 0;
    return "V" + std::to_string(offset) + "," + std::to_string(v.size());
}

std::string boolean(bool b) { return b ? "T" : "F"; }
std::string integer(long long v) { return "I" + std::to_string(v); }

typedef std::function<std::string(context &, const std::vector<std::string> &)> handler;

long long num(const std::string &a) { return std::stoll(a, nullptr, 0); }
unsigned long long unum(const std::string &a) { return std::stoull(a, nullptr, 0); }

/* Argument i as a placed string. */
udfkit::string_view str(context &c, const std::vector<std::string> &, size_t i) { return c.placed[i]; }

std::string compare(context &c, const std::vector<std::string> &a)
{
    const udfkit::string_view x = str(c, a, 0), y = str(c, a, 1);
    const int r = x.compare(y);
    const int s = (r > 0) - (r < 0);
    if ((x == y) != (s == 0) || (x != y) != (s != 0) || (x < y) != (s < 0) || (x <= y) != (s <= 0) ||
        (x > y) != (s > 0) || (x >= y) != (s >= 0) || y.compare(x) * s > 0)
        fail("the comparison operators disagree with compare");
    return integer(s);
}

std::string parsed(udfkit::parse_status status, const std::string &value)
{
    return status == udfkit::parse_ok ? "P0:" + value : "P" + std::to_string((int)status);
}

/* One code point's properties and mappings as udfkit::unicode gives them. */
std::string char_line(unsigned cp)
{
    using namespace udfkit::unicode;
    const bool bits[] = {is_alpha(cp), is_decimal(cp), is_digit(cp),     is_numeric(cp),       is_alnum(cp),
                         is_lower(cp), is_upper(cp),   is_title(cp),      is_space(cp),         is_printable(cp),
                         is_cased(cp), is_case_ignorable(cp), (flags(cp) & flag_id_start) != 0,
                         (flags(cp) & flag_id_continue) != 0};
    std::string line;
    for (bool b : bits)
        line += b ? '1' : '0';
    line += ":" + std::to_string(decimal_value(cp));
    int (*maps[])(unsigned, unsigned *) = {to_upper, to_lower, to_title, to_fold};
    for (auto m : maps) {
        unsigned out[3];
        const int n = m(cp, out);
        line += ":";
        for (int i = 0; i < n; i++) {
            char buf[16];
            snprintf(buf, sizeof buf, i ? ".%x" : "%x", out[i]);
            line += buf;
        }
    }
    return line;
}

/* Random doubles, formatted and parsed back: the number that did not come back. */
std::string roundtrip(unsigned long long seed, long long count)
{
    long long failures = 0;
    unsigned long long x = seed;
    for (long long i = 0; i < count; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double d;
        memcpy(&d, &x, 8);
        if (d != d)
            continue;
        char buf[64];
        udfkit::string_out out = {buf, 0, sizeof buf, 0};
        out.append_double(d);
        double back = 0;
        if (out.overflowed || udfkit::string_view(buf, out.size).to_double(&back) != udfkit::parse_ok ||
            memcmp(&back, &d, 8) != 0)
            failures++;
    }
    return integer(failures);
}

std::vector<std::pair<std::string, handler>> handlers()
{
    std::vector<std::pair<std::string, handler>> h;
    typedef bool (udfkit::string_view::*predicate)() const;
    const std::pair<const char *, predicate> predicates[] = {
        {"is_alnum", &udfkit::string_view::is_alnum},     {"is_alpha", &udfkit::string_view::is_alpha},
        {"is_ascii", &udfkit::string_view::is_ascii},     {"is_decimal", &udfkit::string_view::is_decimal},
        {"is_digit", &udfkit::string_view::is_digit},     {"is_identifier", &udfkit::string_view::is_identifier},
        {"is_lower", &udfkit::string_view::is_lower},     {"is_numeric", &udfkit::string_view::is_numeric},
        {"is_printable", &udfkit::string_view::is_printable}, {"is_space", &udfkit::string_view::is_space},
        {"is_title", &udfkit::string_view::is_title},     {"is_upper", &udfkit::string_view::is_upper},
        {"valid", &udfkit::string_view::is_valid_utf8}};
    for (const auto &p : predicates) {
        const predicate f = p.second;
        h.push_back({p.first, [f](context &c, const std::vector<std::string> &a) { return boolean((str(c, a, 0).*f)()); }});
    }
    typedef void (udfkit::string_view::*mapping)(udfkit::string_out &) const;
    const std::pair<const char *, mapping> mappings[] = {
        {"to_upper", &udfkit::string_view::to_upper},     {"to_lower", &udfkit::string_view::to_lower},
        {"capitalize", &udfkit::string_view::capitalize}, {"title", &udfkit::string_view::title},
        {"swapcase", &udfkit::string_view::swapcase},     {"casefold", &udfkit::string_view::casefold}};
    for (const auto &p : mappings) {
        const mapping f = p.second;
        h.push_back({p.first, [f](context &c, const std::vector<std::string> &a) {
                         const udfkit::string_view s = str(c, a, 0);
                         return written(c, [&](udfkit::string_out &o) { (s.*f)(o); });
                     }});
    }
    typedef udfkit::string_view (udfkit::string_view::*part_of)() const;
    typedef udfkit::string_view (udfkit::string_view::*part_with)(udfkit::string_view) const;
    const std::pair<const char *, part_of> strips[] = {{"strip", &udfkit::string_view::strip},
                                                    {"lstrip", &udfkit::string_view::lstrip},
                                                    {"rstrip", &udfkit::string_view::rstrip}};
    for (const auto &p : strips) {
        const part_of f = p.second;
        h.push_back({p.first, [f](context &c, const std::vector<std::string> &a) {
                         return view_of(str(c, a, 0), (str(c, a, 0).*f)());
                     }});
    }
    const std::pair<const char *, part_with> strips_with[] = {{"strip_chars", &udfkit::string_view::strip},
                                                              {"lstrip_chars", &udfkit::string_view::lstrip},
                                                              {"rstrip_chars", &udfkit::string_view::rstrip},
                                                              {"remove_prefix", &udfkit::string_view::remove_prefix},
                                                              {"remove_suffix", &udfkit::string_view::remove_suffix}};
    for (const auto &p : strips_with) {
        const part_with f = p.second;
        h.push_back({p.first, [f](context &c, const std::vector<std::string> &a) {
                         return view_of(str(c, a, 0), (str(c, a, 0).*f)(str(c, a, 1)));
                     }});
    }
    typedef long long (udfkit::string_view::*search)(udfkit::string_view, long long, long long) const;
    const std::pair<const char *, search> searches[] = {{"find", &udfkit::string_view::find},
                                                        {"rfind", &udfkit::string_view::rfind},
                                                        {"count", &udfkit::string_view::count}};
    for (const auto &p : searches) {
        const search f = p.second;
        h.push_back({p.first, [f](context &c, const std::vector<std::string> &a) {
                         return integer((str(c, a, 0).*f)(str(c, a, 1), num(a[2]), num(a[3])));
                     }});
    }
    h.push_back({"starts_with", [](context &c, const std::vector<std::string> &a) {
                     return boolean(str(c, a, 0).starts_with(str(c, a, 1), num(a[2]), num(a[3])));
                 }});
    h.push_back({"ends_with", [](context &c, const std::vector<std::string> &a) {
                     return boolean(str(c, a, 0).ends_with(str(c, a, 1), num(a[2]), num(a[3])));
                 }});
    h.push_back({"contains", [](context &c, const std::vector<std::string> &a) {
                     return boolean(str(c, a, 0).contains(str(c, a, 1)));
                 }});
    h.push_back({"compare", compare});
    h.push_back({"length", [](context &c, const std::vector<std::string> &a) { return integer(str(c, a, 0).length()); }});
    h.push_back({"substr", [](context &c, const std::vector<std::string> &a) {
                     return view_of(str(c, a, 0), str(c, a, 0).substr(num(a[1]), num(a[2])));
                 }});
    h.push_back({"slice", [](context &c, const std::vector<std::string> &a) {
                     return view_of(str(c, a, 0), str(c, a, 0).slice(num(a[1]), num(a[2])));
                 }});
    h.push_back({"slice_step", [](context &c, const std::vector<std::string> &a) {
                     bool ok = true;
                     const std::string r = written(c, [&](udfkit::string_out &o) {
                         ok = str(c, a, 0).slice(o, num(a[1]), num(a[2]), num(a[3]));
                     });
                     return ok ? r : std::string("E");
                 }});
    h.push_back({"at", [](context &c, const std::vector<std::string> &a) {
                     udfkit::string_view ch;
                     return str(c, a, 0).at(&ch, num(a[1])) ? view_of(str(c, a, 0), ch) : std::string("E");
                 }});
    h.push_back({"code_point_at", [](context &c, const std::vector<std::string> &a) {
                     unsigned cp;
                     return str(c, a, 0).code_point_at(&cp, num(a[1])) ? integer(cp) : std::string("E");
                 }});
    typedef bool (udfkit::string_view::*splitter)(udfkit::string_view *, udfkit::string_view, long long, long long) const;
    typedef bool (udfkit::string_view::*ws_splitter)(udfkit::string_view *, long long, long long) const;
    const std::pair<const char *, splitter> splits[] = {{"split_part", &udfkit::string_view::split_part},
                                                        {"rsplit_part", &udfkit::string_view::rsplit_part}};
    for (const auto &p : splits) {
        const splitter f = p.second;
        h.push_back({p.first, [f](context &c, const std::vector<std::string> &a) {
                         udfkit::string_view part;
                         const bool ok = (str(c, a, 0).*f)(&part, str(c, a, 1), num(a[2]), num(a[3]));
                         return ok ? view_of(str(c, a, 0), part) : std::string("E");
                     }});
    }
    const std::pair<const char *, ws_splitter> ws_splits[] = {{"split_ws", &udfkit::string_view::split_part},
                                                              {"rsplit_ws", &udfkit::string_view::rsplit_part}};
    for (const auto &p : ws_splits) {
        const ws_splitter f = p.second;
        h.push_back({p.first, [f](context &c, const std::vector<std::string> &a) {
                         udfkit::string_view part;
                         const bool ok = (str(c, a, 0).*f)(&part, num(a[1]), num(a[2]));
                         return ok ? view_of(str(c, a, 0), part) : std::string("E");
                     }});
    }
    h.push_back({"split_count", [](context &c, const std::vector<std::string> &a) {
                     return integer(str(c, a, 0).split_count(str(c, a, 1), num(a[2])));
                 }});
    h.push_back({"split_count_ws", [](context &c, const std::vector<std::string> &a) {
                     return integer(str(c, a, 0).split_count(num(a[1])));
                 }});
    h.push_back({"zfill", [](context &c, const std::vector<std::string> &a) {
                     return written(c, [&](udfkit::string_out &o) { str(c, a, 0).zfill(o, num(a[1])); });
                 }});
    typedef void (udfkit::string_view::*padder)(udfkit::string_out &, long long, unsigned) const;
    const std::pair<const char *, padder> pads[] = {{"ljust", &udfkit::string_view::ljust},
                                                    {"rjust", &udfkit::string_view::rjust},
                                                    {"center", &udfkit::string_view::center}};
    for (const auto &p : pads) {
        const padder f = p.second;
        h.push_back({p.first, [f](context &c, const std::vector<std::string> &a) {
                         return written(c, [&](udfkit::string_out &o) { (str(c, a, 0).*f)(o, num(a[1]), (unsigned)num(a[2])); });
                     }});
    }
    h.push_back({"replace", [](context &c, const std::vector<std::string> &a) {
                     return written(c, [&](udfkit::string_out &o) {
                         str(c, a, 0).replace(o, str(c, a, 1), str(c, a, 2), num(a[3]));
                     });
                 }});
    h.push_back({"append", [](context &c, const std::vector<std::string> &a) {
                     return written(c, [&](udfkit::string_out &o) { o.append(str(c, a, 0)); });
                 }});
    h.push_back({"append_repeated", [](context &c, const std::vector<std::string> &a) {
                     return written(c, [&](udfkit::string_out &o) { o.append_repeated(str(c, a, 0), num(a[1])); });
                 }});
    h.push_back({"append_code_point", [](context &c, const std::vector<std::string> &a) {
                     return written(c, [&](udfkit::string_out &o) { o.append_code_point((unsigned)unum(a[0])); });
                 }});
    h.push_back({"append_int", [](context &c, const std::vector<std::string> &a) {
                     return written(c, [&](udfkit::string_out &o) { o.append_int(num(a[0])); });
                 }});
    h.push_back({"append_uint", [](context &c, const std::vector<std::string> &a) {
                     return written(c, [&](udfkit::string_out &o) { o.append_uint(unum(a[0])); });
                 }});
    h.push_back({"append_double", [](context &c, const std::vector<std::string> &a) {
                     const unsigned long long bits = unum(a[0]);
                     double d;
                     memcpy(&d, &bits, 8);
                     return written(c, [&](udfkit::string_out &o) { o.append_double(d); });
                 }});
    h.push_back({"to_int", [](context &c, const std::vector<std::string> &a) {
                     long long v = 0;
                     const udfkit::parse_status s = str(c, a, 0).to_int(&v, (int)num(a[1]));
                     return parsed(s, std::to_string(v));
                 }});
    h.push_back({"to_double", [](context &c, const std::vector<std::string> &a) {
                     double v = 0;
                     const udfkit::parse_status s = str(c, a, 0).to_double(&v);
                     unsigned long long bits;
                     memcpy(&bits, &v, 8);
                     char buf[32];
                     snprintf(buf, sizeof buf, "%016llx", bits);
                     return parsed(s, buf);
                 }});
    h.push_back({"hash", [](context &c, const std::vector<std::string> &a) {
                     char buf[32];
                     snprintf(buf, sizeof buf, "%016llx", str(c, a, 0).hash(unum(a[1])));
                     return std::string(buf);
                 }});
    h.push_back({"decode", [](context &c, const std::vector<std::string> &a) {
                     const udfkit::string_view s = str(c, a, 0);
                     std::string r = "D";
                     for (long long i = 0; i < s.size();) {
                         unsigned cp;
                         const int n = udfkit::utf8_decode(s.data() + i, s.data() + s.size(), &cp);
                         r += std::to_string(cp) + ":" + std::to_string(n) + ",";
                         i += n;
                     }
                     return r;
                 }});
    h.push_back({"encode", [](context &, const std::vector<std::string> &a) {
                     char buf[4];
                     return text(std::string(buf, (size_t)udfkit::utf8_encode((unsigned)unum(a[0]), buf)));
                 }});
    h.push_back({"chars", [](context &, const std::vector<std::string> &a) {
                     std::string r;
                     for (unsigned cp = (unsigned)unum(a[0]); cp < (unsigned)unum(a[1]); cp++)
                         r += char_line(cp) + ";";
                     return r;
                 }});
    h.push_back({"ascii_flags", [](context &, const std::vector<std::string> &) {
                     for (unsigned cp = 0; cp < 128; cp++)
                         if (udfkit::unicode::ascii_flags(cp) != udfkit::unicode::lookup(cp).flags)
                             return integer(cp);
                     return integer(-1);
                 }});
    h.push_back({"roundtrip", [](context &, const std::vector<std::string> &a) {
                     return roundtrip(unum(a[0]), num(a[1]));
                 }});
    return h;
}

} /* namespace */

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: string_lib_check CASES RESULTS\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "r"), *out = fopen(argv[2], "w");
    if (!in || !out) {
        perror("string_lib_check");
        return 2;
    }
    context c;
    std::vector<std::pair<std::string, handler>> table = handlers();
    std::string line;
    for (int ch; (ch = fgetc(in)) != EOF;) {
        if (ch != '\n') {
            line += (char)ch;
            continue;
        }
        std::vector<std::string> words;
        for (size_t i = 0, j; i <= line.size(); i = j + 1) {
            j = line.find(' ', i);
            if (j == std::string::npos)
                j = line.size();
            words.push_back(line.substr(i, j - i));
        }
        line.clear();
        if (words[0] == "S") {
            c.strings.push_back(unhex(words[1]));
            continue;
        }
        const handler *h = nullptr;
        for (const auto &entry : table)
            if (entry.first == words[1])
                h = &entry.second;
        if (!h)
            fail("unknown operation " + words[1]);
        const std::vector<std::string> args(words.begin() + 2, words.end());
        std::string results[2];
        for (int run = 0; run < 2; run++) {
            c.at_end = run == 0;
            c.placed.clear();
            for (size_t i = 0; i < args.size(); i++) {
                if (args[i][0] != 's')
                    continue;
                const std::string &s = c.strings.at((size_t)std::stoll(args[i].substr(1)));
                while (c.slots.size() <= i)
                    c.slots.emplace_back(1 << 16);
                if (s.size() > c.slots[i].capacity)
                    fail("a string longer than its slot");
                c.placed.resize(i + 1);
                c.placed[i] = c.slots[i].place(s, c.at_end);
            }
            results[run] = (*h)(c, args);
        }
        if (results[0] != results[1])
            fail("the results differ with the string elsewhere: " + results[0] + " and " + results[1]);
        fprintf(out, "%s\n", results[0].c_str());
    }
    return fclose(out) == 0 ? 0 : 1;
}
