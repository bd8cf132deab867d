"""Inputs and pyarrow.compute's answers for tests/gpu/test_arrow.c (the `_arrow` launchers).

Run at build time with the project's Python, which has pyarrow: the GPU test program then needs
neither Python nor pyarrow, only these Arrow IPC files, which it reads with nanoarrow.

For each case, <out>/<case>.in.arrow (an Arrow IPC stream) holds the inputs as record batches, one per chunk of a
chunked array (columns a1, a2, ...), and <case>.out.arrow pyarrow's answer for every chunk and
every window of it the test takes (WINDOWS: the whole chunk, and slices whose offsets are not
multiples of 8, so that values, bitmaps and string offsets are read from an array's offset):
one batch per (chunk, window), in that order, columns out1, .... A utf8_view input is written
as its own buffers, as pyarrow laid them out (IPC readers of nanoarrow 0.9 take no views):
column a<i> holds the views (fixed_size_binary(16), with the column's validity) and
<case>.a<i>.data.arrow one batch per chunk whose rows are the data buffers.

Float results are one IEEE operation (pyarrow's is the same), so every answer compares bit for
bit; rows that are null compare by validity only (their values are undefined in Arrow)."""
import decimal
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def windows(n):
    """(offset, length) of the slices of a chunk of n rows the test runs (test_arrow.c's too)."""
    out = [(0, n)]
    if n >= 30:
        out += [(3, n - 5), (17, n - 26)]
    return out


rng = np.random.default_rng(19)


def with_nulls(values, kind, type_):
    """values as an array with no nulls, all nulls, or some."""
    n = len(values)
    if kind == "none":
        mask = None
    elif kind == "all":
        mask = np.ones(n, dtype=bool)
    else:
        mask = rng.random(n) < 0.3
    return pa.array(values, type=type_, mask=mask)


NULLS = ["some", "none", "all", "some"]
SIZES = [1000, 77, 40, 0, 333]


def chunks(make):
    """The chunks of a case: each a list of input arrays, from make(n, nulls)."""
    return [make(n, NULLS[i % len(NULLS)]) for i, n in enumerate(SIZES)]


def ints(n, nulls):
    return with_nulls(rng.integers(-(1 << 40), 1 << 40, n), nulls, pa.int64())


def floats(n, nulls, t=pa.float64()):
    v = rng.normal(0, 1e3, n)
    if n > 4:
        v[:4] = [0.0, -0.0, np.inf, np.nan]
    return with_nulls(v.astype(t.to_pandas_dtype()), nulls, t)


def bools(n, nulls):
    return with_nulls(rng.random(n) < 0.5, nulls, pa.bool_())


WORDS = ["", "a", "hello", "twelve bytes", "thirteen byte", "a string longer than twelve bytes", "é", "日本語テキスト"]


def strings(n, nulls, t):
    return with_nulls([WORDS[i] for i in rng.integers(0, len(WORDS), n)], nulls, t)


def as_utf8(a):
    return a.cast(pa.string()) if a.type == pa.string_view() else a


