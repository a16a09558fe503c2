"""The developer measures take typed options made in ``harness/commands/`` (argparse stops at the
commands): ``mutants --stability`` (``StabilityOptions``), ``mutants --tools`` (``ToolsOptions``)
and ``bench stress`` (``StressOptions``). Each value is frozen and validated when made, a bad
field a ValueError/TypeError naming its command-line option; the command line refuses an
option its mode does not read; and no module of ``harness/`` outside the commands parses a
command line, except the entry points listed in ``ARGV_READERS`` with their reason."""

from __future__ import annotations

import ast
import dataclasses
import io
import json
from pathlib import Path

import pytest

from harness.bench.stress import TARGETS, StressOptions, load_cases
from harness.cli import main
from harness.mutants.stability import STABILITY_SEEDS, StabilityOptions
from harness.mutants.tools_generated import TOOLS_MODULES, TOOLS_TIMEOUT, ToolsOptions

ROOT = Path(__file__).resolve().parents[2]

ARGV_READERS = {
    "harness/cli.py": "the command itself: parses the verb and hands the Namespace to harness/commands/",
    "harness/argtypes.py": "the argparse type= functions and the one-line-error parser the commands use "
                           "(it parses no command line)",
    "harness/suite/early.py": "a child entry point: the grader child reads its own pytest argv before pytest "
                              "is imported, to begin the candidate early",
}
"""The modules outside ``harness/commands/`` that may import argparse, and why."""


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _namespace_readers(tree: ast.AST) -> list[tuple[int, str]]:
    """Where ``tree`` imports argparse, parses a command line, or reads a ``Namespace`` called ``args``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "argparse" for a in node.names):
            found.append((node.lineno, "import argparse"))
        elif isinstance(node, ast.ImportFrom) and node.module == "argparse":
            found.append((node.lineno, "from argparse import"))
        elif isinstance(node, ast.Attribute) and node.attr in ("parse_args", "parse_known_args"):
            found.append((node.lineno, node.attr))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "args" \
                and isinstance(node.ctx, ast.Load):
            found.append((node.lineno, f"args.{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "args":
            found.append((node.lineno, "getattr(args, ...)"))
    return found


def test_argparse_stops_at_the_commands_in_the_whole_harness():
    """Read from the syntax tree (a comment or a string naming them does not count). Every
    node ``_namespace_readers`` reports has "argparse" or "args" in its source text (the
    module, ``parse_args``, ``parse_known_args``, a name ``args``: an identifier is never
    split), so an ASCII file with neither is not parsed (NFKC could spell ``args`` with other
    characters): 65 of the 269 files are parsed."""
    readers = []
    for path in sorted((ROOT / "harness").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name.startswith("harness/commands/") or name in ARGV_READERS:
            continue
        text = path.read_text("utf-8")
        if "args" not in text and "argparse" not in text and text.isascii():
            continue
        readers += [f"{name}:{line} {what}" for line, what in _namespace_readers(ast.parse(text))]
    assert readers == []
    for name in ARGV_READERS:   # each exception is still needed: else it goes from the list
        assert _namespace_readers(ast.parse((ROOT / name).read_text("utf-8"))), name


def test_the_ast_check_sees_each_way_of_reading_a_command_line():
    source = ("import argparse\nfrom argparse import Namespace\np.parse_args()\np.parse_known_args()\n"
              "x = args.jobs\ny = getattr(args, 'jobs')\n")
    assert [what for _, what in sorted(_namespace_readers(ast.parse(source)))] == [
        "import argparse", "from argparse import", "parse_args", "parse_known_args", "args.jobs",
        "getattr(args, ...)"]
    assert _namespace_readers(ast.parse("def f(*args):\n    return g(*args)\n")) == []


# --- the typed values ----------------------------------------------------------------------------

@pytest.mark.parametrize("make, error, option", [
    (lambda: StabilityOptions(seeds=0), ValueError, "--seeds"),
    (lambda: StabilityOptions(seeds=1001), ValueError, "--seeds"),
    (lambda: StabilityOptions(jobs=0), ValueError, "--jobs"),
    (lambda: StabilityOptions(jobs=True), ValueError, "--jobs"),
    (lambda: StabilityOptions(only=("s99",)), ValueError, "--only"),
    (lambda: StabilityOptions(only="s12"), TypeError, "--only"),
    (lambda: StabilityOptions(tests="test_x"), TypeError, "--tests"),
    (lambda: StabilityOptions(sample=5), ValueError, "--sample"),
    (lambda: StabilityOptions(generated=True, sample=0), ValueError, "--sample"),
    (lambda: StabilityOptions(generated=True, sample_seed=-1), ValueError, "--seed"),
    (lambda: StabilityOptions(timeout=float("nan")), ValueError, "--timeout"),
    (lambda: ToolsOptions(sample=0), ValueError, "--sample"),
    (lambda: ToolsOptions(seed=-1), ValueError, "--seed"),
    (lambda: ToolsOptions(jobs=65), ValueError, "--jobs"),
    (lambda: ToolsOptions(modules=("nope",)), ValueError, "--module"),
    (lambda: ToolsOptions(modules=()), ValueError, "--module"),
    (lambda: ToolsOptions(modules="parser"), TypeError, "--module"),
    (lambda: ToolsOptions(timeout=0), ValueError, "--timeout"),
    (lambda: StressOptions(timeout=-1.0), ValueError, "--timeout"),
    (lambda: StressOptions(memory_mb=0), ValueError, "--memory"),
    (lambda: StressOptions(pythonpath="/nowhere/at/all"), ValueError, "--pythonpath"),
    (lambda: StressOptions(only=("no-such-case",)), ValueError, "--cases"),
    (lambda: StressOptions(only="literal-100k"), TypeError, "--cases"),
    (lambda: StressOptions(targets=("server",)), ValueError, "--targets"),
    (lambda: StressOptions(targets=()), ValueError, "--targets"),
])
def test_a_bad_field_is_refused_naming_its_option(make, error, option):
    with pytest.raises(error, match=f"^{option}"):
        make()


def test_the_values_are_frozen_with_the_documented_defaults():
    stability = StabilityOptions()
    assert (stability.seeds, stability.only, stability.tests, stability.jobs) == (len(STABILITY_SEEDS), (), None, 1)
    assert [m.id for m in stability.mutants()][:2] == ["s01", "s02"] and len(stability.mutants()) == 27
    assert ToolsOptions() == ToolsOptions(None, 0, 2, TOOLS_MODULES, TOOLS_TIMEOUT)
    assert StressOptions() == StressOptions(30.0, 2000, None, None, TARGETS)
    for value in (stability, ToolsOptions(), StressOptions()):
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.jobs = 3   # type: ignore[misc]


# --- the command lines -----------------------------------------------------------------------------

def test_mutants_stability_builds_its_value_from_the_command_line(tmp_path):
    from harness.cli import build_parser
    from harness.commands.mutants_modes import stability_options, tools_options

    parse = build_parser("mutants").parse_args
    args = parse(["mutants", "--stability", "--only", "s12,s21", "--seeds", "3", "--tests", "test_a,test_b",
                  "--jobs", "1", "--timeout", "9", "--json", str(tmp_path / "s.json")])
    assert stability_options(args) == StabilityOptions(only=("s12", "s21"), seeds=3, tests=("test_a", "test_b"),
                                                       jobs=1, timeout=9.0, json=tmp_path / "s.json")
    args = parse(["mutants", "--stability", "--generated", "--sample", "16", "--seed", "48"])
    options = stability_options(args)
    assert (options.generated, options.sample, options.sample_seed, options.seeds) == (True, 16, 48, 20)
    args = parse(["mutants", "--tools", "--module", "parser,wire", "--sample", "4", "--seed", "1"])
    assert tools_options(args) == ToolsOptions(sample=4, seed=1, jobs=2, modules=("parser", "wire"))


@pytest.mark.parametrize("argv, words", [
    (["--stability", "--tools"], "one at a time"),
    (["--stability", "--first-kill"], "--first-kill cannot be combined with --stability"),
    (["--stability", "--html", "x.html"], "--html cannot be combined with --stability"),
    (["--tools", "--seeds", "3"], "--seeds cannot be combined with --tools"),
    (["--tools", "--generated"], "--generated cannot be combined with --tools"),
    (["--seeds", "3"], "--seeds need --stability"),
    (["--tests", "test_a"], "--tests need --stability"),
    (["--stability", "--only", "s99"], "--only: not a catalogue mutant: s99"),
    (["--stability", "--seeds", "5000"], "--seeds must be an integer in 1 .. 1000"),
    (["--tools", "--module", "nope"], "--module must name modules of oracles/tools"),
])
def test_mutants_modes_refuse_a_bad_command_line_in_one_line(argv, words, tmp_path):
    code, out, err = run_cli("mutants", *argv)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1 and out == ""


@pytest.mark.parametrize("argv, words", [
    (["compile", "--timeout", "3"], "go with the stress benchmark alone"),
    (["stress", "compile", "--memory", "100"], "go with the stress benchmark alone"),
    (["stress", "--cases", "no-such-case"], "--cases: no stress case no-such-case"),
    (["stress", "--targets", "server"], "--targets must be among reference, derivatives"),
    (["stress", "--pythonpath", "/nowhere/at/all"], "--pythonpath must be a checkout's folder"),
])
def test_bench_stress_refuses_a_bad_command_line_in_one_line(argv, words):
    code, out, err = run_cli("bench", *argv)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1 and out == ""


@pytest.mark.e2e  # starts processes
def test_bench_stress_runs_the_cases_and_targets_given():
    """One cheap case on one target, in its own child: the options reach the corpus run."""
    case = next(c["name"] for c in load_cases() if c["name"] == "literal-100k")
    code, out, err = run_cli("bench", "stress", "--cases", case, "--targets", "reference", "--timeout", "20",
                             "--memory", "1000")
    assert code == 0, err
    lines = [line.split() for line in out.splitlines() if line.split()[:1] in (["reference"], ["derivatives"])]
    assert len(lines) == 1 and lines[0][:2] == ["reference", case]
    assert "reference: 1 cases" in out


@pytest.mark.e2e  # starts processes
def test_mutants_stability_measures_one_mutant_under_one_seed(tmp_path, monkeypatch):
    """s12 (a dead sink kept as a state) dies under every seed by its expected killers
    (tests/mutants/test_seed_stability.py holds that for every seed): the JSON says so. Without
    the oracle memo: its recording run (~4 CPU s, most of this test's) is recorded under the run
    seed 0 and misses under the stability's seeds; it changes no verdict (``test_mutants_errors``)."""
    from tests.support.helpers import without_oracle_memo

    without_oracle_memo(monkeypatch)
    report = tmp_path / "stability.json"
    code, out, err = run_cli("mutants", "--stability", "--only", "s12", "--seeds", "1", "--jobs", "1",
                             "--json", str(report))
    assert code == 0, err
    assert json.loads(report.read_text("utf-8")) == [
        {"id": "s12", "killed": [STABILITY_SEEDS[0]], "survived": [], "other": []}]
    assert "| s12 | 1/1 |" in out
