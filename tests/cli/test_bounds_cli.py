"""Issue 16, the command line: every verb validates its arguments (exit 2, one line),
reads files defensively, exits non-zero when a requested output cannot be written,
and leaves no temporary folders behind."""

from __future__ import annotations

import io
import json
import math
import random
from pathlib import Path

import pytest

from harness import cli
from harness.commands import args as cli_args
from harness.exitcodes import ExitCode

pytestmark = pytest.mark.boundary


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


BAD_ARGUMENTS = [
    ("check", "--timeout", "nan"), ("check", "--timeout", "inf"), ("check", "--timeout", "-1"),
    ("check", "--timeout", "1e400"), ("check", "--timeout", "0"), ("check", "--memory", "10"),
    ("check", "--memory", "9" * 30), ("check", "--memory", "1.5"), ("check", "--json", "/"),
    ("check", "--junit-xml", "/no/such/folder/x.xml"), ("check", "--golden-file", "/dev/zero"),
    ("check", "--golden-file", "/"),
    ("mutants", "--jobs", "0"), ("mutants", "--jobs", "-2"), ("mutants", "--jobs", "10000"),
    ("mutants", "--timeout", "nan"), ("mutants", "--html", "/"),
    ("compare", "--regexes", "-1"), ("compare", "--schemas", "1e9"), ("compare", "--seed", "x"),
    ("compare", "--shrink-limit", "99999999999"),
    ("golden", "write", "--dir", "/dev/null"), ("golden", "check", "--dir", "/no/such/folder"),
    ("golden", "replay", "--timeout", "inf"), ("golden", "replay", "--memory", "-5"),
    ("golden", "replay", "--dir", "/dev/null"),
    # issue 25: every number option finite and in range, checked when parsed; options that widen refused
    ("autograder", "build", "--points", "inf"), ("autograder", "build", "--points", "nan"),
    ("autograder", "build", "--points", "0"), ("autograder", "build", "--timeout", "inf"),
    ("autograder", "build", "--wall", "1e400"), ("autograder", "build", "--memory", "1e12"),
    ("autograder", "build", "--memory", str(1 << 40)), ("autograder", "build", "--out", "/"),
    ("autograder", "build", "--out", "/no/such/folder/a.zip"), ("autograder", "build", "--out", "/proc/a.zip"),
    ("autograder", "run", "--root", "/dev/null"), ("autograder", "frob"),
    ("grade-tests", "x", "--max-score", "nan"), ("grade-tests", "x", "--max-score", "inf"),
    ("grade-tests", "x", "--max-score", "-1"), ("grade-tests", "x", "--timeout", "inf"),
    ("grade-tests", "x", "--budget", "0"), ("grade-tests", "x", "--jobs", "0"), ("grade-tests", "x", "--seed", "-1"),
    ("mutants", "--only", ""), ("mutants", "--only", ","), ("mutants", "--sample", "5"), ("check", "--only", ""),
    ("mutants", "--seed", "3"), ("mutants", "--generated", "--sample", "0"), ("mutants", "--generated", "--module", ""),
    ("nosuchverb",), ("golden", "frob"), ("check", "--timeout"),
]


@pytest.mark.parametrize("argv", BAD_ARGUMENTS, ids=" ".join)
def test_bad_arguments_exit_2_with_one_line(argv, capsys):
    code, out, err = run(*argv)
    captured = capsys.readouterr()
    lines = (err + captured.err).strip().splitlines()
    assert code == ExitCode.USAGE, (code, out, lines)
    assert len(lines) == 1 and "error" in lines[0] and "Traceback" not in lines[0], lines


# --- the argument types, against their documented bounds ---------------------------------------

HOSTILE = ["nan", "-nan", "inf", "-inf", "1e309", "0", "-0", "-1", "1", "2", "1.5", "256", "2048", "64", "65",
           "1e-320", "9" * 40, "", " ", "0x10", "1_000", "true", "/", "/dev/zero", "/no/such", "."]
