"""Python string UDFs, one or more per operation udfkit supports on str (docs/strings.md,
"Python UDFs"). Plain Python: CPython runs them as they are for the expected results, and
udfkit compiles them with the specs in SPECS (strings-python, gpu-python-strings)."""


def p_len(s):
    return len(s)


def p_eq(s, t):
    return s == t


def p_ne_lit(s):
    return s != "abc"


def p_lt(s, t):
    return s < t


def p_le(s, t):
    return s <= t


def p_gt(s, t):
    return s > t


def p_ge_lit(s):
    return s >= "m"


def p_in_lit(s):
    return "a" in s


def p_in_cols(s, t):
    return t in s


def p_count(s):
    return s.count("a") + s.count("é", 1) + s.count("", 2, -1)


def p_find(s, t):
    return s.find(t) * 1000 + s.find("é", 1, -1)


def p_rfind(s):
    return s.rfind("a") * 1000 + s.rfind(" ", 0, 5)


def p_startswith(s):
    return s.startswith("a") or s.startswith("Σ", 1)


def p_endswith(s, t):
    return s.endswith(t) and not s.endswith("z", 0, 3)


def p_is(s):
    r = 0
    if s.isalnum():
        r |= 1
    if s.isalpha():
        r |= 2
    if s.isascii():
        r |= 4
    if s.isdecimal():
        r |= 8
    if s.isdigit():
        r |= 16
    if s.isidentifier():
        r |= 32
    if s.islower():
        r |= 64
    if s.isnumeric():
        r |= 128
    if s.isprintable():
        r |= 256
    if s.isspace():
        r |= 512
    if s.istitle():
        r |= 1024
    if s.isupper():
        r |= 2048
    return r


def p_strip(s):
    return s.strip()


def p_lstrip(s):
    return s.lstrip()


def p_rstrip_chars(s):
    return s.rstrip("a ")


def p_strip_chars(s):
    return s.strip("xé")


def p_upper(s):
    return s.upper()


def p_lower(s):
    return s.lower()


def p_capitalize(s):
    return s.capitalize()


def p_title(s):
    return s.title()


def p_swapcase(s):
    return s.swapcase()


def p_casefold(s):
    return s.casefold()


def p_zfill(s):
    return s.zfill(12)


def p_pad(s):
    return s.ljust(6, "*") + s.rjust(5) + s.center(9, "é")


def p_concat(s, t):
    return s + t


def p_concat_many(s, t):
    return "<" + s + "|" + t + "|" + s.upper() + ">"


def p_replace(s):
    return s.replace("a", "ÄÄ")


def p_replace_cols(s, t):
    return s.replace(t, "-", 2)


def p_repeat(s):
    return s * 3


def p_index(s):
    return s[0] + s[-1]


def p_slice(s):
    return s[1:4] + "|" + s[-3:] + "|" + s[:-2]


def p_slice_step(s):
    return s[::2] + "|" + s[::-1] + "|" + s[5:1:-2]


def p_int(s):
    return int(s)


def p_float(s):
    return float(s)


def p_str_int(s):
    return str(len(s)) + ":" + str(s.count(" ") - 7)


def p_from_int(x):
    return "row " + str(x) + " of a long table of rows"


def p_digits(x):
    return len(str(x)) * 100 + len(str(x * 0.5))


def p_str_float(x):
    # str() and repr() of floats (int64 * float, float(int64) past 2^53, subnormal and infinite values) and of
    # a str: CPython's text, whichever str() numba-cuda tries first.
    return str(x * 0.5) + " " + repr(float(x) / 7.0) + " " + str(x * 5e-324) + " " + str(str(x * 1e300))


def p_split(s):
    return s.split(",")[1]


def p_split_ws(s):
    return s.split()[-1]


def p_rsplit(s):
    return s.rsplit(" ", 1)[0]


def p_split_len(s):
    return len(s.split(","))


def p_removeprefix(s):
    return s.removeprefix("ab").removesuffix("z")


def p_nullable(s):
    if s is None:
        return None
    return s.upper() + "!"


def p_nullable_len(s):
    if s is None:
        return -1
    return len(s)


# name: spec, as udfkit compiles them.
SPECS = {
    "p_len": "int64(string)", "p_eq": "bool(string, string)", "p_ne_lit": "bool(string)",
    "p_lt": "bool(string, string)", "p_le": "bool(string, string)", "p_gt": "bool(string, string)",
    "p_ge_lit": "bool(string)", "p_in_lit": "bool(string)", "p_in_cols": "bool(string, string)",
    "p_count": "int64(string)", "p_find": "int64(string, string)", "p_rfind": "int64(string)",
    "p_startswith": "bool(string)", "p_endswith": "bool(string, string)", "p_is": "int64(string)",
    "p_strip": "string(string)", "p_lstrip": "string(string)", "p_rstrip_chars": "string(string)",
    "p_strip_chars": "string(string)", "p_upper": "string(string)", "p_lower": "string(string)",
    "p_capitalize": "string(string)", "p_title": "string(string)", "p_swapcase": "string(string)",
    "p_casefold": "string(string)", "p_zfill": "string(string)", "p_pad": "string(string)",
    "p_concat": "string(string, string)", "p_concat_many": "string(string, string)",
    "p_replace": "string(string)", "p_replace_cols": "string(string, string)", "p_repeat": "string(string)",
    "p_index": "string(string)", "p_slice": "string(string)", "p_slice_step": "string(string)",
    "p_int": "int64(string)", "p_float": "float64(string)", "p_str_int": "string(string)",
    "p_from_int": "string(int64)", "p_digits": "int64(int64)",
    "p_str_float": "string(int64)", "p_split": "string(string)", "p_split_ws": "string(string)",
    "p_rsplit": "string(string)", "p_split_len": "int64(string)", "p_removeprefix": "string(string)",
    "p_nullable": "string?(string?)", "p_nullable_len": "int64(string?)",
}
