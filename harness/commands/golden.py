"""Write, check and replay the golden files (golden/masks_golden.json, golden/constrain_golden.json).

    constrain-harness golden write                 # regenerate golden/*.json and SHA256SUMS
    constrain-harness golden check                 # regenerate in memory; diff against the files
    constrain-harness golden replay                # replay both files against the reference
    constrain-harness golden replay --impl submission/constrain.py --file constrain
    constrain-harness golden replay --file tools [--impl submission/tools/]   # the tool-calling surface

``write`` refuses to write anything when two oracles disagree (a finding: exit 1).
``check`` exits 1 with a unified diff when a committed file differs from the
regenerated one, or when a file fails its format version or JSON Schema.
``replay`` exits 1 when the implementation fails a check (a contract name it lacks fails
the checks that need it), 2 when the spec names nothing loadable, 3 when it cannot be
imported, crashes, exceeds ``--timeout`` wall seconds or ``--memory`` MB, 4 when the
harness's files changed during the run. A candidate given with ``--impl`` is untrusted:
the replay and every assertion run in this process, the candidate behind the wall
(``harness.sandbox``: a confined process reached over a data-only channel); the golden
files are read before it starts, and the harness's files are verified (and restored)
after it ended. The reference (no ``--impl``) runs in-process.
"""

from __future__ import annotations

import difflib
import os
import sys
import time
from pathlib import Path

from harness.commands.args import existing_folder, megabytes, one_line_errors, output_folder, seconds
from harness.exitcodes import ExitCode
from harness.sandbox.text import escape

MAX_DIFF_LINES = 80


def add_arguments(parser) -> None:
    one_line_errors(parser)
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text, folder in (("write", "regenerate the golden files and SHA256SUMS", output_folder),
                               ("check", "regenerate in memory and diff against the committed files",
                                existing_folder)):
        p = sub.add_parser(name, help=text, description=text)
        one_line_errors(p)
        p.add_argument("--dir", type=folder, default=None, help="the golden directory (default: golden/)")
    p = sub.add_parser("replay", help="replay the golden files against an implementation",
                       description="replay the golden files against an implementation of the contract")
    one_line_errors(p)
    p.add_argument("--impl", default=None, metavar="X",
                   help="module name, .py file or package directory (default: the reference)")
    p.add_argument("--ref-deps", action="store_true", help="supply the reference's sampling and byte map")
    p.add_argument("--file", choices=("both", "constrain", "masks", "tools"), default="both",
                   help="both: constrain and masks; tools: tools_golden.json against a tools implementation")
    p.add_argument("--strict-regex", action="store_true",
                   help="a schema's regex text must equal the recorded one (the Rust port's check)")
    p.add_argument("--dir", type=existing_folder, default=None, help="the golden directory (default: golden/)")
    p.add_argument("--timeout", type=seconds, default=600.0, help="wall seconds for a candidate's replay")
    p.add_argument("--memory", type=megabytes(256), default=4096, help="address-space limit (MB) for a candidate")


PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def run(args, stdout, stderr) -> int:
    from golden.fileformat import GOLDEN_DIR

    directory = args.dir or GOLDEN_DIR
    return {"write": _write, "check": _check, "replay": _replay}[args.action](args, directory, stdout, stderr)


def _render(stderr):
    from golden.build import GoldenDisagreement, render_all

    try:
        return render_all()
    except GoldenDisagreement as exc:
        print(f"golden: the oracles disagree, nothing written or checked: {exc}", file=stderr)
        return None


def _write(args, directory: Path, stdout, stderr) -> int:
    start = time.perf_counter()
    texts = _render(stderr)
    if texts is None:
        return int(ExitCode.FAILED)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            tmp = directory / f".{name}.tmp"
            tmp.write_bytes(text.encode("utf-8"))
            os.replace(tmp, directory / name)
            print(f"wrote {directory / name} ({len(text.encode('utf-8'))} bytes)", file=stdout)
    except OSError as exc:
        print(f"golden write: cannot write into {directory}: {exc.strerror or exc}", file=stderr)
        return int(ExitCode.USAGE)
    print(f"golden write: {len(texts)} files in {time.perf_counter() - start:.1f} s", file=stdout)
    return int(ExitCode.OK)


