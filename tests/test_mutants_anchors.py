"""s01-s27 anchored on syntax: the anchors make the same mutants as the text edits, and
reformatting the reference (ast.unparse, comments, blank lines) never makes them stale."""

from __future__ import annotations

import ast
import random
import shutil
from pathlib import Path

import pytest

import oracles.automaton as reference
from harness.mutants.anchors import ANCHORS, Anchor, AnchorDoesNotApply, apply_anchor, find
from harness.mutants.apply import REFERENCE_DIR, PatchDoesNotApply, load, materialize
from harness.mutants.catalogue import BY_ID, MUTANTS
from harness.mutants.runner import Outcome, run_mutant

CATALOGUE_IDS = [m.id for m in MUTANTS if m.id.startswith("s")]


def test_every_catalogue_mutant_has_anchors_and_no_port_mutant_does():
    assert sorted(ANCHORS) == CATALOGUE_IDS
    for anchors in ANCHORS.values():
        for anchor in anchors:
            assert (REFERENCE_DIR / anchor.file).exists() and anchor.node.strip() and anchor.new.strip()


@pytest.mark.parametrize("mutant_id", CATALOGUE_IDS)
def test_anchors_change_the_example_as_the_text_edits_do(mutant_id, tmp_path):
    mutant = BY_ID[mutant_id]
    anchored = load(materialize(mutant, tmp_path / "a"))
    edited = load(materialize(mutant, tmp_path / "e", edits=mutant.edits))
    outcome = [_example(mutant, m) for m in (reference, anchored, edited)]
    assert outcome[1] == outcome[2] != outcome[0], f"{mutant_id}: reference, anchors, text edits: {outcome}"


def _example(mutant, module):
    try:
        return mutant.example(module)
    except Exception as exc:  # a changed behaviour may be an exception
        return f"raised {type(exc).__name__}"


# --- matching ------------------------------------------------------------------------------

def test_wildcards_and_scopes():
    source = ("X = 1\n"
              "def f(a):\n    if a:\n        raise ValueError('x', a)\n    return a\n"
              "class C:\n    def f(self):\n        return 1\n")
    assert isinstance(find(source, Anchor("m.py", "f", "if a:\n    raise ValueError(...)", "pass")), ast.If)
    assert find(source, Anchor("m.py", "C.f", "return ...", "")).lineno == 8
    assert apply_anchor(source, Anchor("m.py", "<module>", "X = 1", "X = 2")).startswith("X = 2\n")
    with pytest.raises(AnchorDoesNotApply, match="matches 0 nodes"):
        find(source, Anchor("m.py", "f", "return a + 1", ""))
    with pytest.raises(AnchorDoesNotApply, match="matches 2 nodes"):
        find("def g(a):\n    a = 1\n    a = 1\n", Anchor("m.py", "g", "a = 1", ""))
    with pytest.raises(AnchorDoesNotApply, match="scope"):
        find(source, Anchor("m.py", "missing", "X = 1", ""))


def test_a_multi_line_statement_replacement_keeps_the_indentation():
    source = "def f(s):\n    if s:\n        live = s != 0\n    return live\n"
    out = apply_anchor(source, Anchor("m.py", "f", "live = s != 0", "live = s != 0\nbefore = s"))
    assert out == "def f(s):\n    if s:\n        live = s != 0\n        before = s\n    return live\n"


def test_a_stale_anchor_is_reported_as_a_patch_that_no_longer_applies(tmp_path, monkeypatch):
    monkeypatch.setitem(ANCHORS, "s01", (Anchor("parser.py", "<module>", "DOT = 12345", "DOT = 0"),))
    with pytest.raises(PatchDoesNotApply, match="s01"):
        materialize(BY_ID["s01"], tmp_path)
    assert run_mutant(BY_ID["s01"], tmp_path).outcome is Outcome.STALE


# --- reformatting ----------------------------------------------------------------------------

def reformat(source: str, seed: int) -> str:
    """The same module, written differently: ``ast.unparse`` (no comments, other quotes and
    parentheses), then a comment and a blank line before a seeded third of the statements."""
    text = ast.unparse(ast.parse(source))
    starts = {node.lineno for node in ast.walk(ast.parse(text)) if isinstance(node, ast.stmt)}
    rng = random.Random(seed)
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if number in starts and rng.random() < 0.33:
            indent = line[:len(line) - len(line.lstrip())]
            out += ["", f"{indent}# reformatted: a comment the anchors must ignore"]
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def reformatted(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("reformatted") / "automaton"
    shutil.copytree(REFERENCE_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    for i, path in enumerate(sorted(target.glob("*.py"))):
        original = path.read_text(encoding="utf-8")
        path.write_text(reformat(original, seed=i), encoding="utf-8")
        assert ast.dump(ast.parse(path.read_text(encoding="utf-8"))) == ast.dump(ast.parse(original))
    return target


def test_the_reformatted_reference_is_really_different(reformatted):
    parser = (reformatted / "parser.py").read_text(encoding="utf-8")
    assert parser != (REFERENCE_DIR / "parser.py").read_text(encoding="utf-8")
    assert "DOT = FULL_MASK & ~NEWLINE" not in parser or "reformatted" in parser
    assert not any(edit.old in (reformatted / edit.file).read_text(encoding="utf-8")
                   for m in MUTANTS if m.id in ("s10", "s13", "s15", "s25") for edit in m.edits), \
        "the text edits should no longer apply to the reformatted copy (else the test proves nothing)"


@pytest.mark.parametrize("mutant_id", CATALOGUE_IDS)
def test_anchors_apply_to_the_reformatted_reference_and_make_the_same_program(mutant_id, reformatted, tmp_path):
    mutant = BY_ID[mutant_id]
    on_reformatted = materialize(mutant, tmp_path / "r", reference=reformatted)
    on_original = materialize(mutant, tmp_path / "o")
    for anchor in ANCHORS[mutant_id]:
        a = ast.parse((on_reformatted / anchor.file).read_text(encoding="utf-8"))
        b = ast.parse((on_original / anchor.file).read_text(encoding="utf-8"))
        assert ast.dump(a) == ast.dump(b), f"{mutant_id}: {anchor.file} differs after reformatting"
    assert _example(mutant, load(on_reformatted)) == _example(mutant, load(on_original))


def _killed_on_reformatted(mutant_id: str, reformatted: Path, root: Path, monkeypatch) -> None:
    import harness.mutants.apply as apply

    monkeypatch.setattr(apply, "REFERENCE_DIR", reformatted)  # run_mutant copies from here
    result = run_mutant(BY_ID[mutant_id], root)
    assert result.outcome is Outcome.KILLED and result.by_expected, result


# the same program as on the original reference (above), so the full catalogue run
# (tests/test_mutants.py) proves them killed; three run here, all 27 under -m slow
@pytest.mark.parametrize("mutant_id", ["s05", "s14", "s25"])
def test_anchored_mutants_of_the_reformatted_reference_are_killed(mutant_id, reformatted, tmp_path, monkeypatch):
    _killed_on_reformatted(mutant_id, reformatted, tmp_path, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("mutant_id", CATALOGUE_IDS)
def test_every_anchored_mutant_of_the_reformatted_reference_is_killed(mutant_id, reformatted, tmp_path, monkeypatch):
    _killed_on_reformatted(mutant_id, reformatted, tmp_path, monkeypatch)
