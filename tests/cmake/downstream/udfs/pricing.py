from rates import clip_rate


def discount(price, rate):
    return price * (1.0 - clip_rate(rate))
