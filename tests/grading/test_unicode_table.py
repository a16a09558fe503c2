"""Hypothesis's Unicode table, laid into a student's home by grade-tests
(``harness.grading.gradetests.unicode_table``, ``shim.boot._lay_unicode_table``).

Oracle: Hypothesis itself, in new interpreters: one starting in an empty folder builds the
table and writes its file; one starting in a folder the table was laid into must read the same
table and leave the file laid as it was (a build would replace it: another inode).
"""

from __future__ import annotations

import gzip
import subprocess
import sys

import pytest

from harness.grading.gradetests import unicode_table

SHOW_TABLE = ("import json; from hypothesis.internal.charmap import charmap; "
              "print(json.dumps(sorted((k, [list(p) for p in v]) for k, v in charmap().items())))")


def _table_seen_from(folder) -> str:
    return subprocess.run([sys.executable, "-I", "-c", SHOW_TABLE], cwd=folder, capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.e2e  # Python children
def test_hypothesis_reads_the_laid_table_as_the_one_it_builds_and_builds_nothing(tmp_path):
    built, laid = tmp_path / "built", tmp_path / "laid"
    built.mkdir()
    laid.mkdir()
    target = laid / unicode_table.HYPOTHESIS_PATH
    target.parent.mkdir(parents=True)
    target.write_bytes(unicode_table.table_bytes())
    before = target.stat()
    assert _table_seen_from(laid) == _table_seen_from(built)
    after = target.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # read, not built again
    # the very text Hypothesis writes when it builds the table itself (its gzip header names its temporary file)
    assert gzip.decompress((built / unicode_table.HYPOTHESIS_PATH).read_bytes()) == \
        gzip.decompress(unicode_table.table_bytes())
