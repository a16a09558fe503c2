"""Findings about a peer engine: what a maintainer needs to see and reproduce it.

A ``Finding`` is one fact about one engine at one version, on one input:

- ``kind``: how the engine went wrong (``KINDS``): it crashed, hung or ran past a limit
  (``isolation.PeerFailed``), raised, failed to compile an input that is valid (and that
  its own error does not call unsupported), or gave an answer that the oracles contradict
  and no known design difference explains;
- ``source`` (the pattern or schema), ``op`` (what was asked: compile, accepts, mask...),
  ``witness`` (the document or prefix bytes, or None for a compile), ``oracles`` (what the
  independent oracles say, e.g. ``{"re.fullmatch": True}``) and ``engine`` (what the
  engine said or did, in words);
- a mask finding (``op`` "mask") also names the ``prefix`` (bytes), the ``token`` (its bytes,
  None for EOS), its ``token_id`` and the ``vocabulary`` it was asked over (e.g.
  "cl100k_base, 100277 ids, EOS 100257"); its ``witness`` is the prefix and token together.

Refusals that the engine's own error calls unsupported are not findings; they are kept
apart (``UNSUPPORTED``) so that a release that stopped supporting a construct shows up.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from harness.peers.base import Source

__all__ = ["Finding", "describe", "is_unsupported", "refusal_finding", "KINDS", "FAILED_ON_VALID", "UNSUPPORTED",
           "WRONG_ANSWER", "from_failure"]

FAILED_ON_VALID = "failed on valid input"
UNSUPPORTED = "unsupported"
WRONG_ANSWER = "wrong answer"
KINDS = ("crash", "hang", "cpu limit", "memory limit", "raised", FAILED_ON_VALID, WRONG_ANSWER)
"""Every kind of finding, most severe first."""


@dataclasses.dataclass
class Finding:
    peer: str
    version: str
    kind: str
    source: Source
    op: str
    engine: str
    witness: bytes | None = None
    oracles: dict[str, Any] = dataclasses.field(default_factory=dict)
    detail: str = ""
    prefix: bytes | None = None      # mask findings: the text before the token
    token: bytes | None = None       # mask findings: the token's bytes (None: EOS)
    token_id: int | None = None      # mask findings: its id in ``vocabulary``
    vocabulary: str = ""             # mask findings: which vocabulary, its size and EOS

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown finding kind {self.kind!r}; known: {', '.join(KINDS)}")

    def key(self) -> tuple:
        """What makes two findings the same (one is reported per key)."""
        return (self.peer, self.kind, self.source, self.op, self.witness)

    def to_json(self) -> dict[str, Any]:
        return {"peer": self.peer, "version": self.version, "kind": self.kind, "input_kind": self.source.kind,
                "input": self.source.text, "op": self.op,
                "witness": None if self.witness is None else list(self.witness),
                "witness_repr": None if self.witness is None else repr(self.witness),
                "oracles": self.oracles, "engine": self.engine, "detail": self.detail,
                **({"prefix": list(self.prefix), "prefix_repr": repr(self.prefix),
                    "token": None if self.token is None else list(self.token), "token_repr": repr(self.token),
                    "token_id": self.token_id, "vocabulary": self.vocabulary} if self.prefix is not None else {})}


def from_failure(exc, source: Source, witness: bytes | None = None) -> Finding:
    """The finding of an ``isolation.PeerFailed`` raised while asking ``source``."""
    what = {"crash": "crashed", "hang": "hung", "cpu limit": "ran past its CPU limit",
            "memory limit": "ran past its memory limit", "raised": "raised"}[exc.kind]
    oracles = {"expected": "an answer (every engine must answer or refuse, never fail)"}
    return Finding(exc.peer, exc.version, exc.kind, source, exc.op, f"{what}: {exc.detail}", witness, oracles)


def describe(f: Finding) -> str:
    """One line: engine, version, kind, input, witness, what the engine did."""
    what = f"{f.source.kind} {f.source.text[:200]!r}"
    on = "" if f.witness is None else f" on {f.witness[:200]!r}"
    return f"{f.peer} {f.version}: {f.kind} during {f.op} of {what}{on}: {f.engine[:300]}"


UNSUPPORTED_WORDS = re.compile(
    r"unsupported|not supported|not yet supported|unimplemented|not implemented|isn't supported"
    r"|is not allowed in this context|look-?around|backreferences? (are|is) not", re.IGNORECASE)
"""What an engine's own refusal says when the construct is outside what it supports
(interegular's ``Unsupported``, llguidance's "Unimplemented keys", outlines-core's
"Unsupported JSON Schema structure", Rust regex's "look-around ... is not supported"). A
refusal without such words, of an input that is valid, is a finding."""


def is_unsupported(message: str) -> bool:
    """Return True if and only if the refusal ``message`` says the construct is unsupported."""
    return UNSUPPORTED_WORDS.search(message) is not None


def refusal_finding(peer: str, version: str, source: Source, message: str, valid_because: str) -> Finding | None:
    """The finding of a refusal of ``source``, which is valid (``valid_because`` says which
    oracle says so, e.g. "ours compiles it"); None when the engine calls it unsupported."""
    if is_unsupported(message):
        return None
    return Finding(peer, version, FAILED_ON_VALID, source, "compile", f"refused: {' '.join(message.split())[:400]}",
                   None, {"valid": valid_because})