def _check(args, directory: Path, stdout, stderr) -> int:
    from golden import fileformat

    start = time.perf_counter()
    texts = _render(stderr)
    if texts is None:
        return int(ExitCode.FAILED)
    differing = [name for name, text in texts.items() if not _same(directory / name, text, stdout)]
    problems = _format_problems(directory, fileformat)
    for problem in problems:
        print(f"golden check: {problem}", file=stdout)
    elapsed = time.perf_counter() - start
    if differing or problems:
        print(f"golden check: FAILED, {len(differing)} of {len(texts)} files differ from the regenerated ones "
              f"({elapsed:.1f} s); run `constrain-harness golden write` if the change is intended", file=stdout)
        return int(ExitCode.FAILED)
    print(f"golden check: {len(texts)} files identical to the regenerated ones ({elapsed:.1f} s)", file=stdout)
    return int(ExitCode.OK)


def _same(path: Path, text: str, stdout) -> bool:
    old = path.read_bytes().decode("utf-8", errors="replace") if path.exists() else ""
    if old == text:
        return True
    diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(), f"{path} (committed)",
                                     f"{path} (regenerated)", lineterm="", n=2))
    print(f"golden check: {path.name} differs" + ("" if path.exists() else " (missing)"), file=stdout)
    for line in diff[:MAX_DIFF_LINES]:
        print(line, file=stdout)
    if len(diff) > MAX_DIFF_LINES:
        print(f"... {len(diff) - MAX_DIFF_LINES} more diff lines", file=stdout)
    return False


def _format_problems(directory: Path, fileformat) -> list[str]:
    problems = []
    for kind, name in fileformat.FILES.items():
        if (directory / name).exists():
            try:
                fileformat.load(directory / name, kind)
            except ValueError as exc:
                problems.append(str(exc))
            except RecursionError:  # e.g. 100,000 nested brackets: a problem, not a crash
                problems.append(f"{directory / name}: JSON nested too deeply to read")
    return problems


def _replay(args, directory: Path, stdout, stderr) -> int:
    if args.impl is not None:
        return _replay_behind_wall(args, directory, stdout, stderr)
    return _replay_here(args, directory, stdout, stderr)


def _replay_behind_wall(args, directory: Path, stdout, stderr) -> int:
    """The replay here, the candidate in a confined process; files verified after."""
    from harness.candidate import spec_problem
    from harness.check import protected_roots
    from harness.sandbox import Candidate, Limits
    from harness.sandbox.files import Manifest

    problem = spec_problem(args.impl)
    if problem:
        print(f"golden replay: {problem}", file=stderr)
        return int(ExitCode.USAGE)
    sys.dont_write_bytecode = True
    docs, code = _read_docs(args, directory, stderr)
    if docs is None:
        return code
    manifest = Manifest.take(protected_roots())
    candidate = Candidate(args.impl, ref_deps=args.ref_deps, contract="tools" if args.file == "tools" else "constrain",
                          limits=Limits(memory_mb=args.memory, call_seconds=args.timeout))
    try:
        code = _replay_candidate(args, candidate, docs, stdout, stderr)
    finally:
        candidate.close()
        changes = manifest.verify()
        if changes:
            manifest.restore()
    if changes:
        for change in changes:
            print(f"golden replay: TAMPERED: harness file {escape(change)}; restored", file=stderr)
        return int(ExitCode.TAMPERED)
    return code


