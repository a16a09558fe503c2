"""The resumable state of a mutant run (``mutants --state FILE [--resume]``).

JSON lines: the first line says what the run is (format, the options that decide the
results, the build digest of the harness and the reference, ``executor.build_digest``);
every other line is one mutant's result (``tasks.result_to_json``), appended as it arrives
with a single ``write`` on an ``O_APPEND`` descriptor, then ``fsync``. So a run killed at
any point leaves whole records and at most one partial last line, which reading ignores
(a line that does not end in a newline, cut off when the state is resumed, or is not a
JSON object with an ``id``): a half-written record is never read. A mutant rerun (a retried task) appends a second line
for its id; the last one wins, and both are the same record.

The header also records the Python that ran it (``python``: ``major.minor``): a generated
mutant's verdict can depend on it (the reference reads a pattern as that Python's ``re`` does,
and some of its code runs only on 3.10 or 3.12+), so ``--resume`` on another Python is a
ValueError naming both; runs of one plan on several Pythons are merged instead
(``harness.mutants.merge``).

``--resume`` keeps the results of a state written with the same options and the same
build (else a ValueError saying what differs), and runs only the mutants it lacks; without
``--resume`` the file is started afresh.

Example::

    >>> state = MutantState.open(Path("run.state.jsonl"), {"mode": "generated", "seed": 1}, resume=True)
    >>> sorted(state.results)[:2]
    ['compile.NumberReplacer.0', 'dfa.SwapArguments.3']
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

FORMAT = "constrain-harness-mutant-state"
FORMAT_VERSION = 1
MAX_STATE_BYTES = 512 << 20   # a state past this is not one of ours (6,100 mutants take ~10 MB)


class MutantState:
    def __init__(self, path: Path, options: dict, records: dict[str, dict]):
        self.path, self.options = Path(path), options
        self.records = records        # mutant id -> its result record
        self._lock = threading.Lock()

    @property
    def results(self) -> dict:
        from harness.mutants.runner import result_from_json

        return {key: result_from_json(record) for key, record in self.records.items()}

    @classmethod
    def open(cls, path: Path, options: dict, resume: bool) -> MutantState:
        from harness.fanout.executor import build_digest
        from harness.mutants.coverage import python_version

        path = Path(path)
        options = {**options, "build": build_digest()}
        if resume and path.exists():
            return cls(path, options, _load(path, options))
        header = {"format": FORMAT, "format_version": FORMAT_VERSION, "options": options, "python": python_version()}
        partial = path.with_name(path.name + ".partial")
        partial.write_text(json.dumps(header, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(partial, path)
        return cls(path, options, {})

    def save(self, record: dict) -> None:
        line = (json.dumps(record, sort_keys=True) + "\n").encode("utf-8")
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
            self.records[record["id"]] = record


def _load(path: Path, options: dict) -> dict[str, dict]:
    from harness.mutants.coverage import python_version

    with open(path, "rb") as f:
        data = f.read(MAX_STATE_BYTES + 1)
    header, records = parse(data, path, "--resume")
    if not data.endswith(b"\n"):        # cut it off, so the next append starts a line of its own
        os.truncate(path, data.rfind(b"\n") + 1)
    if header.get("python") != python_version():
        raise ValueError(f"--resume: {path} was run on Python {header.get('python', '(not recorded)')}, this is "
                         f"Python {python_version()}: a verdict can depend on the Python; run it on that Python, "
                         f"or start afresh without --resume and merge the runs (--merge)")
    theirs = header.get("options", {})
    differ = sorted(k for k in set(options) | set(theirs) if options.get(k) != theirs.get(k))
    if differ:
        raise ValueError(f"--resume: {path} was written with other options ({', '.join(differ)}); "
                         f"run with the same options, or without --resume to start afresh")
    return records


def read(path: Path, what: str) -> tuple[dict, dict[str, dict]]:
    """The header and records of the ``--state`` file ``path`` (at most ``MAX_STATE_BYTES`` read;
    ``parse``), for a reader that only reads it (``--merge``, ``scope_figures``); a ValueError
    beginning with ``what`` when it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_STATE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"{what}: cannot read {path}: {exc.strerror or exc}") from None
    return parse(data, path, what)


def parse(data: bytes, path: Path, what: str) -> tuple[dict, dict[str, dict]]:
    """(header, mutant id -> its last record) of a state's bytes; a ValueError naming ``path`` (and
    ``what`` reads it) when it is not a constrain-harness mutant state."""
    if len(data) > MAX_STATE_BYTES:
        raise ValueError(f"{what}: {path} is larger than {MAX_STATE_BYTES >> 20} MB: not a mutant state")
    complete = data.split(b"\n")[:-1]   # after the last newline: nothing, or a line cut short (ignored)
    try:
        header = json.loads(complete[0]) if complete else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT or \
            header.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{what}: {path} is not a constrain-harness mutant state (version {FORMAT_VERSION})")
    records: dict[str, dict] = {}
    for line in complete[1:]:
        try:
            record = json.loads(line)
        except ValueError:
            continue   # a torn line in the middle (a crash during a write, then appends): never read
        if isinstance(record, dict) and isinstance(record.get("id"), str) and "outcome" in record:
            records[record["id"]] = record
    return header, records
