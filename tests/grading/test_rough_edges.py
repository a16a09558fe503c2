"""The rough edges of issue 50 item 8, each with a test: ``check --impl`` reads a student's
folder, a zip and a mistyped path as ``check --batch`` does (the same words, one line);
missing parent folders of an output are made; merge-conflict markers are named as such.
(The lock per class run and the state file's place: tests/grading/test_batch_class_data.py.)
"""

from __future__ import annotations

import io
import shutil
import zipfile

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.autograder.locate import SubmissionError, conflict_marker, impl_target, syntax_problem
from harness.grading.batch import feedback
from tests.support.helpers import CANDIDATES, tree_digest

SPEC_PATH = ("python", "tinyllm", "infer", "constrain.py")
CONFLICTED = "def regex_to_dfa(pattern):\n<<<<<<< HEAD\n    return 1\n=======\n    return 2\n>>>>>>> fix-numbering\n"


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_a_mistyped_impl_path_is_one_line_naming_what_is_close(tmp_path):
    (tmp_path / "constrain.py").write_text("x = 1\n")
    code, out, err = cli("check", "--impl", str(tmp_path / "constrian.py"))
    assert code == ExitCode.USAGE and out == "" and err.count("\n") == 1, out + err
    assert f"no such .py file or folder: {tmp_path / 'constrian.py'}; did you mean {tmp_path / 'constrain.py'}?" in err
    code, out, err = cli("check", "--impl", str(tmp_path / "nowhere" / "c.py"))
    assert code == ExitCode.USAGE and err.count("\n") == 1 and "does not exist" in err


def test_a_student_folder_is_found_as_the_batch_finds_it(tmp_path):
    student = tmp_path / "chen"
    (student / "python" / "tinyllm" / "infer").mkdir(parents=True)
    (student.joinpath(*SPEC_PATH)).write_text("x = 1\n")
    assert impl_target(str(student)) == str(student.joinpath(*SPEC_PATH))
    assert impl_target("oracles.automaton") == "oracles.automaton"          # a module name: as given
    assert impl_target(str(CANDIDATES / "wrong_numbering.py")) == str(CANDIDATES / "wrong_numbering.py")


def test_a_zip_gets_the_batchs_words_in_one_line(tmp_path):
    archive = tmp_path / "upload.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("/".join(SPEC_PATH), "x = 1\n")
    code, out, err = cli("check", "--impl", str(archive))
    assert code == ExitCode.USAGE and err.count("\n") == 1
    assert "is an archive (it holds python/tinyllm/infer/constrain.py): upload the files themselves" in err
    batch_folder = tmp_path / "class" / "quinn"
    batch_folder.mkdir(parents=True)
    shutil.copy(archive, batch_folder / "upload.zip")
    with pytest.raises(SubmissionError, match="is an archive \\(it holds python/tinyllm/infer/constrain.py\\)"):
        impl_target(str(batch_folder))


def test_a_folder_without_a_module_says_what_it_holds(tmp_path):
    (tmp_path / "notes.txt").write_text("hi")
    code, _, err = cli("check", "--impl", str(tmp_path))
    assert code == ExitCode.USAGE and err.count("\n") == 1 and "no constrain.py in the submission" in err


def test_merge_conflict_markers_are_named_not_called_invalid_syntax(tmp_path):
    path = tmp_path / "constrain.py"
    path.write_text(CONFLICTED)
    assert conflict_marker(CONFLICTED.encode()) == 2
    problem = syntax_problem(path)
    assert problem.startswith("SyntaxError in constrain.py line 2: merge conflict markers left in the file")
    words = feedback.load_words({"verdict": "syntax error", "problem": problem})
    assert words.startswith("syntax error at constrain.py:2: merge conflict markers") and "invalid syntax" not in words
    code, out, err = cli("check", "--impl", str(path))
    assert code == ExitCode.USAGE and err.count("\n") == 1 and "merge conflict markers" in err
    ok = tmp_path / "fine.py"
    ok.write_text('BANNER = """\n=======\n"""\n')   # a marker inside valid code is not a conflict
    assert syntax_problem(ok) is None


