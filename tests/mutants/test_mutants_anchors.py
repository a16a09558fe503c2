"""Every catalogue mutant (s01-s27, the port's l10_9:s01-s16) is anchored on syntax, an edit
two mutants share is one definition, and reformatting the reference (ast.unparse, comments,
blank lines) never makes an anchor stale: on reformatted copies of oracles/automaton and
oracles/tools each mutant still applies, makes the same program, changes its example the
same way and (a few here, all under -m slow) is still killed by its expected killers."""

from __future__ import annotations

import ast
import builtins
import random
import shutil
from pathlib import Path

import pytest

import oracles.automaton as reference
import oracles.tools as tools_reference
from harness.mutants import apply
from harness.mutants.anchors import Anchor, Edit, EditDoesNotApply, apply_edit, find, locate
from harness.mutants.apply import PatchDoesNotApply, load, materialize, reference_dir
from harness.mutants.catalogue import BY_ID, MUTANTS, TOOLS_REPLAY, Mutant
from harness.mutants.runner import Outcome, run_mutant
from tests.support.helpers import without_oracle_memo

IDS = [m.id for m in MUTANTS]
ORACLES = apply.REFERENCE_DIR.parent


def test_every_mutant_of_the_catalogue_is_anchored_in_its_own_package():
    assert len(IDS) == 27 + 17  # L8.7's s01-s27, the port's l10_9:s01-s17
    for mutant in MUTANTS:
        assert mutant.edits and all(isinstance(edit, Anchor) for edit in mutant.edits), mutant.id
        for anchor in mutant.edits:
            assert (reference_dir(mutant) / anchor.file).exists() and anchor.node.strip() and anchor.new.strip()
    assert {reference_dir(m).name for m in MUTANTS if m.kind == TOOLS_REPLAY} == {"tools"}
    assert {reference_dir(m).name for m in MUTANTS if m.kind != TOOLS_REPLAY} == {"automaton"}


def test_an_edit_two_mutants_share_is_one_definition():
    """Equal anchors are one object (issue 17: s18/p05 and s22/p04 were the same edit twice)."""
    first: dict[tuple, Anchor] = {}
    users: dict[int, set[str]] = {}
    for mutant in MUTANTS:
        for anchor in mutant.edits:
            key = (reference_dir(mutant), anchor)
            assert first.setdefault(key, anchor) is anchor, f"{mutant.id}: {anchor} is written twice"
            users.setdefault(id(anchor), set()).add(mutant.id)
    shared = sorted(sorted(ids) for ids in users.values() if len(ids) > 1)
    assert shared == [["l10_9:s04", "s22"], ["l10_9:s05", "s18"], ["l10_9:s10", "s07"], ["l10_9:s17", "s27"]]
    for port, own in (("l10_9:s04", "s22"), ("l10_9:s05", "s18"), ("l10_9:s10", "s07"), ("l10_9:s17", "s27")):
        assert BY_ID[port].killers != BY_ID[own].killers and BY_ID[port].pitfall and BY_ID[own].pitfall


def _error_class_names() -> set[str]:
    names = {n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
             and issubclass(getattr(builtins, n), BaseException)}
    for package in (reference, tools_reference):
        names |= {n for n in dir(package) if isinstance(getattr(package, n), type)
                  and issubclass(getattr(package, n), BaseException)}
    return names


def test_no_anchor_names_an_error_class():
    """Anchors say ``raise ...`` instead, so renaming an error class never makes one stale."""
    errors = _error_class_names()
    assert {"ValueError", "ToolError"} <= errors
    for mutant in MUTANTS:
        for anchor in mutant.edits:
            named = {n.id for n in ast.walk(ast.parse(anchor.node)) if isinstance(n, ast.Name)}
            assert not named & errors, f"{mutant.id}: {anchor.node!r} names {named & errors}"


# --- matching ------------------------------------------------------------------------------

SOURCE = ("X = 1\n"
          "def f(a):\n    if a:\n        raise ValueError('x', a)\n    return a\n"
          "class C:\n    def f(self):\n        return 1\n")


