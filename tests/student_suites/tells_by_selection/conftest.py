"""Records what pytest was told to leave out (a deselection is the grader's doing)."""

DESELECTED = []


def pytest_deselected(items):
    DESELECTED.extend(item.nodeid for item in items)
