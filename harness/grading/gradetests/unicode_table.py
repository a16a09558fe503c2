"""Hypothesis's table of Unicode categories, laid into each student process's home once made.

A suite that draws text (``st.text()``, ``st.characters()``, ``st.from_regex()``) needs
Hypothesis's map from each Unicode category to its code point intervals. Hypothesis reads
it from its storage folder (``.hypothesis/unicode_data/<Unicode version>/charmap.json.gz``
under the current folder) or, when that file is missing, builds it by asking
``unicodedata.category`` of all 1,114,112 code points (~0.17 CPU s) and writes it there.
Every student process starts in a new, empty home (``suite_run``: one run cannot hand
anything to the next), so every process of every run built it again: some 0.17 of the
~1 CPU s a process of a text-drawing suite costs.

``table_bytes()`` is that file, built once by the grader (the same walk over the code
points, in the format Hypothesis writes and reads); ``suite_run`` puts it in each run's copy
of the shim (``FILE_NAME``, read-only to the student), and the shim copies it, before
Hypothesis is imported, to where Hypothesis reads it in the process's home
(``shim.boot._lay_unicode_table``). The bytes depend only on the interpreter's Unicode
version (the student's process runs the grader's interpreter), so every process of every
run, wheat or chaff, finds the same file: nothing a suite can tell implementations apart
by. Should a later Hypothesis read another format, its reader fails and it builds the table
itself, as before: only the time changes (``tests/grading/test_unicode_table.py`` checks that this
Hypothesis reads the file as the table it builds, and builds nothing).

Example::

    (shim_copy / FILE_NAME).write_bytes(table_bytes())
"""

from __future__ import annotations

import functools
import gzip
import json
import sys
import unicodedata
from pathlib import Path

__all__ = ["table_bytes", "FILE_NAME", "HYPOTHESIS_PATH"]

FILE_NAME = "unicode_table.json.gz"
"""The table's name in the run's copy of the shim."""
HYPOTHESIS_PATH = Path(".hypothesis", "unicode_data", unicodedata.unidata_version, "charmap.json.gz")
"""Where Hypothesis reads it, from the folder it is imported in (its storage folder's default,
``hypothesis.configuration``: ``Path.cwd() / ".hypothesis"``; the student's process starts in
its home, ``shim.boot``, which lays the table there under this name)."""


@functools.lru_cache(maxsize=1)
def table_bytes() -> bytes:
    """The gzipped table: for each Unicode category, its code point intervals ``[first,
    last]`` in order; the categories sorted, as JSON (``hypothesis.internal.charmap``'s file)."""
    category = unicodedata.category
    table: dict[str, list[list[int]]] = {}
    last, start = category(chr(0)), 0
    for code in range(1, sys.maxunicode + 1):
        now = category(chr(code))
        if now != last:
            table.setdefault(last, []).append([start, code - 1])
            last, start = now, code
    table.setdefault(last, []).append([start, sys.maxunicode])
    return gzip.compress(json.dumps(sorted(table.items())).encode(), mtime=1)
