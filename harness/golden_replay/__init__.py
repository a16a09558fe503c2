"""Replaying the golden files against an implementation: the grader's side of ``golden/``.

``golden/`` holds the files, their formats, the code that builds them from the oracles and
the pure comparisons (``golden.replay.replay_constrain`` / ``replay_masks``,
``golden.tools_replay.replay_tools``: a golden document and a module-like object in, a
``ReplayReport`` out). Everything that touches a candidate lives here, beside the rest of
the grader: loading the reference in-process (``loading``), starting a candidate behind
the wall and driving the comparisons through its proxy (``session``), and turning the
replay reports into the common report model (``report``), so ``golden replay`` writes
``--json``, ``--junit-xml``, ``--html``, ``--csv`` and ``--md`` like every verb.

Guarantees: a candidate (``--impl``) never runs in this process (``harness.sandbox``); the
golden documents are read before it starts; the harness's files are verified after it
ended and restored if it changed them (exit 4). ``golden/`` imports nothing from here
(``tests/golden/test_golden_replay.py`` checks the direction with ``ast``).

Example::

    >>> options = ReplayOptions(impl="submission/constrain.py", files=("constrain_golden",))
    >>> outcome = replay(options, GOLDEN_DIR, sys.stdout, sys.stderr)
    >>> outcome.exit_code, [r.file for r in outcome.reports]
    (0, ['constrain_golden.json'])
"""

from harness.golden_replay.session import ReplayOptions, ReplayOutcome, replay

__all__ = ["ReplayOptions", "ReplayOutcome", "replay"]
