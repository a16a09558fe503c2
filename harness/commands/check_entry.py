"""``python -I -m harness.commands.check_entry ARGS``: exactly ``constrain-harness check ARGS``,
started without building every other verb's parser.

``harness.cli`` imports every verb's module to build its parser, and some verbs import
heavy libraries to declare their options (``conform`` imports ``openai``): measured on a
2-core machine at load 14, ``python -I -m harness.cli check --help`` took 1.1-1.6 CPU s
and 8-13 s of wall time, this entry 0.06-0.1 CPU s and 0.5-1 s. The grader starts one check
per submission (``harness.grading.autograder.grading``), so the batch and the autograder start
check here: the same ``add_arguments`` and ``run`` as the ``check`` verb, the same exit
codes and reports.

The batch and the autograder hand each job its options whole, as one JSON document
(``--request '{"options": CheckOptions.to_json's object, "reports": {"json": PATH}}'``,
``harness.commands.check.run_request``): no command line re-encoding, no parser on that path.

Example::

    python -I -m harness.commands.check_entry --impl /tmp/x/constrain.py --json report.json
    python -I -m harness.commands.check_entry --request '{"options": {"impl": "/tmp/x/constrain.py"}, "reports": {}}'
"""

from __future__ import annotations

import argparse
import sys

from harness.commands import check
from harness.exitcodes import exit_without_teardown


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] == "--request":   # the batch's and the autograder's job, whole: no parser
        return int(check.run_request(argv[1], sys.stdout, sys.stderr))
    parser = argparse.ArgumentParser(prog="constrain-harness check", description=(check.__doc__ or "").split("\n\n")[0])
    check.add_arguments(parser)
    args = parser.parse_args(argv)
    return int(check.run(args, sys.stdout, sys.stderr))


if __name__ == "__main__":
    status = main()
    exit_without_teardown(status)   # its report is written: no teardown (returns with another thread running)
    sys.exit(status)
