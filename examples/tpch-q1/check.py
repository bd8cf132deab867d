"""TPC-H Q1 over the columns `tpch_q1 --write DIR` wrote, computed by pyarrow on the CPU:
the expected answer of `tpch_q1 --expect FILE`, one line per group in the query's order.

    python3 check.py DIR > expected.txt

The money columns become Arrow decimal128(15,2) arrays of the same unscaled values, the
flags utf8 arrays, l_shipdate a date32 array; pyarrow.compute filters, multiplies exactly
(decimal(15,2) * decimal(16,2) is decimal(32,4)), groups and sums, and means a decimal(15,2)
column to scale 2, rounding half away from zero."""
import datetime
import os
import sys
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def decimal_column(path, n):
    unscaled = np.fromfile(path, dtype="<i8")
    assert len(unscaled) == n, path
    halves = np.empty(2 * n, dtype="<i8")
    halves[0::2] = unscaled
    halves[1::2] = np.where(unscaled < 0, -1, 0)
    return pa.Array.from_buffers(pa.decimal128(15, 2), n, [None, pa.py_buffer(halves.tobytes())])


def utf8_column(path, n):
    chars = np.fromfile(path, dtype=np.uint8)
    assert len(chars) == n, path
    offsets = np.arange(n + 1, dtype="<i4")
    return pa.Array.from_buffers(pa.utf8(), n, [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(chars.tobytes())])


def main():
    d = sys.argv[1]
    ship = np.fromfile(os.path.join(d, "l_shipdate.i32"), dtype="<i4")
    n = len(ship)
    t = pa.table({
        "l_returnflag": utf8_column(os.path.join(d, "l_returnflag.u8"), n),
        "l_linestatus": utf8_column(os.path.join(d, "l_linestatus.u8"), n),
        "l_shipdate": pa.array(ship, pa.int32()).cast(pa.date32()),
        "l_quantity": decimal_column(os.path.join(d, "l_quantity.i64"), n),
        "l_extendedprice": decimal_column(os.path.join(d, "l_extendedprice.i64"), n),
        "l_discount": decimal_column(os.path.join(d, "l_discount.i64"), n),
        "l_tax": decimal_column(os.path.join(d, "l_tax.i64"), n),
    })
    # date '1998-12-01' - interval '90' day
    last = pc.subtract(pa.scalar(datetime.date(1998, 12, 1), pa.date32()),
                       pa.scalar(datetime.timedelta(days=90), pa.duration("s")))
    t = t.filter(pc.less_equal(pc.cast(t["l_shipdate"], pa.timestamp("s")), last))
    one = pa.scalar(Decimal("1.00"), pa.decimal128(15, 2))
    disc_price = pc.multiply(t["l_extendedprice"], pc.subtract(one, t["l_discount"]))
    # Arrow types a product's precision as p1 + p2 + 1 and refuses one past 38 whatever the
    # values (docs/decimals-and-dates.md): disc_price's values have at most 10 digits, so a
    # checked cast to decimal(21,4) makes the second product decimal(38,6).
    charge = pc.multiply(pc.cast(disc_price, pa.decimal128(21, 4)), pc.add(one, t["l_tax"]))
    t = t.append_column("disc_price", disc_price).append_column("charge", charge)
    r = t.group_by(["l_returnflag", "l_linestatus"]).aggregate([
        ("l_quantity", "sum"), ("l_extendedprice", "sum"), ("disc_price", "sum"), ("charge", "sum"),
        ("l_quantity", "mean"), ("l_extendedprice", "mean"), ("l_discount", "mean"), ("l_quantity", "count")])
    r = r.sort_by([("l_returnflag", "ascending"), ("l_linestatus", "ascending")])
    columns = ["l_returnflag", "l_linestatus", "l_quantity_sum", "l_extendedprice_sum", "disc_price_sum", "charge_sum",
               "l_quantity_mean", "l_extendedprice_mean", "l_discount_mean", "l_quantity_count"]
    assert r.schema.field("disc_price_sum").type.scale == 4 and r.schema.field("charge_sum").type.scale == 6, r.schema
    for row in r.select(columns).to_pylist():
        print(" ".join(str(row[c]) for c in columns))


if __name__ == "__main__":
    main()
