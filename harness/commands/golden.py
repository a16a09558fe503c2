"""Write, check and replay the golden files (golden/masks_golden.json, golden/constrain_golden.json).

    constrain-harness golden write                 # regenerate golden/*.json and SHA256SUMS
    constrain-harness golden check                 # regenerate in memory; diff against the files
    constrain-harness golden replay                # replay both files against the reference
    constrain-harness golden replay --impl submission/constrain.py --file constrain
    constrain-harness golden replay --file tools [--impl submission/tools/]   # the tool-calling surface

``write`` refuses to write anything when two oracles disagree (a finding: exit 1).
``check`` exits 1 with a unified diff when a committed file differs from the
regenerated one, or when a file fails its format version or JSON Schema.
``replay`` (``harness.golden_replay``) exits 1 when the implementation fails a check (a contract name it lacks fails
the checks that need it), 2 when the spec names nothing loadable, 3 when it cannot be
imported, crashes, exceeds ``--timeout`` CPU seconds (its process tree's; wall time only a
10x backstop) or ``--memory`` MB, 4 when the
harness's files changed during the run. A candidate given with ``--impl`` is untrusted:
the replay and every assertion run in this process, the candidate behind the wall
(``harness.sandbox``: a confined process reached over a data-only channel); the golden
files are read before it starts, and the harness's files are verified (and restored)
after it ended. The reference (no ``--impl``) runs in-process. ``--json``, ``--junit-xml``,
``--html``, ``--csv``, ``--md`` write the replay as a report, a row per check.
"""

from __future__ import annotations

import difflib
import os
import time
from pathlib import Path

from harness.commands.args import (
    add_unconfined,
    confinement,
    existing_folder,
    megabytes,
    one_line_errors,
    output_folder,
    seconds,
    write_requested,
)
from harness.exitcodes import ExitCode
from harness.report import registry

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
    p.add_argument("--strict", action="store_true",
                   help="the contract's decisions fail (default: the spec's text only; a departure is a note, "
                        "as in check's default tier)")
    p.add_argument("--dir", type=existing_folder, default=None, help="the golden directory (default: golden/)")
    p.add_argument("--timeout", type=seconds, default=600.0,
                   help="CPU seconds of the candidate's process tree for its whole replay (wall clock: a 10x backstop)")
    p.add_argument("--memory", type=megabytes(256), default=4096, help="address-space limit (MB) for a candidate")
    add_unconfined(p)
    registry.add_options(p, {"tests"})  # --json, --junit-xml, --html, --csv, --md: a row per check


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
    committed, problems = _read_committed(directory, texts, fileformat)
    differing = [name for name, text in texts.items() if not _same(directory / name, committed.get(name), text, stdout)]
    problems += _format_problems(directory, committed, fileformat)
    for problem in problems:
        print(f"golden check: {problem}", file=stdout)
    elapsed = time.perf_counter() - start
    if differing or problems:
        print(f"golden check: FAILED, {len(differing)} of {len(texts)} files differ from the regenerated ones "
              f"({elapsed:.1f} s); run `constrain-harness golden write` if the change is intended", file=stdout)
        return int(ExitCode.FAILED)
    print(f"golden check: {len(texts)} files identical to the regenerated ones ({elapsed:.1f} s)", file=stdout)
    return int(ExitCode.OK)


def _read_committed(directory: Path, names, fileformat) -> tuple[dict[str, str], list[str]]:
    """Each golden file's text, read once (``harness.files_in``: a regular file of at most
    ``MAX_GOLDEN_BYTES``), and the problems of those that could not be read (a folder, a
    FIFO, a link to ``/dev/zero``, not UTF-8); a missing file is neither."""
    from harness.files_in import MAX_GOLDEN_BYTES, InputError, read_bytes

    texts, problems = {}, []
    for name in dict.fromkeys([*names, *fileformat.FILES.values()]):
        path = directory / name
        if not os.path.lexists(path):
            continue
        try:
            texts[name] = read_bytes(path, limit=MAX_GOLDEN_BYTES).decode("utf-8", errors="replace")
        except InputError as exc:
            problems.append(str(exc))
    return texts, problems


def _same(path: Path, old: str | None, text: str, stdout) -> bool:
    """Whether the committed text ``old`` (None: missing or unreadable) is ``text``."""
    if old == text:
        return True
    exists, old = old is not None, old or ""
    diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(), f"{path} (committed)",
                                     f"{path} (regenerated)", lineterm="", n=2))
    print(f"golden check: {path.name} differs" + ("" if exists else " (missing or unreadable)"), file=stdout)
    for line in diff[:MAX_DIFF_LINES]:
        print(line, file=stdout)
    if len(diff) > MAX_DIFF_LINES:
        print(f"... {len(diff) - MAX_DIFF_LINES} more diff lines", file=stdout)
    return False


def _format_problems(directory: Path, committed: dict[str, str], fileformat) -> list[str]:
    problems = []
    for kind, name in fileformat.FILES.items():
        if name in committed:
            try:
                fileformat.load(committed[name], kind, name=str(directory / name))
            except ValueError as exc:
                problems.append(str(exc))
            except RecursionError:  # e.g. 100,000 nested brackets: a problem, not a crash
                problems.append(f"{directory / name}: JSON nested too deeply to read")
    return problems


def _replay(args, directory: Path, stdout, stderr) -> int:
    """``harness.golden_replay`` does the replay (the candidate behind the wall); this
    writes the report files asked for (``harness.report``)."""
    from harness.golden_replay import ReplayOptions, replay
    from harness.golden_replay.report import to_report

    files = ("constrain_golden", "masks_golden") if args.file == "both" else (f"{args.file}_golden",)
    options = ReplayOptions(impl=args.impl, ref_deps=args.ref_deps, files=files, strict_regex=args.strict_regex,
                            strict=args.strict, timeout=args.timeout, memory=args.memory)

    def work(out, err) -> int:
        outcome = replay(options, directory, out, err)
        if not write_requested(args, to_report(outcome, options), err, prefix="golden replay: ") \
                and outcome.exit_code == ExitCode.OK:
            return int(ExitCode.USAGE)  # a requested report is missing: never exit 0
        return outcome.exit_code

    if args.impl is None:
        return work(stdout, stderr)  # the reference, in this process: nothing hostile runs
    from harness.sandbox.guard import guarded

    with confinement(args, "golden replay", stderr) as refused:
        if refused is not None:
            return refused
        # this process decodes what the candidate sends: the replay runs in a child, and the
        # harness's files are verified and restored here however it ends (a crash included)
        return guarded("golden replay", work, stdout, stderr)
