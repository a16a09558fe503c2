"""The entries of a schema collection: a folder (recursively) or one JSON-lines file.

Main access point: ``load_entries(path)`` -> list of ``Entry`` (id, source, schema, tests,
or the reason it could not be read).

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

Bounds: a file over ``MAX_FILE_BYTES`` (16 MiB), a document that is not JSON or nested
deeper than ``harness.argtypes.MAX_JSON_DEPTH``, or ``MAX_ENTRIES`` entries in all:
an entry with ``error`` set (the file is listed, never silently dropped), or a ValueError
past ``MAX_ENTRIES``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.argtypes import parse_json_text, read_text

__all__ = ["Entry", "MAX_ENTRIES", "MAX_FILE_BYTES", "load_entries", "source_of"]

MAX_FILE_BYTES = 16 << 20
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
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file())
        root = path
    elif path.is_file():
        files, root = [path], path.parent
    else:
        raise ValueError(f"{path} is neither a folder nor a file")
    entries: list[Entry] = []
    for file in files:
        entries += _entries_of(file, root)
        if len(entries) > MAX_ENTRIES:
            raise ValueError(f"{path} holds more than MAX_ENTRIES={MAX_ENTRIES} schemas")
    return entries


def source_of(file: Path, root: Path) -> str:
    relative = file.relative_to(root)
    if len(relative.parts) > 1:
        return "/".join(relative.parts[:-1])
    stem = file.stem
    if "---" in stem:
        return stem.split("---", 1)[0]
    return re.sub(r"_\d+$", "", stem) or stem


def _entries_of(file: Path, root: Path) -> list[Entry]:
    ident = str(file.relative_to(root))
    source = source_of(file, root)
    try:
        text = read_text(file, limit=MAX_FILE_BYTES)  # opened once, bounded, no FIFO or device
    except ValueError as exc:
        return [Entry(ident, source, error=f"unreadable: {' '.join(str(exc).split())[:200]}")]
    if file.suffix == ".jsonl":
        return [_entry(f"{ident}:{n}", source, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    return [_entry(ident, source, text)]


def _entry(ident: str, source: str, text: str) -> Entry:
    try:
        doc = parse_json_text(text, name=ident)
    except ValueError as exc:
        return Entry(ident, source, error=f"not JSON: {' '.join(str(exc).split())[:200]}")
    if isinstance(doc, dict) and "schema" in doc and ("tests" in doc or "meta" in doc):
        tests = [t for t in doc.get("tests") or [] if isinstance(t, dict) and "data" in t and "valid" in t]
        return Entry(ident, source, doc["schema"], tests)
    return Entry(ident, source, doc)
