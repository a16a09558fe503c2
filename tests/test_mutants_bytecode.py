"""A mutant's copy carries the reference's bytecode for its unchanged modules (``harness.mutants.apply``).

The pycs are checked-hash (PEP 552): the importer uses one only for the very source it was
compiled from. So a mutated module is always compiled from its own text, and a mutant gets
the same verdict with or without them (the slow path: no pyc, every module compiled).
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import pytest

from harness.mutants import apply, generation, runner
from harness.mutants.apply import REFERENCE_DIR, load, materialize, materialize_generated
from harness.mutants.catalogue import BY_ID

CHECKED_HASH_FLAGS = 0b11   # PEP 552: hash-based, checked


def _pyc(package: Path, name: str) -> Path:
    return Path(importlib.util.cache_from_source(str(package / name)))


def _one_generated(module: str, seed: int):
    mutants, _ = generation.pick(generation.enumerate_sites(modules=[module]), 1, seed=seed)
    return mutants[0]


def test_a_copy_holds_checked_pycs_of_its_unchanged_modules_only(tmp_path):
    mutant = _one_generated("parser", seed=3)
    package = materialize_generated(mutant, tmp_path)
    modules = sorted(p.name for p in REFERENCE_DIR.glob("*.py"))
    assert mutant.file in modules
    assert not _pyc(package, mutant.file).exists()   # the mutated module: compiled from its own text
    for name in modules:
        if name == mutant.file:
            continue
        data = _pyc(package, name).read_bytes()
        assert data[:4] == importlib.util.MAGIC_NUMBER
        assert int.from_bytes(data[4:8], "little") == CHECKED_HASH_FLAGS, name
        assert data[8:16] == importlib.util.source_hash((package / name).read_bytes()), name


def test_a_pyc_made_from_another_source_is_never_used(tmp_path):
    """s01 (``DOT = FULL_MASK``) given the reference's own parser pyc anyway: its text runs."""
    package = materialize(BY_ID["s01"], tmp_path)
    pyc = _pyc(package, "parser.py")
    assert not pyc.exists()
    pyc.write_bytes(apply.reference_bytecode(REFERENCE_DIR)["parser.py"])
    parser = importlib.import_module(load(package).__name__ + ".parser")
    assert parser.DOT == parser.FULL_MASK
    import oracles.automaton.parser as reference_parser

    assert reference_parser.DOT != reference_parser.FULL_MASK


def test_a_traceback_names_the_copy_not_the_reference(tmp_path):
    package = materialize(BY_ID["s01"], tmp_path)
    minimize = importlib.import_module(load(package).__name__ + ".minimize")
    assert Path(minimize.minimal_partition.__code__.co_filename) == package / "minimize.py"
    assert _pyc(package, "minimize.py").exists()


@pytest.mark.parametrize("module, seed", [("nfa", 1), ("index", 2)])
def test_a_mutant_gets_the_same_verdict_with_and_without_the_pycs(module, seed, tmp_path, monkeypatch):
    mutant = _one_generated(module, seed)
    with_pycs = runner.run_generated(mutant, tmp_path / "with", timeout=30.0, deep=False, first_kill=True)
    monkeypatch.setattr(apply, "_write_bytecode", lambda target, source, changed: None)
    without = runner.run_generated(mutant, tmp_path / "without", timeout=30.0, deep=False, first_kill=True)
    assert (with_pycs.outcome, with_pycs.killed_by) == (without.outcome, without.killed_by)
