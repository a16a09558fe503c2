"""Write, check and replay the golden files (golden/masks_golden.json, golden/constrain_golden.json).

    constrain-harness golden write                 # regenerate golden/*.json and SHA256SUMS
    constrain-harness golden check                 # regenerate in memory; diff against the files
    constrain-harness golden replay                # replay both files against the reference
    constrain-harness golden replay --impl submission/constrain.py --file constrain

``write`` refuses to write anything when two oracles disagree (a finding: exit 1).
``check`` exits 1 with a unified diff when a committed file differs from the
regenerated one, or when a file fails its format version or JSON Schema.
``replay`` exits 1 when the implementation fails a check, 2 when it cannot be loaded
or does not implement the contract (``harness.candidate.check_contract``),
3 when it crashes, exceeds ``--timeout`` wall seconds or ``--memory`` MB. A candidate
given with ``--impl`` is untrusted: it runs in a child process (its own process group,
``RLIMIT_AS`` and ``RLIMIT_CPU``) over a private copy of the golden files, and the
verdict is refused (exit 1) if the copies or the originals change during the run (the
originals are then restored).
The reference (no ``--impl``) runs in-process.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.commands.args import existing_folder, megabytes, one_line_errors, output_folder, seconds
from harness.exitcodes import ExitCode

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
    p.add_argument("--file", choices=("both", "constrain", "masks"), default="both")
    p.add_argument("--strict-regex", action="store_true",
                   help="a schema's regex text must equal the recorded one (the Rust port's check)")
    p.add_argument("--dir", type=existing_folder, default=None, help="the golden directory (default: golden/)")
    p.add_argument("--timeout", type=seconds, default=600.0, help="wall seconds for a candidate's replay")
    p.add_argument("--memory", type=megabytes(256), default=4096, help="address-space limit (MB) for a candidate")
    p.add_argument("--in-process", action="store_true", help="run a candidate in this process (no child)")


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
    if args.impl is not None and not args.in_process:
        return _replay_in_child(args, directory, stdout, stderr)
    return _replay_here(args, directory, stdout, stderr)


def _digests(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.glob("*.json"))}


def _restore(directory: Path, saved: dict[str, bytes], stderr) -> bool:
    """Put back any golden file a candidate changed; True if one had changed."""
    changed = [name for name, data in saved.items()
               if not (directory / name).exists() or (directory / name).read_bytes() != data]
    for name in changed:
        (directory / name).write_bytes(saved[name])
        print(f"golden replay: {directory / name} was changed during the replay; restored", file=stderr)
    return bool(changed)


def _replay_in_child(args, directory: Path, stdout, stderr) -> int:
    spec = args.impl
    if os.path.exists(spec):
        spec = str(Path(spec).resolve())
    originals = _digests(directory)
    saved = {name: (directory / name).read_bytes() for name in originals}
    with tempfile.TemporaryDirectory(prefix="golden-replay-") as tmp:
        copy = Path(tmp) / "golden"
        copy.mkdir()
        for name in originals:
            shutil.copy(directory / name, copy / name)
        command = [sys.executable, "-m", "harness.cli", "golden", "replay", "--in-process", "--impl", spec,
                   "--file", args.file, "--dir", str(copy)]
        command += ["--ref-deps"] * args.ref_deps + ["--strict-regex"] * args.strict_regex
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(PACKAGE_ROOT), os.getcwd(),
                                                                          os.environ.get("PYTHONPATH")]))}
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True, preexec_fn=_limits(args.timeout, args.memory))
        try:
            out, err = proc.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            _restore(directory, saved, stderr)
            print(out, end="", file=stdout)
            print(f"golden replay: {args.impl} timed out after {args.timeout:g} s", file=stderr)
            return int(ExitCode.CRASHED)
        print(out, end="", file=stdout)
        print(err, end="", file=stderr)
        tampered = _restore(directory, saved, stderr)
        if _digests(copy) != originals or tampered:
            print("golden replay: the golden files changed during the replay: verdict refused", file=stderr)
            return int(ExitCode.FAILED)
    if proc.returncode < 0 or proc.returncode not in (0, 1, 2):
        print(f"golden replay: {args.impl} crashed (exit status {proc.returncode})", file=stderr)
        return int(ExitCode.CRASHED)
    return proc.returncode


def _limits(timeout: float, memory_mb: int):
    def apply() -> None:  # runs in the child before exec
        import resource

        cpu = int(timeout) + 30
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def _replay_here(args, directory: Path, stdout, stderr) -> int:
    from golden import fileformat, replay

    try:
        impl = replay.load_impl(args.impl, args.ref_deps)
    except Exception as exc:  # noqa: BLE001 - a candidate that cannot load is a usage verdict
        print(f"golden replay: cannot load {args.impl!r}: {type(exc).__name__}: {exc}", file=stderr)
        return int(ExitCode.USAGE)
    if args.impl is not None:
        from harness.candidate import check_contract

        problems = check_contract(impl)
        if problems:
            print(f"golden replay: {args.impl} does not implement the contract:", file=stderr)
            for problem in problems:
                print(f"  {problem}", file=stderr)
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
