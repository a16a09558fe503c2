"""interegular (regex -> FSM over Unicode characters) behind the peer interface.

compile: ``parse_pattern(p).to_fsm().reduce()`` (exactly the pipeline the compile
benchmark times); accepts: the FSM walked over ``doc.decode("utf-8")``; viable: the
walk ends in a live state. interegular matches *characters*: a document that is
not well-formed UTF-8 is not a string in its world, so ``accepts`` and ``viable``
say False for it (classified "unicode-vs-bytes" when we disagree).

No schemas, no token masks (``can_schema = can_mask = False``).
"""

from __future__ import annotations

from harness.peers.base import Compiled, Peer, PeerRefused, PeerUnavailable, Source, package_version


def _import():
    try:
        import interegular
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise PeerUnavailable("interegular", "not installed: pip install 'constrain-harness[peers]'") from exc
    return interegular


def compile_fsm(pattern: str):
    """interegular's full compile: parse, build the FSM, reduce (minimize)."""
    return _import().parse_pattern(pattern).to_fsm().reduce()


class InteregularCompiled(Compiled):
    def __init__(self, source: Source, fsm):
        self.source = source
        self.fsm = fsm
        from interegular.fsm import anything_else

        self._else = anything_else

    def _walk(self, doc: bytes):
        try:
            text = doc.decode("utf-8")
        except UnicodeDecodeError:
            return None
        fsm = self.fsm
        state = fsm.initial
        for ch in text:
            if ch not in fsm.alphabet:
                if self._else not in fsm.alphabet:
                    return None
                ch = self._else
            row = fsm.map.get(state, {})
            symbol = fsm.alphabet[ch]
            if symbol not in row:
                return None
            state = row[symbol]
        return state

    def accepts(self, doc: bytes) -> bool:
        state = self._walk(doc)
        return state is not None and state in self.fsm.finals

    def viable(self, prefix: bytes) -> bool:
        state = self._walk(prefix)
        return state is not None and bool(self.fsm.islive(state))


class Interegular(Peer):
    name = "interegular"
    notes = "parse_pattern(p).to_fsm().reduce(); accepts over the UTF-8 decoded text"

    def __init__(self):
        mod = _import()
        self.version = package_version("interegular", mod)
        self.api = "interegular:parse_pattern(p).to_fsm().reduce(); interegular.fsm:anything_else"

    def compile_regex(self, pattern: str) -> InteregularCompiled:
        try:
            fsm = compile_fsm(pattern)
        except Exception as exc:  # interegular raises Unsupported, InvalidSyntax, and plain Exception
            raise PeerRefused(f"interegular refused {pattern!r}: {type(exc).__name__}: {exc}") from exc
        return InteregularCompiled(Source.regex(pattern), fsm)