def _replay_candidate(args, candidate, docs, stdout, stderr) -> int:
    from harness.sandbox import CandidateGone, RemoteError

    try:
        load = candidate.start()
    except (RemoteError, CandidateGone) as exc:
        print(f"golden replay: cannot load {args.impl!r}: {escape(str(exc))}", file=stderr)
        output = candidate.output()
        if output.strip():
            print("  " + output.strip()[-2000:].replace("\n", "\n  "), file=stderr)
        return int(ExitCode.CRASHED)
    print(f"golden replay: confinement: {load['confinement']}", file=stdout)
    for problem in load["problems"]:
        print(f"golden replay: contract name missing or unusable: {escape(problem)}", file=stdout)
    candidate.deadline = time.monotonic() + args.timeout
    ok = True
    try:
        for kind, doc in docs:
            report = _replay_doc(kind, doc, candidate.module, args.strict_regex)
            if candidate.incident is not None:
                raise candidate.incident
            for line in report.lines():
                print(escape(line), file=stdout)
            ok = ok and report.ok
    except CandidateGone as exc:
        print(f"golden replay: {args.impl} {exc.verdict}: {escape(str(exc))}", file=stderr)
        return int(ExitCode.CRASHED)
    return int(ExitCode.OK if ok else ExitCode.FAILED)


def _replay_doc(kind: str, doc: dict, impl, strict_regex: bool):
    """The replay report of one golden document against ``impl`` (a module or a proxy)."""
    from golden import replay, tools_replay

    if kind == "tools_golden":
        return tools_replay.replay_tools(doc, impl)
    if kind == "constrain_golden":
        return replay.replay_constrain(doc, impl, strict_regex=strict_regex)
    return replay.replay_masks(doc, impl)


def _read_docs(args, directory: Path, stderr):
    """The golden documents to replay, read before any candidate runs: ``(docs, 0)`` or
    ``(None, exit code)``."""
    from golden import fileformat

    kinds = ["constrain_golden", "masks_golden"] if args.file == "both" else [f"{args.file}_golden"]
    docs = []
    for kind in kinds:
        try:
            docs.append((kind, fileformat.load(directory / fileformat.FILES[kind], kind)))
        except (OSError, ValueError) as exc:
            print(f"golden replay: {exc}", file=stderr)
            return None, int(ExitCode.USAGE)
    return docs, 0


def _replay_here(args, directory: Path, stdout, stderr) -> int:
    from golden import fileformat, replay

    if args.file == "tools":
        return _replay_tools_here(args, directory, stdout, stderr)

    try:
        impl = replay.load_impl(args.impl, args.ref_deps)
    except Exception as exc:  # noqa: BLE001 - a candidate that cannot load is a usage verdict
        print(f"golden replay: cannot load {args.impl!r}: {type(exc).__name__}: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    kinds = ["constrain_golden", "masks_golden"] if args.file == "both" else [f"{args.file}_golden"]
    ok = True
    for kind in kinds:
        try:
            doc = fileformat.load(directory / fileformat.FILES[kind], kind)
        except (OSError, ValueError) as exc:
            print(f"golden replay: {exc}", file=stderr)
            return int(ExitCode.USAGE)
        except RecursionError:  # e.g. 100,000 nested brackets
            print(f"golden replay: {directory / fileformat.FILES[kind]}: JSON nested too deeply to read", file=stderr)
            return int(ExitCode.USAGE)
        if kind == "constrain_golden":
            report = replay.replay_constrain(doc, impl, strict_regex=args.strict_regex)
        else:
            report = replay.replay_masks(doc, impl)
        for line in report.lines():
            print(line, file=stdout)
        ok = ok and report.ok
    return int(ExitCode.OK if ok else ExitCode.FAILED)


def _replay_tools_here(args, directory: Path, stdout, stderr) -> int:
    """tools_golden.json against a Python implementation of the tools surface (oracles.tools' names)."""
    from golden import fileformat, tools_replay

    try:
        impl = tools_replay.load_tools_impl(args.impl)
    except Exception as exc:  # noqa: BLE001 - a candidate that cannot load is a usage verdict
        print(f"golden replay: cannot load {args.impl!r}: {type(exc).__name__}: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    try:
        doc = fileformat.load(directory / fileformat.FILES["tools_golden"], "tools_golden")
    except (OSError, ValueError) as exc:
        print(f"golden replay: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    report = tools_replay.replay_tools(doc, impl)
    for line in report.lines():
        print(line, file=stdout)
    return int(ExitCode.OK if report.ok else ExitCode.FAILED)
