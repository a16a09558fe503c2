"""Child process: replay constrain_golden.json against one implementation, print JSON.

    python -m harness.mutants.replay_child PACKAGE_DIR

Prints ``{"checks": {check: {"assertions": n, "failures": n}}, "findings": [...]}``
on one line; the exit code is 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    from golden import fileformat
    from golden.replay import load_impl, replay_constrain

    doc = fileformat.load(fileformat.GOLDEN_DIR / fileformat.FILES["constrain_golden"], "constrain_golden")
    impl = load_impl(argv[0] if argv else None)
    report = replay_constrain(doc, impl)
    checks = {c: {"assertions": n, "failures": report.failures.get(c, 0)} for c, n in report.assertions.items()}
    findings = [{"check": f.check, "where": f.where, "message": f.message}
                for f in report.findings if f.level == "fail"][:10]
    print(json.dumps({"checks": checks, "findings": findings}))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
