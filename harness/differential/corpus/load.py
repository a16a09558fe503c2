"""The entries of a schema collection: a folder (recursively) or one JSON-lines file.

Main access points: ``iter_entries(path)`` yields each ``Entry`` (id, source, schema, tests,
or the reason it could not be read) as it is read, a JSON-lines file record by record, so a
collection of any size is read in bounded memory; ``entry_ids(path)`` the ids alone (for
counting and resuming); ``load_entries(path)`` the list.

Accepted layouts:

- a plain schema file (``*.json``): the whole document is the schema;
- a record file (``*.json``), as MaskBench's ``data/`` folder and JSONSchemaBench write
  them: ``{"description", "meta", "schema": {...}, "tests": [{"description", "valid",
  "data"}]}`` (a document is a record when it has ``schema`` and one of ``tests`` or ``meta``);
- a JSON-lines file (``*.jsonl``): one record or plain schema per line (id ``file:line``).

An entry's **source** is its folder relative to the collection's root (JSONSchemaBench:
``Github_easy``, ``Kubernetes``...); in a flat folder, the file name's prefix before
``---`` (MaskBench: ``Kubernetes---kb_1161.json``), else the name without a trailing
``_N`` (``BFCL_java_10`` -> ``BFCL_java``).

Bounds, per record (never per JSON-lines file: a 75 MB file of 11,305 records is read
whole): a ``.json`` file or a JSON-lines line over ``MAX_RECORD_BYTES`` (16 MiB), a record
that is not UTF-8 or not JSON or nested deeper than ``harness.argtypes.MAX_JSON_DEPTH``, a
file that is not a regular file: an entry with ``error`` set (listed, never silently
dropped); ``MAX_ENTRIES`` entries in all: a ValueError.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from harness.argtypes import parse_json_text, read_text

__all__ = ["Entry", "MAX_ENTRIES", "MAX_RECORD_BYTES", "entry_ids", "iter_entries", "load_entries", "source_of"]

MAX_RECORD_BYTES = 16 << 20
MAX_FILE_BYTES = MAX_RECORD_BYTES  # a .json file is one record
MAX_ENTRIES = 200_000


@dataclass
class Entry:
    id: str
    source: str
    schema: object = None
    tests: list[dict] = field(default_factory=list)
    error: str = ""

    def payload(self) -> dict:
        return {"id": self.id, "source": self.source, "schema": self.schema, "tests": self.tests,
                "error": self.error}


def load_entries(path: Path) -> list[Entry]:
    """Every entry of the collection at ``path`` (module docstring), in path order."""
    return list(iter_entries(path))


def _files(path: Path) -> tuple[list[Path], Path]:
    path = Path(path)
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()), path
    if path.is_file():
        return [path], path.parent
    raise ValueError(f"{path} is neither a folder nor a file")


def iter_entries(path: Path) -> Iterator[Entry]:
    """Each entry of the collection at ``path``, in path order, read as it is yielded."""
    files, root = _files(path)
    count = 0
    for file in files:
        for entry in _entries_of(file, root):
            count += 1
            if count > MAX_ENTRIES:
                raise ValueError(f"{path} holds more than MAX_ENTRIES={MAX_ENTRIES} schemas")
            yield entry


def entry_ids(path: Path) -> Iterator[str]:
    """The id of each entry, in order, without parsing a record (a JSON-lines file: its
    non-blank lines)."""
    files, root = _files(path)
    for file in files:
        ident = str(file.relative_to(root))
        if file.suffix != ".jsonl":
            yield ident
            continue
        for n, line in _lines(file):
            if isinstance(line, str) or line.strip():
                yield f"{ident}:{n}" if n else ident


def source_of(file: Path, root: Path) -> str:
    relative = file.relative_to(root)
    if len(relative.parts) > 1:
        return "/".join(relative.parts[:-1])
    stem = file.stem
    if "---" in stem:
        return stem.split("---", 1)[0]
    return re.sub(r"_\d+$", "", stem) or stem


def _entries_of(file: Path, root: Path) -> Iterator[Entry]:
    ident = str(file.relative_to(root))
    source = source_of(file, root)
    if file.suffix == ".jsonl":
        for n, line in _lines(file):
            if isinstance(line, str):  # the line could not be read: the reason
                yield Entry(f"{ident}:{n}" if n else ident, source, error=line)
            elif line.strip():
                yield _record(f"{ident}:{n}", source, line)
        return
    try:
        text = read_text(file, limit=MAX_RECORD_BYTES)  # opened once, bounded, no FIFO or device
    except ValueError as exc:
        yield Entry(ident, source, error=f"unreadable: {' '.join(str(exc).split())[:200]}")
        return
    yield _entry(ident, source, text)


def _lines(file: Path) -> Iterator[tuple[int, bytes | str]]:
    """(line number, its bytes) for each line of a JSON-lines file, read one at a time; a
    line over ``MAX_RECORD_BYTES`` is skipped to its end and given as a reason (a str);
    a file that cannot be opened, or is not a regular file, is line 0 with the reason."""
    try:
        handle = open(file, "rb", buffering=1 << 20)  # noqa: SIM115 - closed below, lines yielded lazily
    except OSError as exc:
        yield 0, f"unreadable: {exc.strerror or exc}"
        return
    with handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            yield 0, "unreadable: not a regular file (a device or a pipe is not read)"
            return
        n = 0
        while True:
            line = handle.readline(MAX_RECORD_BYTES + 1)
            if not line:
                return
            n += 1
            if len(line) > MAX_RECORD_BYTES:
                while line and not line.endswith(b"\n"):  # the rest of the long line, in bounded pieces
                    line = handle.readline(MAX_RECORD_BYTES)
                yield n, f"unreadable: the record is over MAX_RECORD_BYTES ({MAX_RECORD_BYTES >> 20} MiB)"
                continue
            yield n, line


def _record(ident: str, source: str, line: bytes) -> Entry:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Entry(ident, source, error=f"not UTF-8: {exc.reason} at byte {exc.start}")
    return _entry(ident, source, text)


def _entry(ident: str, source: str, text: str) -> Entry:
    try:
        doc = parse_json_text(text, name=ident)
    except ValueError as exc:
        return Entry(ident, source, error=f"not JSON: {' '.join(str(exc).split())[:200]}")
    if isinstance(doc, dict) and "schema" in doc and ("tests" in doc or "meta" in doc):
        tests = [t for t in doc.get("tests") or [] if isinstance(t, dict) and "data" in t and "valid" in t]
        return Entry(ident, source, doc["schema"], tests)
    return Entry(ident, source, doc)
