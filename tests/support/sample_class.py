"""A sample class for ``check --batch`` (issue 26): what a TA's export holds, built from the
candidates of ``tests/candidates`` (each documents the verdict it must get).

``build(folder)`` writes one entry per student: the reference in the spec's layout, one
spec pitfall per ``wrong_*`` candidate (depth-first numbering among them), a fair reading
with other conventions, a module missing names, an import that exits, an import that never
finishes, a syntax error, a misspelled file name and a zip upload.

    python tests/support/sample_class.py /tmp/class      # then: constrain-harness check --batch /tmp/class ...
    python tests/support/sample_class.py --results docs/sample_results.json   # chen's upload through the autograder

The rendered reports in ``docs/`` (``docs/sample_class/``) come from this class;
``docs/sample_results.json`` is the Gradescope results of its depth-first numbering
student (``run_autograder``'s own code, ``--points 16 --hints pitfall``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WHEATS = ROOT / "harness" / "grading" / "gradetests" / "wheats"
CANDIDATES = ROOT / "tests" / "candidates"
SPEC_PATH = Path("python", "tinyllm", "infer", "constrain.py")

AS_FILES = {   # student -> candidate graded as one .py file
    "bob": "wrong_numbering.py", "dana": "wrong_no_minimization.py", "eli": "wrong_eos_everywhere.py",
    "fay": "wrong_dead_sink.py", "gus": "wrong_dot_newline.py", "hana": "wrong_trie_first_byte.py",
    "ivan": "wrong_leading_zeros.py", "jo": "wrong_ignores_keywords.py", "kim": "wrong_utf8_tokens.py",
    "lee": "wrong_missing_names.py", "mia": "exits_on_import.py",
}
# (a test that hangs, tests/candidates/loops_forever.py, hangs in every test that compiles the
# hand example: ten timeouts of 60 CPU s each, then the per-submission limit; left out so the
# sample grades in minutes; tests/grading/test_batch_feedback.py covers timeouts in the histogram)
SLOW_IMPORT = "while True:   # the import never finishes\n    pass\n"


def build(folder: Path) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT / "oracles" / "automaton", folder / "alice" / SPEC_PATH.with_suffix(""),
                    ignore=shutil.ignore_patterns("__pycache__"))
    _spec_layout(folder / "chen", (CANDIDATES / "wrong_depth_first_numbering.py").read_text())
    for student, candidate in AS_FILES.items():
        shutil.copy2(CANDIDATES / candidate, folder / f"{student}.py")
    (folder / "ned.py").write_text(SLOW_IMPORT)
    broken = (CANDIDATES / "wrong_numbering.py").read_text().splitlines()
    broken[11] = "def regex_to_dfa(pattern:"          # line 12
    _spec_layout(folder / "oli", "\n".join(broken) + "\n")
    misspelled = folder / "pat" / SPEC_PATH.with_name("constrian.py")
    misspelled.parent.mkdir(parents=True)
    misspelled.write_text((WHEATS / "fair_glushkov_hopcroft.py").read_text())
    (folder / "quinn").mkdir()
    with zipfile.ZipFile(folder / "quinn" / "submission.zip", "w") as z:
        z.writestr(str(SPEC_PATH), (WHEATS / "fair_thompson_moore.py").read_text())
    shutil.copy2(WHEATS / "fair_glushkov_hopcroft.py", folder / "sam.py")
    return folder


def _spec_layout(student: Path, source: str) -> None:
    path = student / SPEC_PATH
    path.parent.mkdir(parents=True)
    path.write_text(source)


def sample_results(out: Path) -> dict:
    """Grade the depth-first numbering upload as Gradescope would and write its results."""
    from harness import __version__
    from harness.grading.autograder import runner
    from harness.grading.autograder.config import AutograderConfig

    with tempfile.TemporaryDirectory(prefix="autograder-sample-") as root:
        _spec_layout(Path(root) / "submission", (CANDIDATES / "wrong_depth_first_numbering.py").read_text())
        runner.run(Path(root), "gradescope", config=AutograderConfig(points=16, hints="pitfall",
                                                                               version=__version__))
        results = json.loads((Path(root) / "results" / "results.json").read_text())
    Path(out).write_text(json.dumps(results, indent=1) + "\n")
    return results


if __name__ == "__main__":
    os.environ["CONSTRAIN_HARNESS_LEND_REFERENCE"] = "1"  # the class wraps the reference (harness.sandbox.lending)
    if sys.argv[1] == "--results":
        print(sample_results(Path(sys.argv[2]))["score"])
    else:
        print(build(Path(sys.argv[1])))
