"""Words (issue 51, item 5): the lab text is "the spec"; "seed" means a random seed only.

``scripts/spec_words.py`` rewrites the phrases where "seed" meant the lab text; these tests
hold the tree to it (a phrase merged back from a branch written before the script fails
here: re-run the script), check the script's own promises on examples read by hand (the
spec's phrases change, the random seed's do not, a second run changes nothing, no line
grows), and read every verb's ``--help`` as a student or grader sees it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.cli import VERBS, build_parser
from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parents[1].parent


WORDS = load_script("spec_words")

# Examples read by hand: (line, the next line, what the script must make of the line)
SPEC_MEANING = [
    ("hint: the seed's pitfall 3.", "", "hint: the spec's pitfall 3."),
    ("# The seed gives Constraint no constructor", "", "# The spec gives Constraint no constructor"),
    ("(not graded: the seed allows your reading)", "", "(not graded: the spec allows your reading)"),
    ("Python syntax the seed does not list", "", "Python syntax the spec does not list"),
    ('"Wrong (seed pitfall 4, mutant s12)', "", '"Wrong (spec pitfall 4, mutant s12)'),
    ("tools of seed 002 section 3", "", "tools of spec 002 section 3"),
    ("the port's mutant sNN (seed `002_...`, section 5)", "", "the port's mutant sNN (spec `002_...`, section 5)"),
    ("a gap outside the seed: no class", "", "a gap outside the spec: no class"),
    ("vocab, eos = seed_vocabulary()", "", "vocab, eos = spec_vocabulary()"),
    ("cases += mask_cases(SEED_PATTERN)", "", "cases += mask_cases(SPEC_PATTERN)"),
    ("isinstance(obj, shapes.SeedTokenizer)", "", "isinstance(obj, shapes.SpecTokenizer)"),
    ("def test_hand_example_is_the_seeds_section_3(docs):", "", "def test_hand_example_is_the_specs_section_3(docs):"),
    ("which the seed", "does not name (strict tier).", "which the spec"),
    ("Where the seed is", "silent, the contract decides", "Where the spec is"),
    ("the (not graded: the seed \"", '   "allows your reading)"', "the (not graded: the spec \""),
    ('# the seed: "an all-false mask is an error"', "", '# the spec: "an all-false mask is an error"'),
]
RANDOM_MEANING = [
    ("every random choice comes from one run seed printed in the header", ""),
    ("check --seed N replays it; course_seed(secret, upload)", ""),
    ("a kill that depends on the seed would be a verdict a student could buy back", ""),
    ("Oracles: the seed's definition (harness.suite.seeding: stream constant XOR run seed)", ""),
    ("Seconds per token of each seed's answer", ""),
    ("def test_the_one_state_mistake_dies_under_the_seeds_the_draws_miss():", ""),
    ("def test_the_seed_is_in_the_header_and_every_report(tmp_path):", ""),
    ("and from the seed under another secret", ""),
    ('"""A short piece of code: each seed writes a different function body."""', ""),
    ("the seed is", "in each record of the class JSON"),
    ("``output`` starting with the seed and the", "policy line"),
    ("**Where a kill did depend on the seed: a generated mutant.**", ""),
    ("the seed", "of numpy's default_rng"),
    ("SEED_BITS = 31; MAX_SEED; hypothesis_seed; seeded_rng(seed)", ""),
    ("  the time budget, the seed: ``visibility.student_header``; the confinement", ""),
]


@pytest.mark.parametrize(("line", "after", "want"), SPEC_MEANING)
def test_the_spec_s_phrases_become_spec(line, after, want):
    assert WORDS.rewrite_line(line, after) == want


@pytest.mark.parametrize(("line", "after"), RANDOM_MEANING)
def test_a_random_seed_stays_a_seed(line, after):
    assert WORDS.rewrite_line(line, after) == line


def test_a_second_run_changes_nothing_and_no_line_grows():
    text = "\n".join(f"{line}\n{after}" for line, after, _ in SPEC_MEANING)
    once = WORDS.rewrite_text(text)
    assert WORDS.rewrite_text(once) == once
    assert [len(line) for line in once.split("\n")] == [len(line) for line in text.split("\n")]


@pytest.fixture(scope="module")
def tree_findings() -> dict[str, list[str]]:
    """Every line of the tree the script would change, by file (read once for the module)."""
    found = {}
    for path in WORDS.tracked_files(ROOT):
        lines = [f"{n}: {old.strip()}" for n, old, _new in WORDS.findings(path, ROOT)]
        if lines:
            found[path.relative_to(ROOT).as_posix()] = lines
    return found


def _under(found: dict[str, list[str]], prefixes: tuple[str, ...]) -> list[str]:
    return [f"{name}:{line}" for name, lines in found.items() if name.startswith(prefixes) for line in lines]


@pytest.mark.e2e  # tree_findings runs git ls-files
def test_no_spec_phrase_says_seed_in_the_product_or_its_docs(tree_findings):
    """harness/, oracles/, strategies/, facts/, golden/'s code, docs/ and the README: run
    ``python scripts/spec_words.py`` if this fails after a merge."""
    found = _under(tree_findings, ("harness/", "oracles/", "strategies/", "facts/", "golden/", "docs/", "README.md"))
    assert not found, "\n".join(found[:40])


@pytest.mark.e2e  # tree_findings runs git ls-files
def test_no_spec_phrase_says_seed_in_the_tests(tree_findings):
    found = _under(tree_findings, ("tests/", ".ci/", "pyproject.toml", "mkdocs.yml"))
    assert not found, "\n".join(found[:40])


@pytest.mark.e2e  # runs git or the script in a child
def test_the_golden_files_and_the_spec_folder_are_left_alone():
    names = {path.relative_to(ROOT).as_posix() for path in WORDS.tracked_files(ROOT)}
    assert "golden/constrain_golden.json" not in names and "golden/tools_golden.json" not in names
    assert "harness/suite/tiers.py" in names and "README.md" in names and ".ci/contract-types" in names


def test_every_verb_s_help_says_spec():
    """What a grader or student reads of ``--help``: no spec phrase says "seed"."""
    parser = build_parser()
    verbs = parser._subparsers._group_actions[0].choices
    assert set(VERBS) <= set(verbs)
    for name in VERBS:
        help_text = verbs[name].format_help()
        lines = help_text.split("\n")
        changed = [line for i, line in enumerate(lines)
                   if WORDS.rewrite_line(line, lines[i + 1] if i + 1 < len(lines) else "") != line]
        assert not changed, (name, changed)
    assert "the spec is silent" in " ".join(verbs["check"].format_help().split())


@pytest.mark.e2e  # runs git or the script in a child
def test_the_script_rewrites_a_checkout_once_and_check_says_so(tmp_path, capsys):
    """The command line on a small git checkout: --check lists and exits 1 without writing,
    a run rewrites (the golden JSON untouched), a second --check exits 0."""
    (tmp_path / "golden").mkdir()
    lines = "x = 1  # the seed's pitfall 3\nrun seed 7 (--seed 7)\n"
    (tmp_path / "notes.py").write_text(lines)
    (tmp_path / "golden" / "g.json").write_text('{"notice": "the seed\'s language"}\n')
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    assert WORDS.main(["--check", "--root", str(tmp_path)]) == 1
    assert (tmp_path / "notes.py").read_text() == lines
    assert "notes.py:1: x = 1  # the seed's pitfall 3" in capsys.readouterr().out
    assert WORDS.main(["--root", str(tmp_path)]) == 0
    assert (tmp_path / "notes.py").read_text() == "x = 1  # the spec's pitfall 3\nrun seed 7 (--seed 7)\n"
    assert (tmp_path / "golden" / "g.json").read_text() == '{"notice": "the seed\'s language"}\n'
    assert WORDS.main(["--check", "--root", str(tmp_path)]) == 0


def test_the_old_public_names_still_work(tmp_path):
    """Files written before the words changed keep working: a student suite importing the
    tokenizer under its old name, a wheat declaring its readings under the old name."""
    from harness.grading.gradetests.readings import declared_readings
    from harness.sandbox import shapes

    assert shapes.SeedTokenizer is shapes.SpecTokenizer  # words: the old name, kept
    old, new = tmp_path / "old.py", tmp_path / "new.py"
    old.write_text('SEED_READINGS = {"python_only_syntax_refused": "python_meaning"}\n')  # words: the old name, kept
    new.write_text('SPEC_READINGS = {"python_only_syntax_refused": "python_meaning"}\n')
    assert declared_readings(old) == declared_readings(new) != declared_readings(tmp_path / "none.py")
