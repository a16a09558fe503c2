"""``python -I -m harness.commands.check_entry ARGS``: exactly ``constrain-harness check ARGS``,
started without building every other verb's parser.

``harness.cli`` imports every verb's module to build its parser, and some verbs import
heavy libraries to declare their options (``conform`` imports ``openai``): measured on a
2-core machine at load 14, ``python -I -m harness.cli check --help`` took 1.1-1.6 CPU s
and 8-13 s of wall time, this entry 0.06-0.1 CPU s and 0.5-1 s. The grader starts one check
per submission (``harness.grading.autograder.grading``), so the batch and the autograder start
check here: the same ``add_arguments`` and ``run`` as the ``check`` verb, the same exit
codes and reports.

Example::

    python -I -m harness.commands.check_entry --impl /tmp/x/constrain.py --json report.json
"""

from __future__ import annotations

import argparse
import sys

from harness.commands import check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="constrain-harness check", description=(check.__doc__ or "").split("\n\n")[0])
    check.add_arguments(parser)
    args = parser.parse_args(argv)
    return int(check.run(args, sys.stdout, sys.stderr))


if __name__ == "__main__":
    sys.exit(main())
