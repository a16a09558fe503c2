"""The README is a manual whose commands work as printed, and the docs site's pictures are the
sample class's own (issue 51). So is the mutants package's README (``MANUALS``): its dated log
is on docs/mutants-*.md.

Every ``constrain-harness ...`` line in the manuals' code blocks is parsed by the command's own
parser (a misspelt verb, option or choice fails here, as it would for a reader); the docs site
itself is built with ``mkdocs build --strict`` by ``.ci/run`` (every internal link and anchor
checked), not here.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from harness import cli

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MANUAL_LINES = 200  # issue 51: "at most about 200 lines"
MANUALS = {README: MANUAL_LINES, ROOT / "harness" / "mutants" / "README.md": 250}
"""Each manual and its most lines: a manual says how to use a thing; its history goes to docs/."""


def _readme_commands(manual: Path = README) -> list[str]:
    """Each ``constrain-harness`` command of the manual's ``sh`` blocks, continuation lines
    joined, comments and the ``&&`` chains before it dropped."""
    blocks = re.findall(r"```sh\n(.*?)```", manual.read_text(encoding="utf-8"), flags=re.S)
    commands = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith("constrain-harness "):
                    commands.append(part)
    return commands


@pytest.mark.parametrize("manual", MANUALS, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_readme_is_a_manual_not_a_log(manual):
    text = manual.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MANUALS[manual]
    assert not re.search(r"\b[0-9a-f]{7,40}\b(?<![0-9]{7})", re.sub(r"--seed \d+", "", text)), \
        "the manual names a commit: history belongs in git, figures on docs/ (performance.md, mutants-*.md)"


def test_the_readme_shows_every_job():
    headings = re.findall(r"^## (.+)$", README.read_text(encoding="utf-8"), flags=re.M)
    for job in ("Set up and run the main job", "Run the tests", "Grade one submission", "Grade a class",
                "The Gradescope bundle", "A student's own tests", "The golden files", "A mutation-score report",
                "Test an engine against the peers", "Scale out on Dask"):
        assert job in headings


@pytest.mark.parametrize("command", [command for manual in MANUALS for command in _readme_commands(manual)])
def test_each_readme_command_parses(command, tmp_path, monkeypatch):
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # the README's commands run in the checkout ...
    monkeypatch.chdir(tmp_path)  # ... but parsing makes the output folders they name: not there
    argv = shlex.split(command)[1:]
    parser = cli.build_parser(argv[0])
    try:
        parser.parse_args(argv)
    except SystemExit as exc:  # OneLineParser exits 2 on a usage error; --help would exit 0
        pytest.fail(f"the README's {command!r} does not parse (exit {exc.code})")


def test_the_docs_charts_are_the_sample_reports_own():
    """docs/sample_class/*.svg are the charts of docs/sample_class/report.html, in its order."""
    html = (ROOT / "docs" / "sample_class" / "report.html").read_text(encoding="utf-8")
    charts = re.findall(r"<svg.*?</svg>", html, flags=re.S)
    names = ["passed-per-student.svg", "root-cause-pitfalls.svg", "failed-tests.svg"]
    assert len(charts) == len(names)
    for name, chart in zip(names, charts):
        assert (ROOT / "docs" / "sample_class" / name).read_text(encoding="utf-8") == chart + "\n"
