def discount(price, rate):
    """The price after a discount rate, never below zero."""
    p = price * (1.0 - rate)
    return p if p > 0.0 else 0.0
