"""A stand-in peer with one known escaping bug: it rejects every document holding a raw DEL
byte (0x7F). Otherwise it answers as the engines document: a pattern by Python ``re`` on the
UTF-8 text, a schema by ``json.loads`` and ``jsonschema``."""

from __future__ import annotations

import json
import re

import jsonschema

from harness.peers.base import Compiled, Peer, PeerRefused, Source


class WrongCompiled(Compiled):
    def __init__(self, source: Source, answer):
        self.source, self.answer = source, answer

    def accepts(self, doc: bytes) -> bool:
        if b"\x7f" in doc:
            return False  # the bug
        try:
            return self.answer(doc.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return False

    def viable(self, prefix: bytes) -> bool:
        return True


class Wrong(Peer):
    name, version = "wrong", "0.0.1"
    can_schema = True
    api = "wrong_peer.Wrong (a test double)"

    def compile_regex(self, pattern: str) -> WrongCompiled:
        try:
            rx = re.compile(pattern)
        except re.error as exc:
            raise PeerRefused(f"wrong: not supported: {exc}") from exc
        return WrongCompiled(Source.regex(pattern), lambda text: rx.fullmatch(text) is not None)

    def compile_schema(self, schema) -> WrongCompiled:
        validator = jsonschema.Draft202012Validator(schema)
        return WrongCompiled(Source.schema(schema), lambda text: validator.is_valid(json.loads(text)))


class RightCompiled(WrongCompiled):
    def accepts(self, doc: bytes) -> bool:
        try:
            return self.answer(doc.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return False


class Right(Wrong):
    """``Wrong`` without the bug: the majority that judges it where no oracle can."""

    name, version = "right", "1.0.0"
    api = "wrong_peer.Right (a test double)"

    def compile_schema(self, schema) -> RightCompiled:
        compiled = super().compile_schema(schema)
        return RightCompiled(compiled.source, compiled.answer)


class RightToo(Right):
    name, version = "right-too", "1.0.1"
