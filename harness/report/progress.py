"""The progress bar the verbs that have progress draw (mutants, grade-tests, check --batch).

``bar(done, total, width, empty)``: ``[`` + ``#`` for the part done (rounded down) +
``empty`` for the rest + ``]``; ``total`` 0 counts as 1, ``done`` is clipped to
``0..total``. Each verb keeps its own line around the bar (what finished, its verdict,
the seconds), because what a line says is the verb's.

Example::

    >>> bar(3, 12, 8)
    '[##......]'
"""

from __future__ import annotations

__all__ = ["bar"]


def bar(done: int, total: int, width: int, empty: str = ".") -> str:
    total = max(total, 1)
    filled = width * min(max(done, 0), total) // total
    return f"[{'#' * filled}{empty * (width - filled)}]"
