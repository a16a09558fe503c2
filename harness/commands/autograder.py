"""Build a Gradescope autograder bundle, or grade inside the grading container.

    constrain-harness autograder build --out autograder.zip --points 50 --hints pitfall
    constrain-harness autograder build --tier strict --timeout 30
    constrain-harness autograder run                      # what run_autograder calls
    constrain-harness autograder run --platform prairielearn --root /grade

``build`` writes the zip to upload to Gradescope (``harness/grading/autograder/bundle.py``: the
wheel of this exact version, ``setup.sh``, ``run_autograder``, the settings).
``run`` grades ``ROOT/submission`` (Gradescope) or ``ROOT/student`` (PrairieLearn) and
always writes ``ROOT/results/results.json``; ROOT defaults to
``$CONSTRAIN_HARNESS_AUTOGRADER_ROOT``, else ``/autograder`` or ``/grade``.

``run`` refuses to grade where no confinement can start (one line on stderr, a results
file scoring 0 that says so, exit 2) unless given ``--unconfined`` (trusted code only).

Exit codes: 0 done; 2 bad arguments, a bundle that cannot be built, or no confinement
(``harness.exitcodes``); 3 the grader's process died (the results file is then the
template's); 4 the harness's files changed.
"""

from __future__ import annotations

from pathlib import Path

from harness.commands.args import existing_folder, megabytes, output_file, score, seconds
from harness.exitcodes import ExitCode
from harness.grading.autograder.visibility import VISIBILITIES
from harness.policy import HINT_LEVELS, POLICY, TIERS


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    build = sub.add_parser("build", help="write the Gradescope autograder zip")
    build.add_argument("--out", metavar="F", type=output_file, default="autograder.zip",
                       help="the zip to write (default autograder.zip)")
    build.add_argument("--lab", default="L8.7", help="the lab to grade (only L8.7: the Python module)")
    build.add_argument("--tier", choices=TIERS, default=POLICY.tier,
                       help="default: what the spec states; strict: also the contract's decisions (check --strict)")
    build.add_argument("--points", type=score, default=16.0, help="the assignment's total points (default 16)")
    build.add_argument("--hints", choices=HINT_LEVELS, default=POLICY.hints,
                       help="what a failed test shows: the verdict only; + why and the spec's pitfall; "
                            f"+ the counterexample (default {POLICY.hints})")
    build.add_argument("--timeout", type=seconds, default=POLICY.test_cpu_seconds,
                       help=f"CPU seconds per test (default {POLICY.test_cpu_seconds:g})")
    build.add_argument("--memory", type=megabytes(256), default=POLICY.memory_mb,
                       help=f"memory limit in MB (default {POLICY.memory_mb})")
    build.add_argument("--wall", type=seconds, default=POLICY.run_budget_seconds,
                       help=f"the one time budget, seconds of wall time for a submission's check and the student's "
                            f"own tests together (default {POLICY.run_budget_seconds:g}: Gradescope's "
                            f"{POLICY.platform_wall_seconds:g} s timeout less {POLICY.platform_margin_seconds:g}); "
                            f"keep it below the assignment's autograder timeout")
    build.add_argument("--visibility", choices=VISIBILITIES, default="visible",
                       help="Gradescope's visibility of the results and of every test: visible (default), "
                            "after_due_date, after_published, hidden")
    build.add_argument("--test-visibility", metavar="TEST=V", action="append", default=[],
                       help="one test's visibility, overriding --visibility (repeatable), e.g. "
                            "test_hand_example=visible with --visibility after_due_date")
    build.add_argument("--no-ref-deps", action="store_true",
                       help="do not supply L8.1 sampling / the M05.2 byte map a student skipped")
    build.add_argument("--no-student-tests", action="store_true",
                       help="do not grade the student's own tests even when grade-tests exists")
    run_p = sub.add_parser("run", help="grade the submission in ROOT, write ROOT/results/results.json")
    run_p.add_argument("--root", metavar="DIR", type=existing_folder, default=None,
                       help="the grading root (default $CONSTRAIN_HARNESS_AUTOGRADER_ROOT, else /autograder or /grade)")
    run_p.add_argument("--platform", choices=("gradescope", "prairielearn"), default="gradescope")
    from harness.commands.args import add_unconfined

    add_unconfined(run_p)


def run(args, stdout, stderr) -> int:
    if args.action == "build":
        return _build(args, stdout, stderr)
    if args.action == "run":
        from harness.commands.args import confinement
        from harness.grading.autograder import runner
        from harness.sandbox.guard import verified

        root = Path(args.root) if args.root else runner.default_root(args.platform)
        with confinement(args, "autograder run", stderr) as refused:
            if refused is not None:
                runner.refuse(root, args.platform, "the autograder cannot confine submissions on this machine "
                                                   "(see its log); this is not your fault: tell the course staff")
                return refused
            # the check runs verify the harness's files themselves; one stopped at the wall cannot: this does
            return verified("autograder run", lambda out, err: runner.run(root, args.platform, log=err),
                            stdout, stderr)
    print("usage: constrain-harness autograder {build,run} ... (see --help)", file=stderr)
    return int(ExitCode.USAGE)


def _build(args, stdout, stderr) -> int:
    from harness.grading.autograder.bundle import build_bundle
    from harness.grading.autograder.config import AutograderConfig

    try:
        if args.tier == "strict" and not _check_knows_strict():
            raise ValueError("--tier strict needs 'check --strict', which this constrain-harness does not have yet")
        config = AutograderConfig(lab=args.lab, tier=args.tier, points=args.points, hints=args.hints,
                                  timeout=args.timeout, memory=args.memory, wall=args.wall,
                                  ref_deps=not args.no_ref_deps, grade_student_tests=not args.no_student_tests,
                                  visibility=args.visibility, test_visibility=_test_visibility(args.test_visibility))
        info = build_bundle(Path(args.out), config)
    except ValueError as exc:
        print(f"autograder build: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    print(f"wrote {info.path} ({info.path.stat().st_size // 1024} KB): {', '.join(info.files)}", file=stdout)
    print(f"settings: lab {config.lab}, tier {config.tier}, {config.points:g} points, hints {config.hints}, "
          f"{config.timeout:g} s per test, {config.wall:g} s time budget (the check and the student's tests); "
          f"{config.visibility_settings().describe()}; "
          f"constrain-harness {info.config.version} {info.config.commit}", file=stdout)
    print("upload it as the assignment's autograder (Gradescope: Configure Autograder > Zip file upload); it "
          "holds this course's secret run-seed key: keep the zip among the staff", file=stdout)
    return int(ExitCode.OK)


def _test_visibility(items: list[str]) -> dict[str, str]:
    """``["test_x=visible", ...]`` -> ``{"test_x": "visible"}`` (the names and values are checked by the config)."""
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--test-visibility {item!r}: expected TEST=VALUE, e.g. test_hand_example=after_due_date")
        out[name.strip()] = value.strip()
    return out


def _check_knows_strict() -> bool:
    import argparse

    from harness.commands import check

    parser = argparse.ArgumentParser()
    check.add_arguments(parser)
    return any("--strict" in action.option_strings for action in parser._actions)
