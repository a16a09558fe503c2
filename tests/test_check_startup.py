"""check's start-up (issue 23, item 4): the candidate process begins its import while the
grader child collects the catalogue, and nothing a run reports changes for it.

Oracles: the plugin's stated RLIMIT_CPU (the load's CPU seconds plus twice each collected
test's, ``harness.suite.plugin._new_candidate``) in the confinement sentence; the verdicts
the seed names for a candidate that cannot load; the lazy imports checked by importing in a
fresh interpreter (``sys.modules`` afterwards).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.grading.check import CheckOptions, run_check

ROOT = Path(__file__).resolve().parents[1]
CANDIDATES = ROOT / "tests" / "candidates"


@pytest.mark.e2e
@pytest.mark.parametrize("only", [("test_apply_mask",), ("test_apply_mask", "test_hand_example", "test_vocab_bytes")])
def test_the_early_candidate_has_the_rlimit_of_the_tests_collected(only):
    result = run_check(CheckOptions(only=only, timeout=7.0, load_seconds=11.0))
    assert result.exit_code == 0, [(t.name, t.status, t.reason) for t in result.tests]
    assert f"rlimits CPU {int(11 + 2 * 7 * len(only))} s," in result.load["confinement"]


@pytest.mark.e2e
def test_a_candidate_that_dies_while_loading_is_still_that_verdict():
    result = run_check(CheckOptions(impl=str(CANDIDATES / "exits_on_import.py"), only=("test_apply_mask",)))
    assert result.exit_code == 3 and result.load["status"] == "error", result.load
    assert "while loading" in result.load["reason"]
    assert [t.status for t in result.tests] == ["not run"]


@pytest.mark.e2e
def test_check_s_parent_imports_neither_numpy_nor_the_openai_client():
    code = ("import sys; from harness.cli import build_parser, _verb; build_parser(_verb(['check'])); "
            "import harness.grading.check; print(sorted(m for m in ('numpy', 'openai') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_every_verb_parses_alike_with_only_its_own_module_imported():
    from harness import cli

    full = cli.build_parser()
    for verb in cli.VERBS:
        lazy = cli.build_parser(verb)
        assert lazy.parse_args([verb] + _minimal(verb)).verb == verb
        assert full.parse_args([verb] + _minimal(verb)).verb == verb


def _minimal(verb: str) -> list[str]:
    return {"dfa": ["ab"], "conform": ["--base-url", "http://127.0.0.1:1"], "golden": ["check"],
            "grade-tests": ["suite"], "corpus": [str(Path(__file__).parent / "corpus")]}.get(verb, [])
