"""One golden replay: read the documents, run the comparisons against the reference here
or against a candidate behind the wall, print each ``ReplayReport``, say the exit code.

``replay(options, directory, stdout, stderr) -> ReplayOutcome``:

- the documents (``options.files``: ``constrain_golden``, ``masks_golden``,
  ``tools_golden``) are read and checked (format version, JSON Schema, nesting) before
  anything runs; a bad one is a usage error (exit 2) naming the file;
- without ``impl`` the reference runs in this process (``loading.reference``);
- with ``impl`` the candidate runs in a confined process (``harness.sandbox.Candidate``)
  and the comparisons get its module proxy; the calls are bounded by ``timeout`` CPU
  seconds of the candidate's process tree in all (wall time only the policy's backstop,
  ``BACKSTOP_FACTOR`` times that: a busy machine changes no verdict), the process by
  ``memory`` MB; a crash, a timeout or a module that
  cannot load is exit 3; afterwards the harness's files are verified and restored if
  they changed (exit 4, each change printed);
- otherwise exit 0 when every check passed, 1 when one failed.

Example::

    >>> replay(ReplayOptions(files=("masks_golden",)), GOLDEN_DIR, out, err).exit_code
    0
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.exitcodes import ExitCode
from harness.sandbox.text import escape

__all__ = ["ReplayOptions", "ReplayOutcome", "replay", "KINDS"]

KINDS = ("constrain_golden", "masks_golden", "tools_golden")


@dataclass(frozen=True)
class ReplayOptions:
    """What to replay and against what; ``files`` are document kinds of ``KINDS``
    (``tools_golden`` alone, or any of the other two)."""

    impl: str | None = None
    ref_deps: bool = False
    files: tuple[str, ...] = ("constrain_golden", "masks_golden")
    strict_regex: bool = False
    strict: bool = False  # the contract's decisions fail (else notes, as check's default tier)
    timeout: float = 600.0
    memory: int = 4096

    def __post_init__(self) -> None:
        unknown = [k for k in self.files if k not in KINDS]
        if unknown or not self.files:
            raise ValueError(f"ReplayOptions.files: kinds of {KINDS}, not {list(self.files)}")
        if "tools_golden" in self.files and len(self.files) > 1:
            raise ValueError("ReplayOptions.files: tools_golden is replayed alone (another contract)")

    @property
    def contract(self) -> str:
        return "tools" if self.files == ("tools_golden",) else "constrain"


@dataclass
class ReplayOutcome:
    """The exit code, the reports of the documents replayed (possibly fewer than asked
    when the run stopped), and the seconds it took."""

    exit_code: int
    reports: list = field(default_factory=list)
    seconds: float = 0.0
    confinement: str = ""


def replay(options: ReplayOptions, directory: Path, stdout, stderr) -> ReplayOutcome:
    start = time.monotonic()
    if options.impl is not None:
        outcome = _behind_wall(options, directory, stdout, stderr)
    else:
        outcome = _here(options, directory, stdout, stderr)
    outcome.seconds = time.monotonic() - start
    return outcome


def read_docs(files: tuple[str, ...], directory: Path, stderr) -> list[tuple[str, dict]] | None:
    """The documents to replay, read before any candidate runs; None (and the reason on
    ``stderr``) when one cannot be read."""
    from golden import fileformat
    from harness.files_in import MAX_GOLDEN_BYTES, read_text

    docs = []
    for kind in files:
        path = directory / fileformat.FILES[kind]
        try:  # a regular file of at most MAX_GOLDEN_BYTES, read once (a folder, a FIFO, /dev/zero: refused)
            docs.append((kind, fileformat.load(read_text(path, limit=MAX_GOLDEN_BYTES), kind, name=str(path))))
        except (OSError, ValueError) as exc:
            print(f"golden replay: {exc}", file=stderr)
            return None
        except RecursionError:  # e.g. 100,000 nested brackets
            print(f"golden replay: {path}: JSON nested too deeply to read", file=stderr)
            return None
    return docs


def compare(kind: str, doc: dict, impl, strict_regex: bool = False, strict: bool = False):
    """The replay report of one golden document against ``impl`` (a module or a proxy);
    ``strict``: the contract's decisions fail, else they are notes."""
    from golden import replay as constrain_replay
    from golden import tools_replay

    if kind == "tools_golden":
        return tools_replay.replay_tools(doc, impl, strict=strict)
    if kind == "constrain_golden":  # the wall hands tokenizers over as harness.suite.shapes describes them
        from harness.suite.shapes import SpecTokenizer

        return constrain_replay.replay_constrain(doc, impl, strict_regex=strict_regex, strict=strict,
                                                 tokenizer=SpecTokenizer)
    return constrain_replay.replay_masks(doc, impl, strict=strict)