def test_wildcards_and_scopes():
    assert isinstance(find(SOURCE, Anchor("m.py", "f", "if a:\n    raise ValueError(...)", "pass")), ast.If)
    assert isinstance(find(SOURCE, Anchor("m.py", "f", "if a:\n    raise ...", "pass")), ast.If)
    assert isinstance(find(SOURCE, Anchor("m.py", "f", "raise ...('x', a)", "pass")), ast.Raise)
    assert find(SOURCE, Anchor("m.py", "C.f", "return ...", "")).lineno == 8
    assert apply_edit(SOURCE, Anchor("m.py", "<module>", "X = 1", "X = 2")).startswith("X = 2\n")
    with pytest.raises(EditDoesNotApply, match="matches 0 nodes"):
        find(SOURCE, Anchor("m.py", "f", "return a + 1", ""))
    with pytest.raises(EditDoesNotApply, match="matches 0 nodes"):  # "raise ..." is a raise without "from"
        find("def g(a):\n    raise ValueError(a) from None\n", Anchor("m.py", "g", "raise ...", ""))
    with pytest.raises(EditDoesNotApply, match="matches 0 nodes"):  # a constant's type counts: 1 is not True
        find("def g():\n    return True, 1.0\n", Anchor("m.py", "g", "return 1, 1", ""))
    with pytest.raises(EditDoesNotApply, match="matches 2 nodes"):
        find("def g(a):\n    a = 1\n    a = 1\n", Anchor("m.py", "g", "a = 1", ""))
    with pytest.raises(EditDoesNotApply, match="scope"):
        find(SOURCE, Anchor("m.py", "missing", "X = 1", ""))


def test_a_multi_line_statement_replacement_keeps_the_indentation():
    source = "def f(s):\n    if s:\n        live = s != 0\n    return live\n"
    out = apply_edit(source, Anchor("m.py", "f", "live = s != 0", "live = s != 0\nbefore = s"))
    assert out == "def f(s):\n    if s:\n        live = s != 0\n        before = s\n    return live\n"


def test_a_text_edit_applies_only_where_its_text_occurs_once():
    assert apply_edit("a = 1\nb = 2\n", Edit("m.py", "b = 2", "b = 3")) == "a = 1\nb = 3\n"
    with pytest.raises(EditDoesNotApply, match="occurs 2 times"):
        apply_edit("a = 1\na = 1\n", Edit("m.py", "a = 1", "a = 2"))


def test_locate_gives_the_nodes_place_for_reports():
    assert locate(SOURCE, Anchor("m.py", "f", "raise ...", "")) == ((4, 9), (4, 33))
    assert locate(SOURCE, Edit("m.py", "return a", "")) == ((5, 5), (5, 13))
    assert locate("é = 1\nx = 'é' + y\n", Anchor("m.py", "<module>", "y", "")) == ((2, 11), (2, 12))  # characters
    assert locate(SOURCE, Anchor("m.py", "f", "return 12345", "")) == ((1, 1), (1, 1))  # stale: the file's start


@pytest.mark.e2e
def test_a_stale_anchor_is_reported_as_a_patch_that_no_longer_applies(tmp_path):
    stale = Mutant("sXX", "parser", "x", ("test_hand_example",),
                   (Anchor("parser.py", "<module>", "DOT = 12345", "DOT = 0"),), lambda m: None)
    with pytest.raises(PatchDoesNotApply, match="sXX: parser.py: <module>: 'DOT = 12345' matches 0 nodes"):
        materialize(stale, tmp_path)
    assert run_mutant(stale, tmp_path).outcome is Outcome.STALE


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
    """Reformatted copies of oracles/automaton and oracles/tools, side by side."""
    root = tmp_path_factory.mktemp("reformatted")
    for package in ("automaton", "tools"):
        target = root / package
        shutil.copytree(ORACLES / package, target, ignore=shutil.ignore_patterns("__pycache__"))
        for i, path in enumerate(sorted(target.glob("*.py"))):
            original = path.read_text(encoding="utf-8")
            path.write_text(reformat(original, seed=i), encoding="utf-8")
            assert ast.dump(ast.parse(path.read_text(encoding="utf-8"))) == ast.dump(ast.parse(original))
    return root


