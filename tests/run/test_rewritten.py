"""``harness.run.rewritten``: pytest's rewritten bytecode of the catalogue, written before a run.

Oracles: pytest itself (the cache file it writes for a module when it may write, read back with
``marshal``: the same code), ``marshal``'s round trip (a set constant's order), and the catalogue's
own code compiled in memory (the order a failure message prints a set in, as before the cache).
The files these tests write are in ``tmp_path``; the catalogue's own cache files are the ones
``check`` writes anyway (``run_check`` calls ``refresh``).
"""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from harness.run import rewritten
from harness.run.launch import SUITE_DIR, pytest_arguments

ROOT = Path(__file__).resolve().parents[2]

PLAIN = '''
def test_plain():
    value = [1, 2]
    assert value == [1, 2], "a message"
    assert len(value) in (2, 3)
'''
WITH_A_SET = '''
def test_with_a_set():
    assert {"allowed": {2, 3, 11}} != {}
'''


def _code(pyc: Path) -> types.CodeType:
    data = pyc.read_bytes()
    assert data[:4] == rewrite.importlib.util.MAGIC_NUMBER and data[4:8] == b"\x03\x00\x00\x00"
    return marshal.loads(data[16:])


@pytest.mark.e2e  # pytest in a child process, as the oracle
def test_the_cache_file_holds_the_code_pytest_itself_writes(tmp_path):
    module = tmp_path / "tests" / "test_plain.py"
    module.parent.mkdir()
    module.write_text(PLAIN)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST_"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                           "--rootdir", str(tmp_path), str(module)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    pyc = rewritten.cache_file(module)
    pytests_own = _code(pyc)
    pyc.unlink()
    assert rewritten.refresh((module,), staging=tmp_path) == 1
    assert _code(pyc) == pytests_own
    assert rewritten.refresh((module,), staging=tmp_path) == 0   # fresh: nothing written again
    module.write_text(PLAIN + "\n\ndef test_more():\n    assert 1\n")
    assert rewritten.refresh((module,), staging=tmp_path) == 1   # stale by its source's hash: written anew
    assert [p.name for p in tmp_path.iterdir()] == ["tests"]   # no temporary file left in staging


@pytest.mark.unit
def test_a_module_whose_sets_would_read_otherwise_gets_no_cache_file(tmp_path):
    module = tmp_path / "test_with_a_set.py"
    module.write_text(WITH_A_SET)
    code = compile(WITH_A_SET, str(module), "exec")
    assert not rewritten.same_when_loaded(code)   # marshal gives {2, 3, 11} back in another order
    assert rewritten.same_when_loaded(compile(PLAIN, str(module), "exec"))
    stale = rewritten.cache_file(module)
    stale.parent.mkdir()
    stale.write_bytes(b"an older cache file")
    assert rewritten.refresh((module,), staging=tmp_path) == 0
    assert not stale.exists()   # pytest compiles it in memory, as before


def _pytests_cache_file(module: Path) -> Path:
    """The cache file pytest's rewriter writes for ``module`` when its process may write bytecode (a
    test's import of a catalogue module, pytest run by hand): pytest's own functions, marshal's order."""
    source_hash, code = rewrite._rewrite_test(module, None)
    pyc = rewritten.cache_file(module)
    pyc.parent.mkdir(exist_ok=True)
    with open(pyc, "wb") as out:
        rewrite._write_pyc_fp(out, source_hash, code)
    return pyc


@pytest.mark.unit
def test_a_fresh_cache_file_another_process_wrote_for_such_a_module_is_removed(tmp_path):
    """pytest reads a fresh cache file even under ``-B``: one written by another process for a module
    whose sets would read otherwise is removed before the run, the first time this process meets the
    module and every time after (the CI rehearsal of 2026-12-08 on 3.10: a test's import had written
    ``test_masks``' and the report printed ``{11, 2, 3}``)."""
    module = tmp_path / "test_with_a_set.py"
    module.write_text(WITH_A_SET)
    pyc = _pytests_cache_file(module)
    assert rewritten.refresh((module,), staging=tmp_path) == 0
    assert not pyc.exists()
    _pytests_cache_file(module)
    assert rewritten.refresh((module,), staging=tmp_path) == 0
    assert not pyc.exists()
    plain = tmp_path / "test_plain.py"
    plain.write_text(PLAIN)
    kept = _pytests_cache_file(plain)
    written = kept.stat().st_mtime_ns
    assert rewritten.refresh((plain,), staging=tmp_path) == 0   # no set constant: fresh, read as it is
    assert kept.stat().st_mtime_ns == written


@pytest.mark.unit
def test_the_grader_child_s_pytest_has_the_assertion_pass_hook_off():
    from harness.run import CatalogueRun

    args = pytest_arguments(CatalogueRun(impl="oracles.automaton"))
    assert "enable_assertion_pass_hook=false" in [args[i + 1] for i, arg in enumerate(args) if arg == "-o"]
    assert set(rewritten.REWRITTEN) >= {SUITE_DIR / "conftest.py", SUITE_DIR / "plugin.py", SUITE_DIR / "test_masks.py"}


def _set_constants(value):
    if isinstance(value, types.CodeType):
        for item in value.co_consts:
            yield from _set_constants(item)
    elif isinstance(value, frozenset):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _set_constants(item)


@pytest.mark.e2e
def test_a_set_a_failure_prints_reads_as_the_catalogue_compiled_in_memory():
    """``wrong_numbering.py`` fails ``test_constraint_lifecycle`` with the expected mask of state 3,
    the set ``{2, 3, 11}`` of ``test_masks``: its report prints it in the order of the code pytest
    compiles in memory, as every run did before the catalogue's cache files (a ``.pyc`` of
    ``test_masks`` would give it in ``marshal``'s order)."""
    from harness.grading.check import CheckOptions, run_check

    _, code = rewrite._rewrite_test(SUITE_DIR / "test_masks.py", None)
    members = next(s for s in _set_constants(code) if s == frozenset({2, 3, 11}))
    in_memory = "{" + ", ".join(map(repr, members)) + "}"
    result = run_check(CheckOptions(impl=str(ROOT / "tests" / "candidates" / "wrong_numbering.py"),
                                    only=("test_constraint_lifecycle",)))
    test = next(t for t in result.tests if t.name == "test_constraint_lifecycle")
    assert test.status == "failed"
    assert f"expected: {{'state': 3, 'done': False, 'complete': False, 'allowed': {in_memory}}}" in test.details
    cached = [p.name for p in (SUITE_DIR / "__pycache__").glob("*" + rewrite.PYC_TAIL)]
    assert "test_dfa" + rewrite.PYC_TAIL in cached and "test_masks" + rewrite.PYC_TAIL not in cached