TYPES = {  # type -> the predicate every accepted value satisfies
    cli_args.seconds: lambda v: isinstance(v, float) and math.isfinite(v) and 0 < v <= cli_args.MAX_SECONDS,
    cli_args.megabytes(256): lambda v: isinstance(v, int) and 256 <= v <= cli_args.MAX_MEGABYTES,
    cli_args.jobs: lambda v: isinstance(v, int) and 1 <= v <= cli_args.MAX_JOBS,
    cli_args.count: lambda v: isinstance(v, int) and 0 <= v <= cli_args.MAX_COUNT,
    cli_args.seed: lambda v: isinstance(v, int) and 0 <= v <= cli_args.MAX_SEED,
    cli_args.input_file: lambda v: v.is_file(),
    cli_args.existing_folder: lambda v: v.is_dir(),
}


@pytest.mark.property
def test_argument_types_accept_only_what_they_document():
    """Seeded: hostile strings and random numbers through every type: a value within
    the documented bound, or ArgumentTypeError; never anything else."""
    import argparse

    rng = random.Random(16)
    texts = HOSTILE + [repr(rng.uniform(-1e6, 1e6)) for _ in range(50)] + [str(rng.randint(-10 ** 20, 10 ** 20))
                                                                            for _ in range(50)]
    for kind, holds in TYPES.items():
        for text in texts:
            try:
                value = kind(text)
            except argparse.ArgumentTypeError as exc:
                assert str(exc) and "\n" not in str(exc)
                continue
            assert holds(value), (kind, text, value)


@pytest.mark.property
def test_seeded_command_line_fuzz_never_raises(capsys):
    """Random argument vectors for every verb parse or exit 2 with one line; no traceback."""
    rng = random.Random(1616)
    flags = {"check": ["--timeout", "--memory", "--json", "--only", "--golden-file", "--impl"],
             "mutants": ["--jobs", "--timeout", "--json", "--only"],
             "compare": ["--regexes", "--schemas", "--seed", "--shrink-limit", "--md", "--peers"],
             "golden": ["write --dir", "check --dir", "replay --timeout", "replay --memory", "replay --file"],
             "bench": ["--quick", "stress"]}
    parser = cli.build_parser()
    for _ in range(400):
        verb = rng.choice(sorted(flags))
        argv = [verb]
        for _ in range(rng.randint(1, 3)):
            argv += rng.choice(flags[verb]).split() + [rng.choice(HOSTILE)]
        if verb == "golden" and argv[1] not in ("write", "check", "replay"):
            continue
        try:
            parser.parse_args(argv)
        except SystemExit as exc:
            lines = capsys.readouterr().err.strip().splitlines()
            assert exc.code == ExitCode.USAGE, argv
            assert len(lines) == 1 or lines[0].startswith("usage:"), (argv, lines)  # argparse's own usage lines


# --- files read defensively -------------------------------------------------------------------

@pytest.mark.parametrize("content", ["[" * 100_000 + "]" * 100_000, '{"const": ' + "7" * 100_000 + "}",
                                     "not json", b"\xff\xfe"])
def test_dfa_reads_bad_schema_files_with_one_line(tmp_path, content):
    path = tmp_path / "schema.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, _, err = run("dfa", "--schema", str(path))
    assert code == ExitCode.USAGE and len(err.strip().splitlines()) == 1 and str(path) in err, err


@pytest.mark.parametrize("path", ["/dev/zero", "/", "/no/such/file.json"])
def test_dfa_refuses_what_is_not_a_regular_file(path):
    code, _, err = run("dfa", "--schema", path)
    assert code == ExitCode.USAGE and "cannot read" in err and len(err.strip().splitlines()) == 1


def test_json_depth_is_checked_without_recursion():
    with pytest.raises(cli_args.InputError, match="deeper than"):
        cli_args.parse_json_text("[" * 1_000_000)
    assert cli_args.parse_json_text('{"a": "[[[[[[" }', max_depth=2) == {"a": "[[[[[["}  # strings are not nesting


# --- outputs that cannot be written: never exit 0 ---------------------------------------------------

def test_compare_refuses_a_report_path_it_cannot_write_before_the_work():
    code, _, err = run("compare", "--peers", "interegular", "--md", "/")
    assert code == ExitCode.USAGE and "cannot write the report" in err and len(err.strip().splitlines()) == 1


def test_check_exits_non_zero_when_a_report_cannot_be_written(tmp_path, monkeypatch):
    import harness.grading.check
    from harness.report import registry
    from tests.grading.test_check_reports import make_result

    monkeypatch.setattr(harness.grading.check, "run_check", lambda options: make_result({}))

    def refuse(path, data):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(registry, "write_file", refuse)
    code, _, err = run("check", "--json", str(tmp_path / "report.json"))
    assert code == ExitCode.USAGE and "cannot write" in err


