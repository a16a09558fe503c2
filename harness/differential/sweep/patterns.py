"""The sweep's check of one pattern: the reference, the derivative oracle and Python's ``re``.

Main access point: the task function ``check_patterns(payload)`` (a chunk of patterns;
see ``harness.fanout.executor``), and ``check_pattern(pattern, context)`` for one.

For each pattern (this module only drives; what a pattern means is decided by each
implementation on its own, none of their code is shared):

1. **outcome**: ``oracles.automaton.regex_to_dfa`` and ``oracles.derivatives.canonical_dfa``
   build a table or refuse with the same error class (``PatternSyntaxError``,
   ``UnsupportedSyntax``, ``EmptyLanguage``, ...); Python's ``re`` refuses exactly the
   patterns both call ``PatternSyntaxError``; an ``EmptyLanguage`` pattern is one ``re``
   matches no string with. Any exception that is not a ``ValueError`` is a crash;
2. **tables**: the two canonical tables are equal (``trans`` and ``accept``); when they
   differ, the witness is the shortlex-least string one accepts and the other does not
   (a breadth-first search of the product of the two tables);
3. **strings**: on every string over the sweep's string alphabet up to ``max_len``, in
   shortlex order, the reference table, ``Oracle.matches`` and ``re.fullmatch`` on bytes
   agree; the first string where they do not is the witness (minimal by construction).
   Python's ``re`` backtracks exponentially on nested repeats (``(?:(?:(?:a*)*)+)*`` takes
   8 s on ``aaab``, one more level hangs), so the third opinion depends on the star height
   (repeats of more than one, nested, in Python's own parse, ``re._parser``): up to 1,
   ``re.fullmatch`` on bytes; 2 and 3, the ``regex`` module's ``fullmatch`` (same meaning on
   bytes, and fast there); from ``MAX_STAR_HEIGHT`` + 1 = 4 on, none (``regex`` too takes
   seconds per string: ``(?:(?:(?:(?:a*)*)+)*)?`` 7.7 s for the 127 strings up to 6): such
   patterns are counted under third opinion ``none (star height)``, checked by the two
   automaton oracles only. A ``REGEX_TIMEOUT`` backstop (wall seconds per string) remains:
   on a timeout the third opinion gives up on that pattern (``third_opinion_timeouts``
   counts the patterns), never counted as an agreement or a disagreement;
4. **masks**: over a small generated vocabulary (every string of one or two bytes of the
   alphabet, the extra string bytes alone, the empty token, a special (None), EOS), the
   reference ``TokenIndex.mask(state)`` equals ``Oracle.mask(vocab, eos, prefix)`` at
   every state, ``prefix`` being the state's shortlex-least access string;
5. **peers** (only when asked, never failing the run): each peer's ``accepts`` against
   ``re`` on the same strings; a difference is listed with its witness.

Work saved by the canonical DFA: the reference's answers on the strings and its masks
depend only on its table, so they are computed once per distinct table (a process-wide
cache of ``CACHE_TABLES`` tables); every pattern still gets its own derivative-oracle and
``re`` answers.

A disagreement is a dict ``{"pattern", "check", "witness", "answers", "detail"}``; the
witness is shown with ``repr`` of the bytes.
"""

from __future__ import annotations

import re
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import product

import numpy as np
import regex

from oracles import derivatives
from oracles.automaton import TokenIndex, regex_to_dfa

__all__ = ["check_patterns", "check_pattern", "strings_up_to", "sweep_vocabulary", "CACHE_TABLES"]

REGEX_TIMEOUT = 2.0
"""Wall seconds the ``regex`` module may spend on one string (a backstop; star height <= 3 never needed it)."""
MAX_STAR_HEIGHT = 3
"""Patterns of a greater star height get no third opinion (module docstring, step 3)."""
CACHE_TABLES = 4096
"""Distinct reference tables whose string answers and masks are kept (least recently used dropped)."""


def strings_up_to(alphabet: bytes, max_len: int) -> list[bytes]:
    """Every string over ``alphabet`` of length 0..``max_len``, shortlex order."""
    out = [b""]
    for n in range(1, max_len + 1):
        out += [bytes(t) for t in product(sorted(alphabet), repeat=n)]
    return out


WIDENED_LEN = 2
"""Widened strings: every string of the string alphabet up to this length with one boundary byte inserted."""


