#!/usr/bin/env python3
"""Writes the tables of <udfkit/string.cuh>:

- string_unicode.cuh: every code point's properties and full case mappings, taken from the
  running CPython's own str methods (chr(c).isalpha(), chr(c).upper(), ...), so that the CUDA
  functions answer exactly what that CPython answers; its Unicode version is in the header.
- string_pow5.cuh: the 128-bit powers of five that parsing (Eisel-Lemire) and formatting (Ryu)
  of doubles multiply by; the same on every Python.

Usage: gen_string_tables.py OUTPUT_DIR. tests/strings/test_string_tables.py checks that the
committed headers are what this script writes."""
import os
import sys
import unicodedata

SIGMA = "\u03a3"
# Flag bits of a character record, as string_unicode.cuh names them.
FLAGS = ["alpha", "decimal", "digit", "numeric", "lower", "upper", "title", "space", "printable",
         "id_start", "id_continue", "cased", "case_ignorable", "ext_upper", "ext_lower", "ext_title",
         "ext_fold"]
DECIMAL_SHIFT = 24
# Planes 4 to 13 are unassigned and 15 and 16 private use: every property false, no mapping.
# Plane 14 (tags, variation selectors) follows the first planes in the tables.
PLANE14 = 0xE0000


def is_cased(ch):
    """CPython's _PyUnicode_IsCased, seen through title(): a cased character makes the next
    one lower case."""
    return (ch + "A").title()[-1] == "a"


def is_case_ignorable(ch):
    """CPython's _PyUnicode_IsCaseIgnorable, seen through final sigma (handle_capital_sigma):
    a capital sigma is final after a cased character and any case-ignorable ones."""
    if is_cased(ch):
        return ("1" + ch + SIGMA).lower()[-1] == "\u03c3"
    return ("A" + ch + SIGMA).lower()[-1] == "\u03c2"


def char_flags(c):
    ch = chr(c)
    upper = ch.isupper()
    title = ch.istitle() and not upper  # one character: istitle() is upper or title case
    props = {
        "alpha": ch.isalpha(), "decimal": ch.isdecimal(), "digit": ch.isdigit(), "numeric": ch.isnumeric(),
        "lower": ch.islower(), "upper": upper, "title": title, "space": ch.isspace(),
        "printable": ch.isprintable(), "id_start": ch.isidentifier(), "id_continue": ("a" + ch).isidentifier(),
        "cased": is_cased(ch), "case_ignorable": is_case_ignorable(ch),
    }
    # The derivations above hold only if these do (checked, not assumed).
    assert ch.isalnum() == (props["alpha"] or props["decimal"] or props["digit"] or props["numeric"]), hex(c)
    assert not (upper and ch.islower()), hex(c)
    if upper:
        assert (ch + ch).isupper(), hex(c)  # upper, not also title case
    if ch.islower():
        assert (ch + ch).islower(), hex(c)
    flags = sum(1 << FLAGS.index(name) for name, on in props.items() if on)
    if props["decimal"]:
        flags |= int(ch) << DECIMAL_SHIFT
    return flags


def char_record(c, ext, ext_index):
    """(flags, upper, lower, title, fold): a mapping to one code point as the difference to
    it, a longer one as (length << 16) | its index in ext, with the flag ext_<name>."""
    ch = chr(c)
    flags = char_flags(c)
    fields = []
    for name, mapped in (("upper", ch.upper()), ("lower", ch.lower()), ("title", ch.title()),
                         ("fold", ch.casefold())):
        if len(mapped) == 1:
            fields.append(ord(mapped) - c)
            continue
        assert 2 <= len(mapped) <= 3, hex(c)
        cps = tuple(ord(m) for m in mapped)
        if cps not in ext_index:
            ext_index[cps] = len(ext)
            ext.extend(cps)
        fields.append((len(cps) << 16) | ext_index[cps])
        flags |= 1 << FLAGS.index("ext_" + name)
    return (flags,) + tuple(fields)