def _reformatted_dir(mutant: Mutant, reformatted: Path) -> Path:
    return reformatted / reference_dir(mutant).name


def test_the_reformatted_reference_is_really_different(reformatted):
    """For many anchors (those with quotes, comments or line breaks), the node's text as the
    reference writes it is gone from the reformatted copy: a text edit there would no longer
    apply (else the test proves nothing)."""
    moved = set()
    for mutant in MUTANTS:
        for anchor in mutant.edits:
            original = (reference_dir(mutant) / anchor.file).read_text(encoding="utf-8")
            text = ast.get_source_segment(original, find(original, anchor))
            if text not in (_reformatted_dir(mutant, reformatted) / anchor.file).read_text(encoding="utf-8"):
                moved.add(mutant.id)
    assert {"s10", "s15", "s25", "l10_9:s04", "l10_9:s08", "l10_9:s12", "l10_9:s16"} <= moved
    assert len(moved) >= len(MUTANTS) // 3, sorted(set(IDS) - moved)  # 22 of 43 on Python 3.11


def _example(mutant: Mutant, module):
    try:
        answer = mutant.example(module)
    except Exception as exc:  # a changed behaviour may be an exception
        return f"raised {type(exc).__name__}"
    return repr(answer) if mutant.kind == TOOLS_REPLAY else answer  # a copy's ToolCall is another class


@pytest.mark.parametrize("mutant_id", IDS)
def test_anchors_apply_to_the_reformatted_reference_and_make_the_same_program(mutant_id, reformatted, tmp_path):
    mutant = BY_ID[mutant_id]
    on_reformatted = materialize(mutant, tmp_path / "r", reference=_reformatted_dir(mutant, reformatted))
    on_original = materialize(mutant, tmp_path / "o")
    for anchor in mutant.edits:
        a = ast.parse((on_reformatted / anchor.file).read_text(encoding="utf-8"))
        b = ast.parse((on_original / anchor.file).read_text(encoding="utf-8"))
        assert ast.dump(a) == ast.dump(b), f"{mutant_id}: {anchor.file} differs after reformatting"
    before = _example(mutant, tools_reference if mutant.kind == TOOLS_REPLAY else reference)
    after = _example(mutant, load(on_original))
    assert _example(mutant, load(on_reformatted)) == after != before, (mutant_id, before, after)


def _killed_on_reformatted(mutant_id: str, reformatted: Path, root: Path, monkeypatch) -> None:
    monkeypatch.setattr(apply, "REFERENCE_DIR", reformatted / "automaton")  # run_mutant copies from here
    monkeypatch.setattr(apply, "TOOLS_REFERENCE_DIR", reformatted / "tools")
    without_oracle_memo(monkeypatch)   # one or two tests a mutant: its recording run was most of s14's 7.9 CPU s
    # up to its first kill, expected killers first: the whole run's verdict (killed, by an expected
    # test or not alike: tests/mutants/test_mutants.py::test_first_kill_gives_the_full_runs_verdicts)
    result = run_mutant(BY_ID[mutant_id], root, first_kill=True)
    assert result.outcome is Outcome.KILLED and result.by_expected, result
    copied = (root / BY_ID[mutant_id].package / BY_ID[mutant_id].edits[0].file).read_text(encoding="utf-8")
    assert "# reformatted" in copied  # the reformatted copy was the one mutated and run


# the same program as on the original reference (above), so the full catalogue run
# (tests/mutants/test_mutants.py) proves them killed; three here (two of L8.7's catalogue, one of
# the tools replay; each up to its first kill: ~3 CPU s in all), all 43 under -m slow
@pytest.mark.e2e
@pytest.mark.parametrize("mutant_id", ["s14", "s25", "l10_9:s15"])
def test_anchored_mutants_of_the_reformatted_reference_are_killed(mutant_id, reformatted, tmp_path, monkeypatch):
    _killed_on_reformatted(mutant_id, reformatted, tmp_path, monkeypatch)


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("mutant_id", IDS)
def test_every_anchored_mutant_of_the_reformatted_reference_is_killed(mutant_id, reformatted, tmp_path, monkeypatch):
    _killed_on_reformatted(mutant_id, reformatted, tmp_path, monkeypatch)
