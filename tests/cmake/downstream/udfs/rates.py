def clip_rate(rate):
    return min(max(rate, 0.0), 1.0)