def blocks(seq, shift):
    """Splits seq into blocks of 1 << shift (the last padded with zeros, never read):
    (the block number of each, the distinct blocks concatenated)."""
    size = 1 << shift
    seen, order, flat = {}, [], []
    for start in range(0, len(seq), size):
        block = tuple(seq[start:start + size])
        block += (0,) * (size - len(block))
        if block not in seen:
            seen[block] = len(seen)
            flat.extend(block)
        order.append(seen[block])
    return order, flat


def width(values):
    return "unsigned char" if max(values) < 256 else "unsigned short"


def three_levels(index):
    """The smallest three-level split of index (record numbers): (shift3, shift2, stage1,
    stage2, stage3), a record number being stage3[stage2[stage1[i >> (s2 + s3)] << s2 |
    (i >> s3 & mask2)] << s3 | (i & mask3)]."""
    best = None
    for s3 in range(2, 9):
        order3, flat3 = blocks(index, s3)
        for s2 in range(2, 9):
            order2, flat2 = blocks(order3, s2)
            size = sum((1 if max(t) < 256 else 2) * len(t) for t in (order2, flat2, flat3))
            if best is None or size < best[0]:
                best = (size, s3, s2, order2, flat2, flat3)
    return best[1:]


def c_array(ctype, name, values, per_line=16):
    lines = [", ".join(values[i:i + per_line]) for i in range(0, len(values), per_line)]
    body = ",\n    ".join(lines)
    return f"UDFKIT_STRING_TABLE({ctype}, {name}, {{\n    {body}}})\n"


def unicode_header():
    ext, ext_index, records, record_index = [], {}, [], {}
    index = []
    for c in range(0x110000):
        rec = char_record(c, ext, ext_index)
        if rec not in record_index:
            record_index[rec] = len(records)
            records.append(rec)
        index.append(record_index[rec])
    unassigned = index[0x10FFFF]
    last = max(c for c in range(PLANE14) if index[c] != unassigned) + 1
    last14 = max(c for c in range(PLANE14, 0xF0000) if index[c] != unassigned) + 1
    assert all(index[c] == unassigned for c in range(last, PLANE14)), "a property beyond the tables"
    assert all(index[c] == unassigned for c in range(last14, 0x110000)), "a property beyond the tables"
    s3, s2, stage1, stage2, stage3 = three_levels(index[:last] + index[PLANE14:last14])
    size = {"stage1": len(stage1) * (1 if max(stage1) < 256 else 2),
            "stage2": len(stage2) * (1 if max(stage2) < 256 else 2),
            "stage3": len(stage3) * (1 if max(stage3) < 256 else 2),
            "records": len(records) * 20, "ext": len(ext) * 4}
    out = [f"""/* Generated by src/tools/gen_string_tables.py from CPython {sys.version.split()[0]}'s str methods
 * (Unicode {unicodedata.unidata_version}); do not edit. Every code point's properties and full case
 * mappings for <udfkit/string.cuh>: {sum(size.values())} bytes ({", ".join(f"{k} {v}" for k, v in size.items())}). */
#ifndef UDFKIT_STRING_UNICODE_CUH
#define UDFKIT_STRING_UNICODE_CUH

#ifndef UDFKIT_STRING_CUH
#error "include <udfkit/string.cuh>"
#endif

namespace udfkit {{
namespace unicode {{

enum {{
    version_major = {unicodedata.unidata_version.split(".")[0]},
    version_minor = {unicodedata.unidata_version.split(".")[1]},
    version_update = {unicodedata.unidata_version.split(".")[2]},
"""]
    out += [f"    flag_{name} = 1u << {i},\n" for i, name in enumerate(FLAGS)]
    out.append(f"""    decimal_shift = {DECIMAL_SHIFT},
    /* The tables cover [0, planes_end) and plane 14 up to plane14_end, after it. */
    planes_end = {last:#x},
    plane14 = {PLANE14:#x},
    plane14_end = {last14:#x},
    unassigned = {unassigned},
    shift3 = {s3},
    shift2 = {s2}
}};

/* Flags, then upper, lower, title and fold: the difference to the one code point mapped to,
 * or (length << 16) | index in ext where the flag ext_<mapping> is set. */
struct record {{
    unsigned flags;
    int upper, lower, title, fold;
}};

""")
    out.append(c_array(width(stage1), "stage1", [str(v) for v in stage1]))
    out.append(c_array(width(stage2), "stage2", [str(v) for v in stage2]))
    out.append(c_array(width(stage3), "stage3", [str(v) for v in stage3]))
    out.append(c_array("record", "records", ["{%#x, %d, %d, %d, %d}" % r for r in records], 4))
    out.append(c_array("unsigned", "ext", [f"{v:#x}" for v in ext], 12))
    out.append("\n} /* namespace unicode */\n} /* namespace udfkit */\n\n#endif /* UDFKIT_STRING_UNICODE_CUH */\n")
    return "".join(out)