def widened_strings(alphabet: bytes, max_len: int) -> list[bytes]:
    """The strings the peers are asked beyond ``strings_up_to``: the boundary strings of
    ``harness.peers.given`` (metacharacters, controls, DEL, multi-byte and invalid UTF-8) and
    every string of ``alphabet`` up to ``WIDENED_LEN`` bytes with one boundary byte inserted
    anywhere (where escaping bugs live), each once, not already a sweep string."""
    from harness.peers.given import BOUNDARY_BYTES, boundary_strings

    base = set(strings_up_to(alphabet, max_len))
    out = list(boundary_strings())
    for s in strings_up_to(alphabet, min(WIDENED_LEN, max_len)):
        for i in range(len(s) + 1):
            out += [s[:i] + bytes([b]) + s[i:] for b in BOUNDARY_BYTES]
    return [s for s in dict.fromkeys(out) if s not in base]


def sweep_vocabulary(alphabet: bytes, extra: bytes) -> tuple[list[bytes | None], int]:
    """(vocab, eos_id): one- and two-byte strings of ``alphabet``, each byte of ``extra``,
    the empty token, a special (None) and EOS (the last id)."""
    vocab: list[bytes | None] = [bytes([b]) for b in alphabet] + [bytes([b]) for b in extra]
    vocab += [bytes(t) for t in product(alphabet, repeat=2)]
    vocab += [b"", None, None]
    return vocab, len(vocab) - 1


class _Context:
    """What every pattern of one sweep is checked on (built once per task)."""

    def __init__(self, payload: dict):
        self.alphabet = payload["alphabet"].encode("latin-1")
        self.string_bytes = payload["string_alphabet"].encode("latin-1")
        self.max_len = int(payload["max_len"])
        self.strings = strings_up_to(self.string_bytes, self.max_len)
        extra = bytes(b for b in self.string_bytes if b not in self.alphabet)
        self.vocab, self.eos_id = sweep_vocabulary(self.alphabet, extra)
        self.parents, self.last_bytes = _trie_arrays(self.strings)
        self.peers = _load_peers(payload.get("peers") or [])
        self.widened = widened_strings(self.string_bytes, self.max_len) if self.peers else []


