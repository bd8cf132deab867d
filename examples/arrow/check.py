"""examples/arrow: writes the program's input (--write IN.arrows) with pyarrow, or reads its
output (OUT.arrows) with pyarrow and compares it with pyarrow.compute's answer for the same
input, bit for bit (one IEEE multiplication each; null where an input is null).

usage: check.py --write IN.arrows | check.py IN.arrows OUT.arrows"""
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def write(path):
    rng = np.random.default_rng(7)
    schema = pa.schema([("price", pa.float64()), ("quantity", pa.int64())])
    with pa.OSFile(path, "wb") as f, pa.ipc.new_stream(f, schema) as w:
        for n, nulls in ((1000, 0.1), (37, 0.0), (0, 0.0), (4096, 0.5)):
            price = pa.array(np.round(rng.uniform(0, 500, n), 2), mask=rng.random(n) < nulls)
            quantity = pa.array(rng.integers(1, 50, n), mask=rng.random(n) < nulls)
            w.write_batch(pa.record_batch([price, quantity], schema=schema))
    print(f"check.py: wrote {path}")


def check(in_path, out_path):
    table = pa.ipc.open_stream(in_path).read_all()
    got = pa.ipc.open_stream(out_path).read_all()
    want = pc.multiply(table["price"], table["quantity"].cast(pa.float64()))
    assert got.schema.names == ["total"] and got["total"].type == pa.float64(), got.schema
    got_total = got["total"].combine_chunks()
    want_total = want.combine_chunks()
    assert got_total.equals(want_total), "the totals differ from pyarrow.compute's"
    # equals() compares values at valid rows; bit for bit: the same bytes there.
    valid = pc.is_valid(want_total).to_numpy(zero_copy_only=False)
    assert (got_total.to_numpy(zero_copy_only=False)[valid].view(np.uint64)
            == want_total.to_numpy(zero_copy_only=False)[valid].view(np.uint64)).all()
    print(f"check.py: {len(got_total)} totals ({got_total.null_count} null) equal to pyarrow.compute's")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        write(sys.argv[2])
    elif len(sys.argv) == 3:
        check(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)