def pow5_entry(q):
    """5^q as 128 bits in [2^127, 2^128), as fast_float's table has it (Eisel-Lemire needs
    exactly these: truncated, and for -27 <= q < 0 one more than truncated)."""
    if q >= 0:
        p = 5 ** q
        while p < 1 << 127:
            p *= 2
        while p >= 1 << 128:
            p //= 2
        return p
    p = 5 ** -q
    z = p.bit_length()
    if q >= -27:
        return 2 ** (z + 127) // p + 1
    c = 2 ** (2 * z + 128) // p + 1
    while c >= 1 << 128:
        c //= 2
    return c


POW5_MIN, POW5_MAX = -342, 325


def ryu_entries_hold(table):
    """Ryu's tables (DOUBLE_POW5_SPLIT and DOUBLE_POW5_INV_SPLIT, 125 bits) as shifts of this
    one, which d2s in string_number.cuh relies on: checked for every entry it reads."""
    for i in range(0, 326):
        p = 5 ** i
        split = p >> (p.bit_length() - 125) if p.bit_length() >= 125 else p << (125 - p.bit_length())
        assert table[i - POW5_MIN] >> 3 == split, i
    for i in range(0, 342):
        p = 5 ** i
        inv = (1 << (p.bit_length() - 1 + 125)) // p + 1
        # fast_float's entries for -27 <= q < 0 are one more than truncated, Ryu's all are.
        derived = (1 << 125) + 1 if i == 0 else ((table[-i - POW5_MIN] - (i <= 27)) >> 3) + 1
        assert derived == inv, i


def pow5_header():
    table = [pow5_entry(q) for q in range(POW5_MIN, POW5_MAX + 1)]
    ryu_entries_hold(table)
    values = []
    for v in table:
        values += [f"{v >> 64:#018x}ull", f"{v & ((1 << 64) - 1):#018x}ull"]
    return f"""/* Generated by src/tools/gen_string_tables.py; do not edit. 5^q for q in [{POW5_MIN}, {POW5_MAX}] as
 * 128 bits (high word, then low) normalized to [2^127, 2^128), as fast_float's Eisel-Lemire
 * table has them; Ryu's tables are shifts of these (checked by the script): {len(table) * 16} bytes. */
#ifndef UDFKIT_STRING_POW5_CUH
#define UDFKIT_STRING_POW5_CUH

#ifndef UDFKIT_STRING_CUH
#error "include <udfkit/string.cuh>"
#endif

namespace udfkit {{
namespace detail {{

enum {{ pow5_min = {POW5_MIN}, pow5_max = {POW5_MAX} }};

{c_array("unsigned long long", "pow5", values, 4)}
}} /* namespace detail */
}} /* namespace udfkit */

#endif /* UDFKIT_STRING_POW5_CUH */
"""


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    for name, text in (("string_unicode.cuh", unicode_header()), ("string_pow5.cuh", pow5_header())):
        with open(os.path.join(argv[1], name), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main(sys.argv)