def _trie_arrays(strings: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    index = {s: i for i, s in enumerate(strings)}
    parents = np.array([index[s[:-1]] if s else -1 for s in strings], dtype=np.int64)
    last = np.array([s[-1] if s else 0 for s in strings], dtype=np.int64)
    return parents, last


def _load_peers(names: list[str]) -> list:
    if not names:
        return []
    from harness.peers import available_peers
    loaded, _missing = available_peers(names)
    return loaded


_CONTEXTS: dict[tuple, _Context] = {}
_CACHE: OrderedDict[tuple, tuple[np.ndarray, list[np.ndarray]]] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def _context(payload: dict) -> _Context:
    key = (payload["alphabet"], payload["string_alphabet"], payload["max_len"], tuple(payload.get("peers") or ()))
    if key not in _CONTEXTS:
        _CONTEXTS[key] = _Context(payload)
    return _CONTEXTS[key]


def check_patterns(payload: dict) -> dict:
    """Task function: check every pattern of ``payload["patterns"]``; the record counts
    outcomes and third opinions and lists disagreements (``payload``: patterns, size,
    alphabet, string_alphabet, max_len, peers)."""
    context = _context(payload)
    start = time.thread_time()
    outcomes: dict[str, int] = {}
    third: dict[str, int] = {}
    record = {"size": payload["size"], "patterns": len(payload["patterns"]), "outcomes": outcomes,
              "third_opinion": third, "third_opinion_timeouts": 0, "disagreements": [], "peer_differences": []}
    for pattern in payload["patterns"]:
        result = check_pattern(pattern, context)
        outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
        third[result.third] = third.get(result.third, 0) + 1
        record["third_opinion_timeouts"] += result.timeouts
        record["disagreements"] += result.disagreements
        record["peer_differences"] += result.peer_differences
    record["cpu_seconds"] = round(time.thread_time() - start, 6)
    return record


@dataclass
class PatternResult:
    """What one pattern's check found: ``outcome`` "compiled" or the refusal's class name;
    ``third`` the third opinion that answered ("re", "regex", or "none" when re refused)."""

    outcome: str
    third: str = "none"
    timeouts: int = 0
    disagreements: list[dict] = field(default_factory=list)
    peer_differences: list[dict] = field(default_factory=list)


def check_pattern(pattern: str, context: _Context) -> PatternResult:
    """Check one pattern (module docstring, steps 1-5)."""
    ref, ref_error = _build(lambda: regex_to_dfa(pattern))
    der, der_error = _build(lambda: derivatives.canonical_dfa(pattern))
    third, re_error = _compile_re(pattern)
    result = PatternResult(ref_error or "compiled", third.name if third else "none")
    result.disagreements = _outcome_disagreements(pattern, ref_error, der_error, re_error)
    if result.disagreements or ref_error is not None:
        if not result.disagreements and ref_error == "EmptyLanguage" and third is not None:
            result.disagreements = _empty_language_check(pattern, third, context)
        return result
    trans, accept = der
    if not (np.array_equal(ref.trans, trans) and np.array_equal(ref.accept, accept)):
        witness = _product_witness(ref.trans, ref.accept, trans, accept)
        result.disagreements = [_disagreement(
            pattern, "tables", witness, reference=_accepts(ref.trans, ref.accept, witness),
            derivatives=_accepts(trans, accept, witness),
            detail=f"reference {len(ref.accept)} states, derivatives {len(accept)}")]
        return result
    ref_answers, ref_masks = _reference_answers(ref, context)
    oracle = derivatives.Oracle(pattern)
    result.disagreements, result.timeouts = _string_disagreements(pattern, ref_answers, oracle, third, context)
    result.disagreements += _mask_disagreements(pattern, ref, ref_masks, oracle, context)
    if context.peers:
        result.disagreements += _widened_disagreements(pattern, ref, third, context)
        result.peer_differences = _peer_differences(pattern, third, context)
    return result


def _build(build):
    try:
        return build(), None
    except ValueError as exc:
        return None, type(exc).__name__
    except Exception as exc:  # a crash is a finding, recorded with its class
        return None, f"crash:{type(exc).__name__}: {exc}"


class _ThirdOpinion:
    """``re.fullmatch`` on bytes (star height <= 1), the ``regex`` module's (2 and 3), or
    none (``usable`` False) above ``MAX_STAR_HEIGHT``."""

    def __init__(self, compiled_re):
        height = _star_height(compiled_re.pattern.decode("ascii"))
        self.usable = height <= MAX_STAR_HEIGHT
        self.by_regex = height >= 2
        self.name = "re" if height <= 1 else "regex" if self.usable else "none (star height)"
        self.compiled = regex.compile(compiled_re.pattern) if self.by_regex else compiled_re

    def fullmatch(self, data: bytes) -> bool | None:
        """True/False, or None: no opinion (star height, or ``regex`` ran past ``REGEX_TIMEOUT``)."""
        if not self.usable:
            return None
        if not self.by_regex:
            return self.compiled.fullmatch(data) is not None
        try:
            return self.compiled.fullmatch(data, timeout=REGEX_TIMEOUT) is not None
        except TimeoutError:
            self.usable = False  # give up on this pattern: at most one timeout each
            return None


def _star_height(pattern: str) -> int:
    try:  # Python 3.11+: re._parser; 3.10: sre_parse (the same module, its old name)
        from re import _parser as sre_parse
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_parse  # type: ignore[no-redef]
    MAX_REPEAT, MIN_REPEAT = sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT

    def height(items) -> int:
        best = 0
        for op, av in items:
            if op in (MAX_REPEAT, MIN_REPEAT):
                lo, hi, body = av
                best = max(best, height(body) + (1 if hi is None or hi == sre_parse.MAXREPEAT or hi > 1 else 0))
            elif isinstance(av, (list, tuple)):
                for sub in av:
                    if isinstance(sub, sre_parse.SubPattern):
                        best = max(best, height(sub))
                    elif isinstance(sub, (list, tuple)):
                        best = max(best, max((height(x) for x in sub if isinstance(x, sre_parse.SubPattern)),
                                             default=0))
        return best

    return height(sre_parse.parse(pattern))


def _compile_re(pattern: str):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _ThirdOpinion(re.compile(pattern.encode("ascii"))), None
    except re.error as exc:
        return None, f"re.error: {exc}"


def _outcome_disagreements(pattern: str, ref_error, der_error, re_error) -> list[dict]:
    answers = {"reference": ref_error or "compiled", "derivatives": der_error or "compiled",
               "re": "re.error" if re_error else "compiles"}
    crashed = [who for who in ("reference", "derivatives") if answers[who].startswith("crash:")]
    if crashed:
        return [_disagreement(pattern, "crash", None, detail=f"{', '.join(crashed)} crashed", **answers)]
    if ref_error != der_error:
        return [_disagreement(pattern, "outcome", None, detail="the two oracles disagree on refusing", **answers)]
    if (re_error is not None) != (ref_error == "PatternSyntaxError"):
        return [_disagreement(pattern, "outcome", None, detail=f"re: {re_error or 'compiles'}", **answers)]
    return []


def _empty_language_check(pattern: str, third, context: _Context) -> list[dict]:
    for s in context.strings:
        if third.fullmatch(s):  # None (no opinion) is not a match
            return [_disagreement(pattern, "match", s, reference="EmptyLanguage", derivatives="EmptyLanguage",
                                  **{third.name: True}, detail="both oracles call the language empty")]
    return []


def _reference_answers(ref, context: _Context) -> tuple[np.ndarray, list[np.ndarray]]:
    key = (id(context), ref.trans.tobytes(), ref.accept.tobytes())  # contexts live as long as the process
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    answers = _table_answers(ref.trans, ref.accept, context)
    index = TokenIndex(ref, context.vocab, context.eos_id)
    masks = [np.array(index.mask(s)) for s in range(ref.n_states)]
    with _CACHE_LOCK:
        _CACHE[key] = (answers, masks)
        while len(_CACHE) > CACHE_TABLES:
            _CACHE.popitem(last=False)
    return answers, masks


def _table_answers(trans: np.ndarray, accept: np.ndarray, context: _Context) -> np.ndarray:
    """bool per string: the table accepts it (strings in trie order: a parent first)."""
    states = np.zeros(len(context.strings), dtype=np.int64)
    for i in range(1, len(context.strings)):
        parent = states[context.parents[i]]
        states[i] = -1 if parent < 0 else trans[parent, context.last_bytes[i]]
    return (states >= 0) & accept[np.maximum(states, 0)]


def _string_disagreements(pattern, ref_answers, oracle, third, context: _Context) -> tuple[list[dict], int]:
    """(the first disagreement on the strings, if any; 1 if the third opinion timed out, else 0)."""
    had_opinion = third.usable
    for i, s in enumerate(context.strings):
        der = oracle.matches(s)
        py = third.fullmatch(s)
        answers = {"reference": bool(ref_answers[i]), "derivatives": der}
        if py is not None:
            answers[third.name] = py
        if len(set(answers.values())) > 1:
            return [_disagreement(pattern, "match", s, **answers)], int(had_opinion and not third.usable)
    return [], int(had_opinion and not third.usable)


def _mask_disagreements(pattern, ref, ref_masks, oracle, context: _Context) -> list[dict]:
    for state, prefix in enumerate(_access_strings(ref.trans)):
        theirs = oracle.mask(context.vocab, context.eos_id, prefix)
        ours = ref_masks[state]
        if not np.array_equal(ours, theirs):
            token = int(np.flatnonzero(ours != theirs)[0])
            shown = "EOS" if token == context.eos_id else repr(context.vocab[token])
            return [_disagreement(pattern, "mask", prefix, reference=bool(ours[token]), derivatives=bool(theirs[token]),
                                  detail=f"state {state}, token {token} ({shown})")]
    return []


def _access_strings(trans: np.ndarray) -> list[bytes]:
    """The shortlex-least string reaching each state (states are numbered breadth first)."""
    access: list[bytes | None] = [None] * len(trans)
    access[0] = b""
    queue = [0]
    for state in queue:
        for byte in range(256):
            target = int(trans[state, byte])
            if target >= 0 and access[target] is None:
                access[target] = access[state] + bytes([byte])
                queue.append(target)
    return [a if a is not None else b"" for a in access]


def _peer_differences(pattern: str, compiled_re, context: _Context) -> list[dict]:
    """Each peer's answers (in its child process: ``harness.peers.isolation``) against the
    third opinion on the sweep's strings and the widened ones (``widened_strings``); a
    difference that the peer's documented design explains (characters of UTF-8 text, or
    leftmost-first priority: ``harness.peers.classify``) is not listed, the first other one is,
    with its witness. A peer that crashes, hangs or runs past a limit is listed with what it did."""
    from harness.peers.findings import FAILED_ON_VALID, is_unsupported
    from harness.peers.isolation import PeerFailed

    if not compiled_re.usable:
        return []
    strings, expected = [], []
    for s in context.strings + context.widened:
        py = compiled_re.fullmatch(s)
        if py is not None:
            strings.append(s)
            expected.append(py)
    out = []
    for peer in context.peers:
        try:
            compiled = peer.compile_regex(pattern)
            theirs = compiled.accepts_all(strings) if strings else []
        except ValueError as exc:  # ours and re compile it: valid, unless the peer calls it unsupported
            if not is_unsupported(str(exc)):
                out.append({"pattern": pattern, "peer": peer.name, "version": peer.version, "witness": None,
                            "detail": f"{FAILED_ON_VALID}: {' '.join(str(exc).split())}"[:300]})
            continue
        except PeerFailed as exc:  # a peer's crash is its finding, listed, never ours
            if exc.op == "accepts_all":
                exc = _failing_string(compiled, strings) or exc
            out.append({"pattern": pattern, "peer": peer.name, "version": exc.version,
                        "witness": None if exc.op == "compile" else repr(exc.data),
                        "detail": f"{exc.kind} during {exc.op}: {exc.detail}"[:300]})
            continue
        for s, says, py in zip(strings, theirs, expected):
            if says != py and not _explained(pattern, s, says, peer.name):
                out.append({"pattern": pattern, "peer": peer.name, "version": peer.version, "witness": repr(s),
                            "peer_says": says, "re": py})
                break
    return out


def _explained(pattern: str, s: bytes, peer_says: bool, peer_name: str = "") -> bool:
    """Return True if and only if a documented design reproduces the peer's answer: ``re``
    on the UTF-8 text, the leftmost-first priority match (on text or bytes), or, for an
    engine whose own definition of ``\\d \\w \\s`` is ASCII (``classify.ascii_classes``:
    interegular), ``re`` on the text with ``re.ASCII``."""
    from harness.peers.classify import ascii_classes, fullmatch_text, leftmost_first

    try:
        return (peer_says == fullmatch_text(pattern, s) or peer_says == leftmost_first(pattern, s, text=True)
                or peer_says == leftmost_first(pattern, s, text=False)
                or ascii_classes(peer_name, pattern, s, peer_says, not peer_says) is not None)
    except (re.error, UnicodeEncodeError, RecursionError):
        return False


def _widened_disagreements(pattern: str, ref, third, context: _Context) -> list[dict]:
    """Our reference against the third opinion on the widened strings (asked only when
    peers are: ``widened_strings``): the first disagreement, with its witness."""
    for s in context.widened:
        py = third.fullmatch(s)
        if py is not None and bool(ref.matches(s)) != py:
            return [_disagreement(pattern, "match", s, reference=not py, **{third.name: py},
                                  detail="a widened string (a boundary byte)")]
    return []


def _failing_string(compiled, strings: list[bytes]):
    """The failure on the first string that fails alone (the batch failed on one of them)."""
    from harness.peers.isolation import PeerFailed

    for s in strings:
        try:
            compiled.accepts(s)
        except PeerFailed as exc:
            return exc
    return None


def _accepts(trans: np.ndarray, accept: np.ndarray, data: bytes | None) -> bool | None:
    if data is None:
        return None
    state = 0
    for byte in data:
        state = int(trans[state, byte])
        if state < 0:
            return False
    return bool(accept[state])


def _product_witness(trans_a, accept_a, trans_b, accept_b) -> bytes | None:
    """The shortlex-least string exactly one of the two tables accepts (None: none)."""
    start = (0, 0)
    seen = {start: b""}
    queue = [start]
    for a, b in queue:
        here = seen[(a, b)]
        if (a >= 0 and bool(accept_a[a])) != (b >= 0 and bool(accept_b[b])):
            return here
        for byte in range(256):
            nxt = (int(trans_a[a, byte]) if a >= 0 else -1, int(trans_b[b, byte]) if b >= 0 else -1)
            if nxt != (-1, -1) and nxt not in seen:
                seen[nxt] = here + bytes([byte])
                queue.append(nxt)
    return None


def _disagreement(pattern: str, check: str, witness: bytes | None, detail: str = "", **answers) -> dict:
    return {"pattern": pattern, "check": check, "witness": None if witness is None else repr(witness),
            "answers": answers, "detail": detail}