@pytest.mark.e2e
def test_a_batch_exits_non_zero_when_a_report_cannot_be_written(tmp_path, monkeypatch):
    """The class is graded and its state saved; the report asked for is missing: exit 2."""
    from harness.report import registry

    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ann.py").write_text("def regex_to_dfa(pattern:\n")   # a syntax error: graded at once

    def refuse(path, data):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(registry, "write_file", refuse)
    code, out, err = run("check", "--batch", str(folder), "--jobs", "1", "--json", str(tmp_path / "class.json"))
    assert code == ExitCode.USAGE and "cannot write" in err, out + err
    assert "ann" in out and not (tmp_path / "class.json").exists()


def test_mutants_exits_non_zero_when_a_report_cannot_be_written(tmp_path, monkeypatch):
    from harness.mutants import runner
    from harness.report import registry

    monkeypatch.setattr(runner, "run_all", lambda mutants, **kw: [])

    def refuse(path, data):
        raise OSError(13, "Permission denied")
    monkeypatch.setattr(registry, "write_file", refuse)
    code, _, err = run("mutants", "--no-self-check", "--only", "s01", "--json", str(tmp_path / "m.json"))
    assert code == ExitCode.USAGE and "cannot write" in err


def test_golden_write_into_an_unwritable_place_exits_non_zero(tmp_path, monkeypatch):
    import harness.commands.golden as golden_command

    monkeypatch.setattr(golden_command, "_render", lambda stderr: {"x.json": "{}"})
    target = tmp_path / "golden"
    target.mkdir()
    (target / ".x.json.tmp").mkdir()  # the temporary file's name is taken by a folder
    code, _, err = run("golden", "write", "--dir", str(target))
    assert code == ExitCode.USAGE and "cannot write" in err


# --- temporary folders ---------------------------------------------------------------------------------

def test_mutant_runs_leave_no_temporary_folder(monkeypatch):
    import tempfile

    from harness.mutants import runner
    from harness.mutants.catalogue import MUTANTS

    made: list[Path] = []
    real_mkdtemp = tempfile.mkdtemp

    def recording_mkdtemp(*a, **kw):
        made.append(Path(real_mkdtemp(*a, **kw)))
        return str(made[-1])
    monkeypatch.setattr(runner.tempfile, "mkdtemp", recording_mkdtemp)

    def fail(mutant, root, timeout):
        (root / mutant.id).mkdir()
        raise RuntimeError("a mutant run broke")
    monkeypatch.setattr(runner, "run_mutant", fail)
    with pytest.raises(RuntimeError):
        runner.run_all(list(MUTANTS[:2]), jobs=1)
    assert made and not any(path.exists() for path in made)


def test_golden_replay_reads_a_deeply_nested_file_as_a_usage_error(tmp_path):
    (tmp_path / "constrain_golden.json").write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run("golden", "replay", "--file", "constrain", "--dir", str(tmp_path))
    assert code == ExitCode.USAGE and "nested too deeply" in err and "Traceback" not in err


# --- issue 25: files read once, regular, size-capped --------------------------------------------

def hostile_golden_dir(tmp_path: Path, kind: str) -> Path:
    """A copy of golden/ whose masks_golden.json is a folder, a link to /dev/zero or a FIFO."""
    import os
    import shutil

    folder = tmp_path / "golden"
    folder.mkdir()
    for path in (Path(__file__).resolve().parents[2] / "golden").glob("*.json"):
        shutil.copy(path, folder / path.name)
    target = folder / "masks_golden.json"
    target.unlink()
    if kind == "folder":
        target.mkdir()
    elif kind == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        os.mkfifo(target)
    return folder


@pytest.mark.parametrize("kind, words", [("folder", "a folder"), ("dev-zero", "character device"),
                                         ("fifo", "FIFO")])
def test_golden_replay_refuses_what_is_not_a_regular_file(tmp_path, kind, words):
    """Was: a traceback (folder), MemoryError at 1.7 GB (/dev/zero), a hang (FIFO)."""
    import resource

    folder = hostile_golden_dir(tmp_path, kind)
    before = {p.name: p.stat().st_mode for p in folder.iterdir() if p.is_file() and not p.is_symlink()}
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, out, err = run("golden", "replay", "--dir", str(folder), "--file", "masks")
    assert code == ExitCode.USAGE and err.strip().count("\n") == 0, (code, err)
    assert "masks_golden.json" in err and words in err, err
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < 200_000  # KiB: nothing read whole
    assert before == {p.name: p.stat().st_mode for p in folder.iterdir() if p.is_file() and not p.is_symlink()}


@pytest.mark.slow  # renders every golden file (about a minute)
@pytest.mark.parametrize("kind, words", [("folder", "a folder"), ("dev-zero", "character device"),
                                         ("fifo", "FIFO")])
def test_golden_check_reports_what_is_not_a_regular_file(tmp_path, kind, words):
    folder = hostile_golden_dir(tmp_path, kind)
    code, out, err = run("golden", "check", "--dir", str(folder))
    assert code == ExitCode.FAILED and "Traceback" not in out + err
    assert "masks_golden.json: it is" in out and words in out, out[-2000:]


def test_files_in_reads_regular_files_once_and_bounded(tmp_path):
    import os

    from harness import files_in

    (tmp_path / "ok.json").write_text("[1]", encoding="utf-8")
    assert files_in.read_text(tmp_path / "ok.json") == "[1]"
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(files_in.InputError, match="over 100 bytes"):
        files_in.read_bytes(tmp_path / "big", limit=100)
    assert files_in.read_bytes(tmp_path / "big", limit=101) == b"x" * 101
    os.mkfifo(tmp_path / "fifo")  # opened without waiting for a writer, then refused
    for path, words in ((tmp_path, "a folder"), (tmp_path / "fifo", "FIFO"), ("/dev/zero", "character device"),
                        (tmp_path / "missing", "No such file")):
        with pytest.raises(files_in.InputError, match=words):
            files_in.read_bytes(path)
    (tmp_path / "latin1").write_bytes(b"caf\xe9")
    with pytest.raises(files_in.InputError, match="not UTF-8 \\(byte 3\\)"):
        files_in.read_text(tmp_path / "latin1")


def test_new_argument_types_accept_only_what_they_document():
    import argparse

    for kind, holds in ((cli_args.score, lambda v: isinstance(v, float) and 0 < v <= cli_args.MAX_SCORE),
                        (cli_args.positive_count, lambda v: isinstance(v, int) and 1 <= v <= cli_args.MAX_COUNT),
                        (cli_args.names, lambda v: isinstance(v, list) and v and all(x.strip() for x in v))):
        for text in HOSTILE + [",", " , ", "s05,", "s05, s12"]:
            try:
                value = kind(text)
            except argparse.ArgumentTypeError:
                continue
            assert holds(value), (kind, text, value)


def test_an_autograder_config_with_infinities_is_refused():
    from harness.grading.autograder.config import AutograderConfig

    for field, value in (("points", math.inf), ("points", math.nan), ("timeout", math.inf), ("wall", math.nan),
                         ("memory", 10 ** 12), ("memory", 2048.5), ("points", True)):
        with pytest.raises(ValueError, match=field):
            AutograderConfig(**{field: value})


def test_report_writers_refuse_nan():
    from harness.report.formats import gradescope

    with pytest.raises(ValueError, match="JSON compliant"):
        json.dumps({"score": math.nan}, allow_nan=False)  # the writers' setting, what it promises
    assert "allow_nan=False" in Path(gradescope.__file__).read_text(encoding="utf-8")


@pytest.mark.parametrize("argv, named", [
    (("check", "--jobs", "2"), ["--jobs"]),
    (("check", "--resume", "--hints", "full"), ["--resume", "--hints"]),
    (("check", "--submission-limit", "30", "--scheduler", "tcp://127.0.0.1:1"), ["--submission-limit", "--scheduler"]),
    (("check", "--regrade", "ana", "--due", "2026-12-01T10:00+00:00"), ["--due", "--regrade"]),
])
def test_check_refuses_batch_only_options_without_batch(argv, named):
    """An option that means something only for a class (``check --batch DIR``) is refused with
    exit 2 and its name when ``--batch`` is not given, instead of being silently ignored; no
    candidate is started."""
    code, out, err = run(*argv)
    assert code == ExitCode.USAGE, (out, err)
    assert out == ""
    line = err.strip()
    assert "\n" not in line and "--batch" in line
    assert all(option in line for option in named), line