CASES = {
    # map: a null input makes a null row, as pyarrow's null-propagating kernels do.
    "map_add_i64": (lambda n, z: [ints(n, z), ints(n, "none" if z == "all" else z)], lambda a: [pc.add(a[0], a[1])]),
    "map_mul_f64": (lambda n, z: [floats(n, z), floats(n, "none")], lambda a: [pc.multiply(a[0], a[1])]),
    "nullable_map_mul_f64": (lambda n, z: [floats(n, z), floats(n, "some")], lambda a: [pc.multiply(a[0], a[1])]),
    "map_add_f32": (lambda n, z: [floats(n, z, pa.float32()), floats(n, z, pa.float32())], lambda a: [pc.add(a[0], a[1])]),
    "map_neg_f16": (lambda n, z: [floats(n, z, pa.float16())], lambda a: [pc.negate(a[0])]),
    "map_gt_f64": (lambda n, z: [floats(n, z), floats(n, "none")], lambda a: [pc.greater(a[0], a[1])]),
    "map_and_b": (lambda n, z: [bools(n, z), bools(n, "some")], lambda a: [pc.and_(a[0], a[1])]),
    "map_blen_utf8": (lambda n, z: [strings(n, z, pa.string())], lambda a: [pc.binary_length(a[0]).cast(pa.int64())]),
    "map_blen_large": (lambda n, z: [strings(n, z, pa.large_string())], lambda a: [pc.binary_length(a[0])]),
    "map_blen_view": (lambda n, z: [strings(n, z, pa.string_view())],
                      lambda a: [pc.binary_length(as_utf8(a[0])).cast(pa.int64())]),
    # a string result: large_utf8, over a utf8 and a large_utf8 input.
    "map_cat": (lambda n, z: [strings(n, z, pa.string()), strings(n, "some", pa.large_string())],
                lambda a: [pc.binary_join_element_wise(a[0].cast(pa.large_string()), a[1], pa.scalar("", pa.large_string()))]),
    "nullable_map_coalesce_i64": (lambda n, z: [ints(n, z), ints(n, "none")], lambda a: [pc.coalesce(a[0], a[1])]),
    "map_next_day": (lambda n, z: [with_nulls(rng.integers(-20000, 20000, n).astype(np.int32), z, pa.int32()).cast(pa.date32())],
                     lambda a: [pc.add(a[0].cast(pa.int32()), pa.scalar(1, pa.int32())).cast(pa.date32())]),
    "map_ts_add": (lambda n, z: [with_nulls(rng.integers(0, 1 << 50, n), z, pa.timestamp("us")),
                                 with_nulls(rng.integers(-(1 << 30), 1 << 30, n), "none", pa.duration("us"))],
                   lambda a: [pc.add(a[0], a[1])]),
    "map_dec_neg": (lambda n, z: [with_nulls([decimal.Decimal(int(x)).scaleb(-2) for x in rng.integers(-(10**13), 10**13, n)],
                                             z, pa.decimal128(15, 2))],
                    lambda a: [pc.negate(a[0])]),
    # filter: the rows where the predicate holds; a null input drops its row.
    "filter_positive": (lambda n, z: [floats(n, z)],
                        lambda a: [pc.filter(a[0], pc.greater(a[0], 0))]),
    "filter_both": (lambda n, z: [bools(n, z), ints(n, "some")],
                    lambda a: [pc.filter(x, pc.and_(a[0], pc.greater(a[1], 0))) for x in a]),
    # several outputs, one a string (large_utf8): the string twice, and its size.
    "map_twice_len": (lambda n, z: [strings(n, z, pa.string())],
                      lambda a: [pc.binary_join_element_wise(a[0].cast(pa.large_string()), a[0].cast(pa.large_string()),
                                                             pa.scalar("", pa.large_string())),
                                 pc.binary_length(a[0]).cast(pa.int64())]),
    # filter over strings: the kept strings as large_utf8, from utf8 and from utf8_view.
    "filter_long_utf8": (lambda n, z: [strings(n, z, pa.string())],
                         lambda a: [pc.filter(a[0], pc.greater(pc.binary_length(a[0]), 5)).cast(pa.large_string())]),
    "filter_long_view": (lambda n, z: [strings(n, z, pa.string_view())],
                         lambda a: [pc.filter(as_utf8(a[0]), pc.greater(pc.binary_length(as_utf8(a[0])), 5))
                                    .cast(pa.large_string())]),
}


def write(path, batches, schema):
    with pa.OSFile(path, "wb") as f, pa.ipc.new_stream(f, schema) as w:
        for b in batches:
            w.write_batch(b)


def view_parts(a):
    """A utf8_view array's views (with its validity) and data buffers, as pyarrow laid them out."""
    bufs = a.buffers()
    views = pa.Array.from_buffers(pa.binary(16), len(a), [bufs[0], bufs[1]], offset=a.offset)
    data = pa.array([b.to_pybytes() for b in bufs[2:]], type=pa.large_binary())
    return views, data


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, (make, answer) in CASES.items():
        pieces = chunks(make)
        ins, outs, data = [], [], {}
        for inputs in pieces:
            cols = []
            for i, a in enumerate(inputs):
                if a.type == pa.string_view():
                    views, buffers = view_parts(a)
                    cols.append(views)
                    data.setdefault(i, []).append(pa.record_batch([buffers], names=["data"]))
                else:
                    cols.append(a)
            ins.append(pa.record_batch(cols, names=[f"a{i + 1}" for i in range(len(cols))]))
            for offset, length in windows(len(inputs[0])):
                res = answer([a.slice(offset, length) for a in inputs])
                outs.append(pa.record_batch(res, names=[f"out{j + 1}" for j in range(len(res))]))
        write(os.path.join(out, f"{name}.in.arrow"), ins, ins[0].schema)
        write(os.path.join(out, f"{name}.out.arrow"), outs, outs[0].schema)
        for i, batches in data.items():
            write(os.path.join(out, f"{name}.a{i + 1}.data.arrow"), batches, batches[0].schema)


if __name__ == "__main__":
    main()