def _here(options: ReplayOptions, directory: Path, stdout, stderr) -> ReplayOutcome:
    """The reference, in this process."""
    from harness.golden_replay.loading import reference

    docs = read_docs(options.files, directory, stderr)
    if docs is None:
        return ReplayOutcome(int(ExitCode.USAGE))
    impl = reference(options.files[0], options.ref_deps)
    outcome = ReplayOutcome(int(ExitCode.OK), confinement="none: the reference, in the grader's process")
    for kind, doc in docs:
        _show(outcome, compare(kind, doc, impl, options.strict_regex, options.strict), stdout)
    return outcome


def _show(outcome: ReplayOutcome, report, stdout) -> None:
    for line in report.lines():
        print(escape(line), file=stdout)
    outcome.reports.append(report)
    if not report.ok:
        outcome.exit_code = int(ExitCode.FAILED)


def _behind_wall(options: ReplayOptions, directory: Path, stdout, stderr) -> ReplayOutcome:
    """The comparisons here, the candidate in a confined process; files verified after."""
    from harness.paths import protected_roots
    from harness.sandbox import Candidate, Limits, bytecode
    from harness.sandbox.candidate import spec_problem

    problem = spec_problem(options.impl)
    if problem:
        print(f"golden replay: {problem}", file=stderr)
        return ReplayOutcome(int(ExitCode.USAGE))
    sys.dont_write_bytecode = True
    docs = read_docs(options.files, directory, stderr)
    if docs is None:
        return ReplayOutcome(int(ExitCode.USAGE))
    manifest = bytecode.take_manifest(protected_roots())  # the compiled modules written before it
    candidate = Candidate(options.impl, ref_deps=options.ref_deps, contract=options.contract,
                          limits=Limits(memory_mb=options.memory, call_seconds=options.timeout))
    try:
        outcome = _replay_candidate(options, candidate, docs, stdout, stderr)
    finally:
        candidate.close()
        changes = manifest.verify()
        if changes:
            manifest.restore()
    for change in changes:
        print(f"golden replay: TAMPERED: harness file {escape(change)}; restored", file=stderr)
    if changes:
        outcome.exit_code = int(ExitCode.TAMPERED)
    return outcome


def _replay_candidate(options: ReplayOptions, candidate, docs, stdout, stderr) -> ReplayOutcome:
    from harness.sandbox import CandidateGone, RemoteError

    try:
        load = candidate.start()
    except ValueError as exc:   # the candidate cannot be given to the sandbox as asked (e.g. its folder)
        print(f"golden replay: {escape(str(exc))}", file=stderr)
        return ReplayOutcome(int(ExitCode.USAGE))
    except (RemoteError, CandidateGone) as exc:
        print(f"golden replay: cannot load {options.impl!r}: {escape(str(exc))}", file=stderr)
        output = candidate.output()
        if output.strip():
            print("  " + output.strip()[-2000:].replace("\n", "\n  "), file=stderr)
        return ReplayOutcome(int(ExitCode.CRASHED))
    print(f"golden replay: confinement: {load['confinement']}", file=stdout)
    for problem in load["problems"]:
        print(f"golden replay: contract name missing or unusable: {escape(problem)}", file=stdout)
    outcome = ReplayOutcome(int(ExitCode.OK), confinement=load["confinement"])
    candidate.limit_cpu(options.timeout)  # CPU seconds in all; the wall clock only as the backstop
    try:
        for kind, doc in docs:
            report = compare(kind, doc, candidate.module, options.strict_regex, options.strict)
            if candidate.incident is not None:
                raise candidate.incident
            _show(outcome, report, stdout)
    except CandidateGone as exc:
        print(f"golden replay: {options.impl} {exc.verdict}: {escape(str(exc))}", file=stderr)
        outcome.exit_code = int(ExitCode.CRASHED)
    return outcome
