"""Words (issue 51, item 5): the lab text is "the spec"; "seed" means a random seed only.

``scripts/spec_words.py`` rewrites the phrases where "seed" meant the lab text; these tests
hold the tree to it (a phrase merged back from a branch written before the script fails
here: re-run the script), check the script's own promises on examples read by hand (the
spec's phrases change, the random seed's do not, a second run changes nothing, no line
grows), and read every verb's ``--help`` as a student or grader sees it.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import VERBS, build_parser

ROOT = Path(__file__).resolve().parent.parent


def _load_script():
    spec = importlib.util.spec_from_file_location("spec_words", ROOT / "scripts" / "spec_words.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WORDS = _load_script()

# Examples read by hand: (line, the next line, what the script must make of the line)
SPEC_MEANING = [
    ("hint: the seed's pitfall 3.", "", "hint: the spec's pitfall 3."),
    ("# The seed gives Constraint no constructor", "", "# The spec gives Constraint no constructor"),
    ("(not graded: the seed allows your reading)", "", "(not graded: the spec allows your reading)"),
    ("Python syntax the seed does not list", "", "Python syntax the spec does not list"),
    ('"Wrong (seed pitfall 4, mutant s12)', "", '"Wrong (spec pitfall 4, mutant s12)'),
    ("tools of seed 002 section 3", "", "tools of spec 002 section 3"),
    ("a gap outside the seed: no class", "", "a gap outside the spec: no class"),
    ("vocab, eos = seed_vocabulary()", "", "vocab, eos = spec_vocabulary()"),
    ("cases += mask_cases(SEED_PATTERN)", "", "cases += mask_cases(SPEC_PATTERN)"),
    ("isinstance(obj, shapes.SeedTokenizer)", "", "isinstance(obj, shapes.SpecTokenizer)"),
    ("def test_hand_example_is_the_seeds_section_3(docs):", "", "def test_hand_example_is_the_specs_section_3(docs):"),
    ("which the seed", "does not name (strict tier).", "which the spec"),
    ("Where the seed is", "silent, the contract decides", "Where the spec is"),
    ("the (not graded: the seed \"", '   "allows your reading)"', "the (not graded: the spec \""),
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
    ("the seed", "of numpy's default_rng"),
    ("SEED_BITS = 31; MAX_SEED; hypothesis_seed; seeded_rng(seed)", ""),
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


def _findings(prefixes: tuple[str, ...]) -> list[str]:
    found = []
    for path in WORDS.tracked_files(ROOT):
        name = path.relative_to(ROOT).as_posix()
        if name.startswith(prefixes):
            found += [f"{name}:{n}: {old.strip()}" for n, old, _new in WORDS.findings(path, ROOT)]
    return found


def test_no_spec_phrase_says_seed_in_the_product_or_its_docs():
    """harness/, oracles/, strategies/, facts/, golden/'s code, docs/ and the README: run
    ``python scripts/spec_words.py`` if this fails after a merge."""
    found = _findings(("harness/", "oracles/", "strategies/", "facts/", "golden/", "docs/", "README.md"))
    assert not found, "\n".join(found[:40])


def test_no_spec_phrase_says_seed_in_the_tests():
    found = _findings(("tests/", ".ci/", "pyproject.toml", "mkdocs.yml"))
    assert not found, "\n".join(found[:40])


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


def test_the_script_checks_the_tree_clean():
    """``--check`` exits 0 on the tree (the state the tests above assert), in its own process."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "spec_words.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 file(s) would change" in done.stderr
