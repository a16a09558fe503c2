"""Child process: replay constrain_golden.json (or, with ``--tools``, tools_golden.json)
against one implementation, print JSON.

    python -m harness.mutants.replay_child PACKAGE_DIR
    python -m harness.mutants.replay_child --tools PACKAGE_DIR     # a copy of oracles/tools

The replay runs here; the implementation runs behind the wall (``harness.sandbox``), as
every candidate does. Prints ``{"checks": {check: {"assertions": n, "failures": n}},
"findings": [...]}`` on one line; the exit code is 0 when every check passed, 1
otherwise, 3 when the implementation could not be loaded or crashed.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    from golden import fileformat
    from golden.replay import replay_constrain
    from golden.tools_replay import replay_tools
    from harness.sandbox import Candidate, CandidateGone, RemoteError
    from harness.suite.shapes import SeedTokenizer

    tools = argv[:1] == ["--tools"]
    argv = argv[1:] if tools else argv
    kind = "tools_golden" if tools else "constrain_golden"
    doc = fileformat.load(fileformat.GOLDEN_DIR / fileformat.FILES[kind], kind)
    with Candidate(argv[0] if argv else None, contract="tools" if tools else "constrain") as candidate:
        try:
            report = replay_tools(doc, candidate.module) if tools else \
                replay_constrain(doc, candidate.module, tokenizer=SeedTokenizer)  # a tokenizer the wall hands over
            if candidate.incident is not None:
                raise candidate.incident
        except (CandidateGone, RemoteError) as exc:
            print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
            return 3
    checks = {c: {"assertions": n, "failures": report.failures.get(c, 0)} for c, n in report.assertions.items()}
    findings = [{"check": f.check, "where": f.where, "message": f.message}
                for f in report.findings if f.level == "fail"][:10]
    print(json.dumps({"checks": checks, "findings": findings}))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
