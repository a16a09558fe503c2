"""The coverage map's key covers the catalogue's inputs: a map recorded before a change to the
strategies (what the deep properties draw), the facts or the golden modules is stale, never reused."""

from __future__ import annotations

import json
import shutil
import sys

from harness.mutants import coverage


def test_a_change_to_the_catalogue_s_inputs_makes_the_map_stale(tmp_path, monkeypatch):
    real = coverage.reference_digest()
    strategies = next(folder for folder in coverage.INPUT_DIRS if folder.name == "strategies")
    copy = tmp_path / "strategies"
    shutil.copytree(strategies, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(coverage, "INPUT_DIRS",
                        tuple(copy if folder == strategies else folder for folder in coverage.INPUT_DIRS))
    assert coverage.reference_digest() == real   # the same sources: the same key
    cmap = coverage.CoverageMap(real, {"test_hand_example": {"nfa.py": frozenset({3})}})
    cmap.save(tmp_path / "map.json")
    assert coverage.CoverageMap.load(tmp_path / "map.json") is not None
    with (copy / "strings.py").open("a", encoding="utf-8") as f:
        f.write("\nDEFAULT_MAX_SIZE = 13  # a strategy that draws otherwise\n")
    assert coverage.reference_digest() != real
    assert coverage.CoverageMap.load(tmp_path / "map.json") is None   # stale: recorded again, not reused


def test_every_input_folder_is_read():
    assert {folder.name for folder in coverage.INPUT_DIRS} == {"strategies", "facts", "golden"}
    assert all(any(folder.glob("*.py")) for folder in coverage.INPUT_DIRS)


def test_a_map_and_its_evidence_recorded_on_another_python_are_not_reused(tmp_path, monkeypatch):
    """The map's lines and the reference's recorded answers depend on the Python (the reference
    reads a pattern as that Python's ``re`` does): a map of 3.11 is never reused on 3.10."""
    here = coverage.python_version()
    assert here == f"{sys.version_info[0]}.{sys.version_info[1]}"
    cmap = coverage.CoverageMap(coverage.reference_digest(), {"test_hand_example": {"nfa.py": frozenset({3})}},
                                evidence={"compile": {"recorded": "on this Python"}})
    path = coverage.default_path(tmp_path / "run.jsonl")
    assert path.name == f"run.jsonl.py{here}.coverage.json"
    cmap.save(path)
    assert coverage.CoverageMap.load(path).evidence == cmap.evidence   # this Python: reused, evidence and all
    monkeypatch.setattr(coverage, "python_version", lambda: "3.10" if here != "3.10" else "3.13")
    assert coverage.default_path(tmp_path / "run.jsonl") != path        # a map each, side by side
    assert coverage.CoverageMap.load(path) is None                      # recorded again, not reused
    assert coverage.reference_digest() != cmap.digest
    assert coverage.evidence_digest() != json.loads(path.read_text())["evidence_digest"]
