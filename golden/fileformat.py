"""The golden file formats: names, version, loading, JSON Schemas, checksums.

Both files are JSON objects with ``format`` (``"masks_golden"`` or
``"constrain_golden"``) and ``format_version`` (``format_version(kind)``); ``load``
refuses any other version, so a reader never silently misreads a newer layout.
The fields are documented in ``golden/README.md`` and checked by the JSON Schemas
``golden/<name>.schema.json``.

Shared encodings (one place, used by the writer and the replay):

- bytes travel as lowercase hex strings (``"c3a9"`` is é), ``None`` as ``null``;
- a DFA is ``{"n_states", "accept": [bool], "trans": [[[lo, hi, target], ...]]}``:
  row ``s`` lists the byte ranges ``lo..hi`` (inclusive) that go to ``target``,
  ascending and maximal; a byte in no range goes to DEAD (-1).

Example::

    >>> dfa_record([[1] * 256, [-1] * 256], [False, True])["trans"]
    [[[0, 255, 1]], []]
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

FORMAT_VERSION = 1
"""The version of every format not in ``FORMAT_VERSIONS``."""
FORMAT_VERSIONS = {"constrain_golden": 3, "tools_golden": 2}
"""Per format: bump on any change a reader must know about; ``load`` refuses other
versions. constrain_golden 2: the port test's 15/11 refusals apart from
``refused_extra``, ``constrained_sample_hand_example``, ``no_eos``; constrain_golden 3: ``vocab_bytes``
(spec 002's ``vocab_bytes_marks_specials`` over cl100k_base's specials)."""

ERROR_NAMES = ("PatternSyntaxError", "UnsupportedSyntax", "EmptyLanguage", "PatternTooLarge", "SchemaError",
               "LimitExceeded", "ValueError")
"""The error kinds an ``error`` field of ``constrain_golden`` records (informative: a consumer
only requires a refusal). These are the reference's classes of format version 2; a finer class
added since (``SchemaUnsupported``, ``InvalidArgument``) is recorded as the first of these in its
method resolution order (``error_name``), so the file stays the same byte for byte."""


def error_name(exc: BaseException) -> str:
    """The ``ERROR_NAMES`` entry ``exc`` is recorded as, e.g. an ``SchemaUnsupported`` is
    ``"SchemaError"``, an ``InvalidArgument`` ``"ValueError"``; else its own class name."""
    for cls in type(exc).__mro__:
        if cls.__name__ in ERROR_NAMES:
            return cls.__name__
    return type(exc).__name__


GOLDEN_DIR = Path(__file__).resolve().parent
FILES = {"masks_golden": "masks_golden.json", "constrain_golden": "constrain_golden.json"}
SCHEMAS = {name: f"{name}.schema.json" for name in FILES}
FILES["tools_golden"] = "tools_golden.json"  # the L10.9 tool-calling surface: golden/tools_build.py
SCHEMAS["tools_golden"] = "tools_golden.schema.json"
CHECKSUMS = "SHA256SUMS"
DEAD = -1


class GoldenFormatError(ValueError):
    """A golden file that is not of the expected format or version, or invalid."""


def load(source, kind: str, *, validate: bool = True, name: str = "<text>") -> dict:
    """Parse a golden file (a ``pathlib.Path``, or the file's text as ``str``, then named
    ``name`` in errors) of format ``kind`` and check its version. (The verbs read the
    file themselves, once and bounded, with ``harness.files_in``, and pass the text.)

    Raises GoldenFormatError naming the file when the format or the version differs
    or (with ``validate``) the document does not satisfy the format's JSON Schema.
    """
    if kind not in FILES:
        raise ValueError(f"unknown golden format {kind!r}; known: {', '.join(FILES)}")
    if isinstance(source, Path):
        name, text = str(source), source.read_text(encoding="utf-8")
    else:
        text = source
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GoldenFormatError(f"{name}: not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != kind:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise GoldenFormatError(f"{name}: expected format {kind!r}, found {found!r}")
    if doc.get("format_version") != format_version(kind):
        raise GoldenFormatError(f"{name}: format_version {doc.get('format_version')!r} is not supported "
                                f"(this reader knows version {format_version(kind)}); regenerate or update the reader")
    if validate:
        errors = schema_errors(doc, kind)
        if errors:
            raise GoldenFormatError(f"{name}: does not satisfy {SCHEMAS[kind]}: " + "; ".join(errors[:5]))
    return doc


def format_version(kind: str) -> int:
    """The version of format ``kind`` this code writes and reads."""
    return FORMAT_VERSIONS.get(kind, FORMAT_VERSION)


def json_schema(kind: str) -> dict:
    """The JSON Schema (Draft 2020-12) of the golden format ``kind``."""
    return json.loads((GOLDEN_DIR / SCHEMAS[kind]).read_text(encoding="utf-8"))


def schema_errors(doc: dict, kind: str) -> list[str]:
    """Validation errors of ``doc`` under its JSON Schema, as ``pointer: message``."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(json_schema(kind))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    return ["/" + "/".join(str(p) for p in e.absolute_path) + ": " + e.message[:200] for e in errors]


# --------------------------------------------------------------------------- encodings

def hex_or_null(token: bytes | None) -> str | None:
    return None if token is None else bytes(token).hex()


def vocab_from_record(record: dict) -> list[bytes | None]:
    return [None if h is None else bytes.fromhex(h) for h in record["tokens_hex"]]


def dfa_record(trans, accept) -> dict:
    """A DFA's tables as a golden record (see the module docstring)."""
    trans = np.asarray(trans).tolist()
    return {"n_states": len(trans), "accept": [bool(a) for a in np.asarray(accept).tolist()],
            "trans": [_runs(row) for row in trans]}


def _runs(row: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for byte, target in enumerate(row):
        if target == DEAD:
            continue
        if runs and runs[-1][2] == target and runs[-1][1] == byte - 1:
            runs[-1][1] = byte
        else:
            runs.append([byte, byte, int(target)])
    return runs


def dfa_from_record(record: dict) -> tuple[np.ndarray, np.ndarray]:
    """``(trans int32 [S, 256], accept bool [S])`` from a golden DFA record."""
    n = record["n_states"]
    trans = np.full((n, 256), DEAD, dtype=np.int32)
    for s, runs in enumerate(record["trans"]):
        for lo, hi, target in runs:
            trans[s, lo:hi + 1] = target
    return trans, np.asarray(record["accept"], dtype=bool)


# --------------------------------------------------------------------------- checksums

def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def checksums_text(texts: dict[str, str]) -> str:
    """``SHA256SUMS`` in the ``sha256sum`` format, files sorted by name."""
    return "".join(f"{sha256(texts[name])}  {name}\n" for name in sorted(texts))
