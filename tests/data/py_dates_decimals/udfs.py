"""Python UDFs over decimals, dates and times (gpu-python-dates-decimals, built by
tests/gpu/build_python_dates_decimals.py, which computes what each should give with Python's
decimal module, pyarrow.compute and numpy)."""
import decimal

import numpy as np

import udfkit
from udfkit import Decimal

CUTOFF = np.datetime64("1998-09-02")  # date '1998-12-01' - interval '90' day
WEEK = np.timedelta64(7, "D")


def net(price, discount):
    return price * (1 - discount)


def charge(price, discount, tax):
    return price * (1 - discount) * (1 + tax)


def quotient(a, b):
    return a / b


def quotient_at(a, b):
    return udfkit.div(a, b, 2)


def product(a, b):
    return a * b - 1


def narrow(a):
    return a + Decimal("0.005")


def rounded(a):
    return round(a)


def truncated(a):
    return int(a)


def round_places(a):
    return round(a, 2)


def as_float(a):
    return float(a)


def from_float(x):
    return Decimal(x, 3)


def compare(a, b):
    r = 0
    if a < b:
        r += 1
    if a == b:
        r += 2
    if a >= Decimal("1.5"):
        r += 4
    if abs(a) > b:
        r += 8
    if -a <= 0:
        r += 16
    if a != 7:
        r += 32
    return r


def literals(a):
    x = a * Decimal("1.0825") - Decimal("0.0001")
    x += 3
    x -= a
    return x * 2


def discounted(price, discount, ship):
    if ship <= CUTOFF:
        return price * (1 - discount)
    return Decimal(0)


def date_fields(d):
    return ((udfkit.year(d) * 100 + udfkit.month(d)) * 100 + udfkit.day(d)) * 10000 + udfkit.weekday(d) * 1000 \
        + udfkit.day_of_year(d)


def time_fields(t):
    return (((udfkit.hour(t) * 100 + udfkit.minute(t)) * 100 + udfkit.second(t)) * 1000 + udfkit.millisecond(t)) \
        * 1000000 + udfkit.microsecond(t) * 1000 + udfkit.nanosecond(t)


def quarter_of(t):
    return udfkit.quarter(t)


def plus_duration(d, s):
    return d + s


def days_apart(a, b):
    return b - a


def to_day(t):
    return t


def later_months(d, n):
    return udfkit.add_months(d, n)


def month_start(t):
    return udfkit.floor_to(t, "month")


def year_start(d):
    return udfkit.floor_to(d, "Y")


def week_start(t):
    return udfkit.floor_to(t, "week")


def day_end(t):
    return udfkit.ceil_to(t, "day")


def months_apart(a, b):
    return udfkit.months_between(a, b)


def days_between(a, b):
    return udfkit.days_between(a, b)


def years_apart(a, b):
    return udfkit.between(a, b, "year")


def earlier(a, b):
    return a < b


def durations(a, b):
    return a + b * 2


def next_week(d):
    return d + WEEK


def in_seconds(t):
    return udfkit.to_unit(t, "s")


def net_or_none(price, discount):
    if price is None:
        return None
    return price * (1 - discount)


def days_or_none(a, b):
    if a is None:
        return None
    return b - a


def python_decimal(a):
    return a * decimal.Decimal("0.25") + decimal.Decimal(1)