@pytest.mark.e2e
def test_missing_parent_folders_of_the_outputs_are_made(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ann.py").write_text(CONFLICTED)
    before = tree_digest()
    code, out, err = cli("check", "--batch", str(folder), "--feedback", str(tmp_path / "out" / "fb"),
                         "--csv", str(tmp_path / "reports" / "week 9" / "grades.csv"))
    assert code == ExitCode.OK, err
    assert (tmp_path / "out" / "fb" / "ann.md").is_file() and (tmp_path / "reports" / "week 9" / "grades.csv").is_file()
    text = (tmp_path / "out" / "fb" / "ann.md").read_text()
    assert "merge conflict markers" in text and "invalid syntax" not in text
    assert tree_digest() == before


def test_an_output_under_a_file_is_still_a_one_line_usage_error(tmp_path):
    (tmp_path / "file").write_text("x")
    code, out, err = cli("check", "--batch", str(tmp_path), "--csv", str(tmp_path / "file" / "sub" / "g.csv"))
    assert code == ExitCode.USAGE and err.count("\n") == 1 and "is not a folder we may write to" in err, err


# --------------------------------------------------------------------------- help texts


def leaf_parsers():
    """(command words, parser) of every verb and verb action (``golden write``, ...)."""
    import argparse

    from harness.cli import build_parser

    out = []

    def walk(parser, words):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs and len(words) > 1:
            out.append((words, parser))
        for action in subs:
            for name, sub in action.choices.items():
                walk(sub, [*words, name])
    walk(build_parser(), ["constrain-harness"])
    return out


def test_every_verbs_help_has_an_example_and_one_placeholder_vocabulary():
    from harness.cli import PLACEHOLDER_WORDS

    leaves = leaf_parsers()
    assert len(leaves) >= 15
    seen: dict[str, set[str]] = {}
    for words, parser in leaves:
        text = parser.format_help()
        command = " ".join(words)
        assert f"examples:\n  {command}" in text, command
        for action in parser._actions:
            if not action.option_strings or action.nargs == 0 or action.choices is not None:
                continue
            shown = action.metavar or action.dest.upper()
            assert shown in PLACEHOLDER_WORDS, f"{command} {action.option_strings[-1]} {shown}"
            seen.setdefault(action.dest, set()).add(shown)
    assert {dest: shown for dest, shown in seen.items() if len(shown) > 1} == {}   # one word per value, every verb
    assert seen["timeout"] == {"S"} and seen["seed"] == {"N"} and seen["jobs"] == {"N"}


# --------------------------------------------------------------------------- plain words for students


JARGON_RECORD = {
    "student": "ann", "verdict": "failed", "passed": 14, "total": 16,
    "failed_tests": ["test_hand_example", "test_vocab_bytes"],
    "statuses": {"test_hand_example": "failed", "test_vocab_bytes": "not run"},
    "tests": [{"name": "test_hand_example", "status": "failed",
               "reason": "the candidate raised ValueError: the wall says no", "details":
               "E   ValueError: the candidate's tier\nE   NameError: name 'candidate' is not defined", "pitfalls": ""},
              {"name": "test_vocab_bytes", "status": "not run",
               "reason": "not run: the candidate process died (wall-clock backstop 600 s, tier default)",
               "details": "", "pitfalls": ""}],
    "load": {"status": "ok", "reason": "", "problems": [], "notes": []},
    "notes": ["the twin agreed; wheats and chaffs were not used"], "decisions": [], "decision_count": 0,
    "problem": "", "module": "constrain.py", "seconds": 1.0}


def jargon_in(text: str) -> list[str]:
    """The jargon words of ``text`` outside quotes and identifiers (what a student reads as prose)."""
    import re

    from harness.grading.autograder.glossary import JARGON

    return [m.group() for m in re.finditer(r"(?<![\w'\"`.])(" + "|".join(JARGON) + r")(?![\w'\"`(=])", text,
                                           re.IGNORECASE)]


@pytest.mark.parametrize("hints", ["none", "pitfall", "full"])
def test_a_students_feedback_file_has_no_jargon(hints):
    text = feedback.markdown(JARGON_RECORD, hints)
    assert jargon_in(text) == [], text
    if hints != "none":
        assert "your code raised ValueError" in text
    if hints == "full":
        assert "name 'candidate' is not defined" in text   # the student's own words, quoted, are kept


@pytest.mark.parametrize("hints", ["none", "pitfall", "full"])
def test_the_gradescope_results_a_student_reads_have_no_jargon(hints):
    from harness.grading.autograder.gradescope import to_results
    from harness.grading.autograder.grading import Grade, TestOutcome

    tests = tuple(TestOutcome(t["name"], t["status"], t["reason"], t["details"], notes=("tier default",))
                  for t in JARGON_RECORD["tests"])
    grade = Grade("failed", tests, header="policy: tier default, 60 CPU s per test (wall backstop 600 s)",
                  notes=("the twin agreed",))
    results = to_results(grade, 16, hints)
    texts = [results["output"], *(t["output"] for t in results["tests"])]
    assert all(jargon_in(text) == [] for text in texts), texts
