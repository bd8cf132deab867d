def discount(price, rate):
    """The price after a discount; rates outside [0, 1] are clipped."""
    rate = min(max(rate, 0.0), 1.0)
    return price * (1.0 - rate)
