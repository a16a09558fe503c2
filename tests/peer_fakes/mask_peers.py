"""Stand-in peers with token masks, for judging masks where ours refuses the input (loaded
by the peers' child process, ``harness.peers.isolation.EXTRA_PATHS``).

``TextA`` and ``TextB`` answer as the engines document: a pattern matches characters of
UTF-8 text (``regex`` partial matching for masks; a token whose text is cut inside a
character is allowed when the text before the cut is viable). ``OneTokenWrong`` is the same
with one known bug: it allows the token ``b"!"`` after every prefix but the empty one.
"""

from __future__ import annotations

import numpy as np
import regex

from harness.peers.base import Compiled, Masker, Peer, PeerRefused, Source, check_prefix, check_vocab

BAD_TOKEN = b"!"


def _text(data: bytes) -> str | None:
    """The text of ``data`` without a truncated last character; None when not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data[:exc.start].decode("utf-8") if exc.reason == "unexpected end of data" else None


class TextMasker(Masker):
    def __init__(self, compiled: "TextCompiled", vocab, eos_id, bad_token: bytes | None):
        self.compiled, self.vocab, self.eos_id, self.bad = compiled, check_vocab(vocab, eos_id), eos_id, bad_token
        self.vocab_size = len(self.vocab)

    def allowed(self, prefix_ids) -> np.ndarray:
        ids = check_prefix(prefix_ids, self.vocab_size, self.eos_id)
        prefix = b"".join(self.vocab[t] or b"" for t in ids)
        out = np.zeros(self.vocab_size, dtype=bool)
        for t, tok in enumerate(self.vocab):
            if t == self.eos_id:
                out[t] = self.compiled.accepts(prefix)
            elif tok:
                out[t] = (tok == self.bad and prefix != b"") or self.compiled.viable(prefix + tok)
        return out


class TextCompiled(Compiled):
    def __init__(self, pattern: str, bad_token: bytes | None):
        self.source, self.bad = Source.regex(pattern), bad_token
        try:
            self.rx = regex.compile(pattern)
        except regex.error as exc:
            raise PeerRefused(f"text peer: not supported: {exc}") from exc

    def accepts(self, doc: bytes) -> bool:
        try:
            return self.rx.fullmatch(doc.decode("utf-8")) is not None
        except UnicodeDecodeError:
            return False

    def viable(self, prefix: bytes) -> bool:
        text = _text(prefix)
        return text is not None and self.rx.fullmatch(text, partial=True) is not None

    def masker(self, vocab, eos_id) -> TextMasker:
        return TextMasker(self, vocab, eos_id, self.bad)


class TextA(Peer):
    name, version = "text-a", "1.0"
    can_mask = True
    api = "mask_peers.TextA (a test double)"
    bad_token: bytes | None = None

    def compile_regex(self, pattern: str) -> TextCompiled:
        return TextCompiled(pattern, self.bad_token)


class TextB(TextA):
    name, version, api = "text-b", "2.0", "mask_peers.TextB (a test double)"


class OneTokenWrong(TextA):
    name, version, api = "one-wrong", "0.1", "mask_peers.OneTokenWrong (a test double)"
    bad_token = BAD_TOKEN
