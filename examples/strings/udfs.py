def domain(email):
    """The part after the last "@" (all of it without one), stripped, in lower case."""
    return email.split("@")[-1].strip().lower()


def code_points(s):
    """len(s): characters (code points), not bytes."""
    return len(s)
