"""The warm grader's rewritten catalogue (``warm.rewriter``): a module's asserts rewritten once in the
warm grader are handed to a fork only while its source has the hash they were made from and the
fork's config leaves ``enable_assertion_pass_hook`` off, and are then exactly what pytest's own
``_rewrite_test`` makes (compared as marshalled code); anything else is rewritten as before."""

from __future__ import annotations

import marshal
import shutil
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from harness.mutants import warm

pytestmark = pytest.mark.unit

SUITE = Path(warm.__file__).resolve().parents[1] / "suite"


class _Config:
    def __init__(self, hook: bool):
        self.hook = hook

    def getini(self, name):
        assert name == "enable_assertion_pass_hook"
        return self.hook


def _counting(calls: list):
    def original(fn, config):
        calls.append(str(fn))
        return rewrite._rewrite_test(fn, config)
    return original


def test_kept_code_is_pytests_own_for_the_same_source(tmp_path):
    paths = []
    for name in ("test_dfa.py", "test_masks.py", "conftest.py"):
        shutil.copy(SUITE / name, tmp_path / name)
        paths.append(tmp_path / name)
    calls: list[str] = []
    rewrite_test = warm.rewriter(_counting(calls), paths)
    assert sorted(rewrite_test.kept) == sorted(map(str, paths)) and len(calls) == 3
    for path in paths:
        got = rewrite_test(path, _Config(False))
        want = rewrite._rewrite_test(path, None)
        assert got[0] == want[0] and marshal.dumps(got[1]) == marshal.dumps(want[1])
        assert "@py_assert" in str(marshal.dumps(got[1])) or path.name == "conftest.py"   # asserts rewritten
        assert rewrite_test(path, None) is got
    assert len(calls) == 3   # nothing rewritten again


def test_another_source_a_pass_hook_or_another_path_is_rewritten_anew(tmp_path):
    path = tmp_path / "test_x.py"
    path.write_text("def test_a():\n    x = 1\n    assert x == 1\n", encoding="utf-8")
    calls: list[str] = []
    rewrite_test = warm.rewriter(_counting(calls), [path])
    kept = rewrite_test(path, None)
    path.write_text("def test_a():\n    x = 2\n    assert x == 1\n", encoding="utf-8")
    changed = rewrite_test(path, None)
    assert changed[0] != kept[0] and len(calls) == 2
    assert marshal.dumps(changed[1]) == marshal.dumps(rewrite._rewrite_test(path, None)[1])
    path.write_text("def test_a():\n    x = 1\n    assert x == 1\n", encoding="utf-8")
    assert rewrite_test(path, _Config(False)) is kept and len(calls) == 2
    rewrite_test(path, _Config(True))
    assert len(calls) == 3
    other = tmp_path / "test_y.py"
    other.write_text("def test_b():\n    assert True\n", encoding="utf-8")
    rewrite_test(other, None)
    assert calls[-1] == str(other)


def test_the_switch_keeps_pytests_own(monkeypatch):
    original = rewrite._rewrite_test
    monkeypatch.setenv(warm.REWRITE_OFF_VARIABLE, "1")
    warm._keep_rewritten()
    assert rewrite._rewrite_test is original
    monkeypatch.delenv(warm.REWRITE_OFF_VARIABLE)
    monkeypatch.setattr(rewrite, "_rewrite_test", original)   # restored after the test
    warm._keep_rewritten()
    installed = rewrite._rewrite_test
    assert installed is not original and str(SUITE / "test_dfa.py") in installed.kept
    warm._keep_rewritten()
    assert rewrite._rewrite_test is installed   # once


def test_the_oracle_memos_fill_after_a_run_reads_its_file_or_nothing_and_leaves_none(tmp_path):
    """The oracle memo is filled after a run's fork from the file the fork wrote (``warm._fill_oracle_memo``;
    there is no recording run before the fork any more, whose wall had to stay inside the caller's
    slack): a file that is no record, or none (a run that failed or died), fills nothing, never
    raises, and no file is left behind."""
    from harness.suite import oracle_memo

    oracle_memo.forget()
    try:
        garbage = tmp_path / "record.msgpack"
        garbage.write_bytes(b"\xc1 not a record")
        (tmp_path / "record.msgpack.part").write_bytes(b"torn")
        assert warm._fill_oracle_memo(str(garbage)) >= 0
        assert not garbage.exists() and not (tmp_path / "record.msgpack.part").exists()
        assert warm._fill_oracle_memo(str(tmp_path / "none.msgpack")) >= 0
        assert oracle_memo.size() == (0, 0)
    finally:
        oracle_memo.forget()
