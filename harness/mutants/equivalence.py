"""Equivalent mutants, decided by a machine where it can: the observable behaviour on a corpus.

A generated mutant that survives the catalogue is either a gap in the catalogue or a
program that behaves like the reference. ``fingerprint(module)`` records what the
contract lets a caller observe, on a corpus far wider than the catalogue's own inputs:

- for ~110 patterns (the catalogue's, the unsupported ones, 60 seeded random ones and
  edge cases: big repeats, every escape, byte ranges): the DFA tables (``trans``,
  ``accept``), ``matches``/``step`` on probe strings, or the error's class;
- for ~45 JSON schemas (inside and outside the subset): the regex text and its tables,
  or the error's class;
- masks and ``next_state`` of every (state, token) over the hand vocabulary and seeded
  random vocabularies; a ``Constraint`` walked by ``constrained_sample`` under six
  sampling parameter sets with seeded generators (tokens and logprobs to 1e-9);
- ``apply_mask``, ``sample``, ``SamplingParams`` validation, ``vocab_bytes``, the byte map;
- out-of-range states and tokens, wrong types: the error's class.

Errors are compared as the contract states them: ValueError or TypeError (any subclass),
other exceptions by class; *messages* are not compared (the contract never fixes the
text), so a mutant that only changes a message or a ValueError subclass is equivalent here; ``EQUIVALENCE_SCOPE`` says so in
every report. Two fingerprints are compared key by key (``compare``); the mutant is
"equal on the corpus" when every key agrees. That is a guess, not evidence: the runner calls
such a survivor equivalent only after ``harness.mutants.evidence`` finds it equal on its module's
exhaustive domain (else "survived (unproven)"); the
committed list (``equivalents.toml``, ``triage``) records, one line each, why a hand
reviewer accepted or refused each machine verdict, and the mutants no machine decided.

The fingerprint is computed in a child process (``python -m harness.mutants.equivalence
PACKAGE_DIR``), bounded by the runner's CPU limit and by ``FINGERPRINT_MEMORY_MB``, since a mutant
may hang, grow or crash.

Example::

    >>> import oracles.automaton as ref
    >>> a = fingerprint(ref)
    >>> compare(a, fingerprint(ref))
    []
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import operator
import os
import sys
from itertools import compress, repeat
from pathlib import Path
from typing import Any, Callable, Collection, Iterator

import numpy as np

EQUIVALENCE_SCOPE = ("equal tables, matches, regex texts, masks, next states, seeded samples and errors "
                     "(ValueError / TypeError / other class; messages not compared) on the corpus of "
                     "harness.mutants.equivalence")

EXTRA_PATTERNS = (
    "", "a", "ab|cd", "a*", "a?b+c*", "(a|b)*abb", "a{3}", "a{0,}", "a{0,1}", "a{1,1}", "a{2,5}b{0,3}", "(ab){2,3}",
    "a{40}", "[a-z]{1,8}", "(a|ab)(c|bcd)(d*)", r"\d\D\w\W\s\S", r"[\d\s]", r"[^\d]", r"[\W]", r"\t\n\r\f\v",
    r"\x00\x7f\xff", r"[\x00-\x1f]", r"[\x80-\xff]+", r"[^\x00-\x7f]", ".", ".*", "[.]", r"\.", "[-a]", "[a-]",
    "[]]", "[^]]", r"[\]]", "[a-a]", r"[\\]", "(?:a|b)c", "((a))", "(a|)", "(|a)", "a||b", "()", "x*y*z*",
    "[0-9]+(\\.[0-9]+)?", "(a*)*", "(a+)+b", "(a|b|c|d|e|f|g)+", '"(?:[^"\\\\]|\\\\.)*"',
    "(?i)a", "a{,3}", "a{2", "a{x}", "\\", "[z-a]", "(?P<n>a)", "\\p{L}", "\\u0041", "a**",
    r"\a", r"\f\v", r"[\a-\r]+", r"[\t\n]", r"\x41\x7e", r"[\x00\xff]", r"\0", r"\-\]\[", "(a{1000}){1000}",
    "a{1001}", "(((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))",
)
PROBES = (b"", b"\x08", b"\x07", b"\x04", b"A", b"A0", b"\n8", b"a", b"ab", b"abb", b"aab", b"cat", b"cars", b"dog", b"\n", b"\x00", b"\xff", b"_", b"0", b"9",
          b"aaa", b"aaaa", b"a" * 40, b"abab", b"ababab", b"1.2.3.4", b'"a\\"b"', b" , -12x", b"x@y.com",
          b"abcd", b"abcbcdd", b"a.c", b"zzz", b"]", b"-", b".")
EXTRA_SCHEMAS = (
    {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "null"}, {"type": "boolean"},
    {"type": "array", "items": {"type": "integer"}}, {"type": "array", "items": {"type": "integer"}, "maxItems": 2},
    {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 4},
    {"type": "array", "items": {"type": "boolean"}, "minItems": 0, "maxItems": 0},
    {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}},
    {"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}}, "required": ["b", "a"]},
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a"]},
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "null"}},
     "required": ["c"]},
    {"type": "object", "properties": {}}, {"type": "object"},
    {"enum": [2.5, "a\"b"]}, {"enum": [1.5e-05, 1e100, -0.0, 10, True, None]}, {"const": "x\\y\n"},
    {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "null"}}]},
    {"type": "string", "enum": ["a", "b"]}, {"enum": ["\u00e9", "\U0001f600"]}, {"type": "array"},
    {"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 1}, {"type": "array", "maxItems": -1},
    {"properties": {"a": {"type": "integer"}}}, [], "string", {"type": "object", "required": "a"},
)
PARAMS = ({"temperature": 0.0}, {"temperature": 1.0}, {"temperature": 0.7, "top_k": 3},
          {"temperature": 1.3, "top_p": 0.6}, {"temperature": 1.0, "repetition_penalty": 1.5},
          {"temperature": 0.5, "top_k": 2, "top_p": 0.9, "repetition_penalty": 0.8})
BAD_PARAMS = ({"temperature": -1.0}, {"top_k": -1}, {"top_p": 0.0}, {"top_p": 1.5}, {"repetition_penalty": 0.0},
              {"temperature": float("nan")}, {"temperature": float("inf")}, {"top_k": 1.5}, {"temperature": "1"},
              {"top_k": True}, {"repetition_penalty": -2.0})


def patterns() -> list[str]:
    from harness.suite.inputs import EQUIVALENT_PAIRS, RE_PATTERNS, SUPPORTED, UNSUPPORTED, random_patterns

    found = list(RE_PATTERNS) + [p for pair in EQUIVALENT_PAIRS for p in pair] + list(SUPPORTED)
    found += [p for p, _ in UNSUPPORTED] + list(EXTRA_PATTERNS) + random_patterns(20260, 60)
    from harness.suite.strength import ESCAPE_PATTERNS  # every escape of the subset, in and out of classes

    found += list(ESCAPE_PATTERNS) + [r"\18", r"(a)\18", r"\12", r"(a)(b)\2", r"\7", r"[\08]", r"\400", r"[\777]"]
    return list(dict.fromkeys(found))


def schemas() -> list:
    from harness.suite.inputs import TOOL_SCHEMA

    found = [TOOL_SCHEMA] + list(EXTRA_SCHEMAS)
    try:
        from harness.suite.test_schema import INSIDE, OUTSIDE  # the catalogue's own, when importable
        found += list(INSIDE) + [s for s, _ in OUTSIDE]
    except ImportError:
        pass
    return found


def _attempt(thunk: Callable[[], Any]) -> Any:
    try:
        return thunk()
    except Exception as exc:  # noqa: BLE001 - the class of any error is the observation
        return ["raised", _contract_class(exc)]


def _contract_class(exc: Exception) -> str:
    """The error as the contract sees it: ValueError or TypeError (any subclass), else its class."""
    for kind in (ValueError, TypeError):
        if isinstance(exc, kind):
            return kind.__name__
    return type(exc).__name__


def _table(dfa) -> Any:
    return [np.asarray(dfa.trans).tolist(), np.asarray(dfa.accept).tolist()]


def _dfa_facts(m, pattern: str) -> Any:
    dfa = m.regex_to_dfa(pattern)
    steps = [_attempt(lambda d=d: int(dfa.step(0, d))) for d in PROBES[:12]]
    return [_table(dfa), [_attempt(lambda d=d: bool(dfa.matches(d))) for d in PROBES], steps]


def _schema_facts(m, schema) -> Any:
    text = m.json_schema_to_regex(schema)
    return [text, _attempt(lambda: _table(m.regex_to_dfa(text)))]


def _index_facts(m, pattern: str, vocab, eos_id) -> Any:
    index = m.TokenIndex(m.regex_to_dfa(pattern), vocab, eos_id)
    n = m.regex_to_dfa(pattern).n_states
    masks = [np.flatnonzero(np.asarray(index.mask(s))).tolist() for s in range(n)]
    nexts = [[_attempt(lambda s=s, t=t: int(index.next_state(s, t))) for t in range(len(vocab))] for s in range(n)]
    bad = [_attempt(lambda: index.mask(n)), _attempt(lambda: index.mask(-2)), _attempt(lambda: index.next_state(0, len(vocab))),
           _attempt(lambda: index.next_state(0, -1)), _attempt(lambda: index.mask(True)), _attempt(lambda: index.mask("0")),
           _attempt(lambda: index.next_state(0, True)), _attempt(lambda: index.next_state(0, 1.0)),
           _attempt(lambda: index.next_state(True, 0)), _attempt(lambda: index.next_state(0.0, 0)),
           _attempt(lambda: index.next_state(0, "1")), _attempt(lambda: index.mask(1.0)),
           _attempt(lambda: index.next_state(np.int64(0), np.int32(0)))]
    return [masks, nexts, bad]


def _generation(m, pattern: str, vocab, eos_id, params: dict, seed: int) -> Any:
    index = m.TokenIndex(m.regex_to_dfa(pattern), vocab, eos_id)
    c = m.Constraint(index)
    rng, logits_rng = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    p, history, out = m.SamplingParams(**params), [], []
    for _ in range(24):
        if c.done:
            break
        logits = logits_rng.normal(size=len(vocab)) * 2
        token, logprob = m.constrained_sample(logits, c, p, history, rng, (1, 2))
        history.append(int(token))
        out.append([int(token), round(float(logprob), 9), bool(c.is_complete()), bool(c.done)])
    out.append(_attempt(lambda: m.constrained_sample(np.zeros(len(vocab)), c, p, history, rng)) if c.done else "open")
    return out


def _constraint_rules(m) -> Any:
    from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB

    index = m.TokenIndex(m.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    facts = []
    for path in ([0, 1, 2], [9, 7], [10], [10, 13], [12], [13], [9, 13, 0], [14, 9], [8, 2, 7, 13], [True], [9.0],
                 ["9"], [np.int64(9), np.int16(13)], [15], [-1]):
        c = m.Constraint(index)
        facts.append([_attempt(lambda t=t, c=c: [c.advance(t), int(c.state), bool(c.is_complete()), bool(c.done),
                                                np.flatnonzero(np.asarray(c.mask())).tolist()][1:]) for t in path])
    return facts


def _sampling_facts(m) -> Any:
    rng = np.random.default_rng(3)
    facts = [_attempt(lambda kw=kw: m.SamplingParams(**kw) and "ok") for kw in BAD_PARAMS]
    for logits, mask in (([1.0, 2.0, 3.0], [False, True, False]), (np.arange(20.0), np.arange(20) % 7 == 0),
                         (np.float32([1, 2]), [True, True]), ([1.0, 2.0], [False, False]), ([1.0, 2.0], [True]),
                         ([1.0, 2.0], [1, 0]), (["a"], [True]), (np.int64([3, 1, 2]), [True, True, False])):
        facts.append(_attempt(lambda: [np.asarray(m.apply_mask(logits, mask)).tolist(),
                                       str(np.asarray(m.apply_mask(logits, mask)).dtype)]))
    for kw in PARAMS:
        for logits in ([0.5, 0.5, 2.0, -1.0, 3.0, 3.0], [-np.inf, 1.0, -np.inf], [1.0, np.nan], [np.inf, 0.0],
                       [-np.inf, -np.inf]):
            facts.append(_attempt(lambda: [(int(t), round(float(lp), 9)) for t, lp in
                                           (m.sample(logits, m.SamplingParams(**kw), [4, 2], rng, [5])
                                            for _ in range(5))]))
    facts.append(_attempt(lambda: m.sample([1.0, 2.0], m.SamplingParams(), [7], rng)))
    return facts


def _vocab_facts(m) -> Any:
    table = m.bytes_to_unicode()
    facts = [sorted(table.items()), sorted(m.unicode_to_bytes().items())]
    for tokens, specials in ((["\u0120a", "b", "\u010a"], ()), (["a", "<|endoftext|>"], (1,)), (["\u00e9", "x"], ()),
                             (["\u0100", "\u0121\u0122"], ()), (["a"], (3,)), (["a", "b"], (-1,)), ([], ()),
                             (["", "\u0120"], (0,)), ([b"a"], ())):
        facts.append(_attempt(lambda: [None if b is None else list(b)
                                       for b in m.vocab_bytes(list(tokens), special_ids=set(specials))]))
    return facts


def _errors(m) -> Any:
    dfa = m.regex_to_dfa("ab")
    return [_attempt(lambda: dfa.step(99, b"a")), _attempt(lambda: dfa.step(-1, b"a")), _attempt(lambda: dfa.step(0, "a")),
            _attempt(lambda: dfa.step(True, b"a")), _attempt(lambda: dfa.matches("ab")),
            _attempt(lambda: m.regex_to_dfa(b"ab")), _attempt(lambda: m.regex_to_dfa(None)),
            _attempt(lambda: m.TokenIndex(dfa, [b"a", None], 5)), _attempt(lambda: m.TokenIndex(dfa, [b"a", "b"], None)),
            _attempt(lambda: m.TokenIndex(dfa, [b"a", None], True)), _attempt(lambda: m.Constraint(m.TokenIndex(dfa, [b"a"]), 9)),
            _attempt(lambda: m.DFA([[0] * 256], [True]).n_states), _attempt(lambda: m.DFA([[5] * 256], [True])),
            _attempt(lambda: m.DFA([[0] * 255], [True])), _attempt(lambda: m.DEAD),
            _attempt(lambda: dfa.step(1.0, b"a")), _attempt(lambda: dfa.step(np.int64(0), b"ab")),
            _attempt(lambda: dfa.step(0, bytearray(b"a"))), _attempt(lambda: dfa.matches(bytearray(b"ab"))),
            _attempt(lambda: m.Constraint(m.TokenIndex(dfa, [b"a"]), True)), _attempt(lambda: m.Constraint("index")),
            _attempt(lambda: m.constrained_sample([0.0], "c", m.SamplingParams(), [], np.random.default_rng(0))),
            _attempt(lambda: m.sample([0.0, 1.0], "p", [], np.random.default_rng(0))),
            _attempt(lambda: m.DFA(np.zeros((1, 256), np.int64), np.ones(1, bool)).trans.dtype.name),
            _attempt(lambda: m.regex_to_dfa("ab").trans.dtype.name), _attempt(lambda: m.regex_to_dfa("ab").accept.dtype.name)]


def _vocabularies():
    from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB, pattern_alphabet, random_vocab

    yield HAND_PATTERN, HAND_VOCAB, HAND_EOS
    for i, pattern in enumerate(("[a-c]+x?", r'"([^"\\\n]|\\.)*"', r"\d{1,3}(\.\d{1,3}){3}", "(ab|c)+d*", "a.c",
                                 '\\{"k":(true|false)\\}')):
        vocab, eos_id = random_vocab(np.random.default_rng(100 + i), pattern_alphabet(pattern), n_multi=60,
                                     all_bytes=i != 1)
        yield pattern, vocab, eos_id
    yield "ab", [b"a", b"ab", b"b", b"a", None, b""], None


def entries(m) -> Iterator[tuple[str, Callable[[], Any]]]:
    """The corpus as (key, thunk) in corpus order: each thunk computes that key's value alone,
    from the module ``m`` and the harness's inputs (no state passes between keys but the
    module's own caches), so a subset of keys can be computed (``fingerprint(m, keys)``)."""
    from harness.suite.inputs import TOOL_SCHEMA

    for pattern in patterns():
        yield f"regex {pattern!r}", lambda pattern=pattern: _dfa_facts(m, pattern)
    for i, schema in enumerate(schemas()):
        yield f"schema #{i} {json.dumps(schema)[:60]}", lambda schema=schema: _schema_facts(m, schema)
    for pattern, vocab, eos_id in _vocabularies():
        yield (f"masks {pattern!r} |V|={len(vocab)}",
               lambda pattern=pattern, vocab=vocab, eos_id=eos_id: _index_facts(m, pattern, vocab, eos_id))
        if eos_id is not None:
            for j, params in enumerate(PARAMS):
                yield (f"generation {pattern!r} {params}",
                       lambda pattern=pattern, vocab=vocab, eos_id=eos_id, params=params, j=j:
                       _generation(m, pattern, vocab, eos_id, params, 7 * j))
    vocab, eos_id = _tool_vocab()
    for j, params in enumerate(PARAMS[:3]):   # the tool schema's regex raising: every one of these keys raises
        yield (f"generation tool schema {params}",
               lambda params=params, j=j: _generation(m, m.json_schema_to_regex(TOOL_SCHEMA), vocab, eos_id, params, j))
    yield "constraint rules", lambda: _constraint_rules(m)
    yield "sampling", lambda: _sampling_facts(m)
    yield "vocab", lambda: _vocab_facts(m)
    yield "errors", lambda: _errors(m)


def fingerprint(m, keys: Collection[str] | None = None) -> dict[str, Any]:
    """What a caller can observe of module ``m`` on the corpus (only ``keys``, when given): key -> JSON-able value."""
    return {key: _attempt(thunk) for key, thunk in entries(m) if keys is None or key in keys}


def first_difference(m, reference: dict[str, str]) -> tuple[list[str], int]:
    """The first key of ``reference`` (a ``digest``, or part of one) on which ``m`` differs
    ([] when none does), computing the keys in corpus order and stopping there; and how many
    keys were computed. A key of ``reference`` the corpus lacks counts as a difference."""
    computed, seen = 0, set()
    for key, thunk in entries(m):
        seen.add(key)
        if key in reference:
            computed += 1
            if _hash(_attempt(thunk)) != reference[key]:
                return [key], computed
    return [key for key in reference if key not in seen][:1], computed


def _tool_vocab():
    words = [b'{"', b'":', b'",', b'"', b"city", b"days", b"units", b"metric", b"imperial", b"lat", b"alerts", b"tags",
             b"true", b"false", b"[", b"]", b",", b"}", b"-", b".", b"e", b"Paris", b" "]
    vocab = [bytes([b]) for b in range(32, 127)] + words + [None]
    return vocab, len(vocab) - 1


def digest(facts: dict[str, Any]) -> dict[str, str]:
    """The fingerprint as key -> sha256 of its canonical JSON (small enough to pass between processes)."""
    return {k: _hash(v) for k, v in facts.items()}


def _hash(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=repr).encode()).hexdigest()[:24]


def compare(reference: dict[str, Any], mutant: dict[str, Any]) -> list[str]:
    """The keys on which the two fingerprints (or digests) differ, in corpus order."""
    return [k for k in reference if reference.get(k) != mutant.get(k)] + [k for k in mutant if k not in reference]


def record(package_dir: Path) -> dict[str, Any]:
    """The reference's fingerprint, and the lines of it each key executes (``coverage``).

    Returns ``{"digest": {key: hash}, "lines": {key: {file: [line, ...]}}, "import": {file:
    [line, ...]}}``: ``import`` holds the lines run while the package and every module of it were
    imported (before any key: the package imports its modules lazily, so they are imported
    here first, and a module-level statement is never counted to one key only). Each key is computed with the package's ``functools`` caches cleared first, so its
    lines include everything it executes from a fresh start (a cache a key reads is filled by
    lines of its own): a key whose lines miss a mutated statement computes the same value on
    the mutant as on the reference, and need not be computed (``first_difference``).
    """
    with covered_package(package_dir) as (cov, module):
        facts = {}
        for key, thunk in entries(module):
            _clear_caches(module)
            cov.switch_context(key)
            facts[key] = _attempt(thunk)
    data = cov.get_data()
    paths = list(data.measured_files())
    # each file's lines by context, from one query a file (contexts_by_lineno), not one a key and file
    by_context: dict[str, dict[str, list[int]]] = {path: {} for path in paths}
    for path in paths:
        for line, contexts in data.contexts_by_lineno(path).items():
            for context in contexts:
                by_context[path].setdefault(context, []).append(line)
    lines: dict[str, dict[str, list[int]]] = {}
    for context in ["", *facts]:
        for path in paths:
            found = by_context[path].get(context)
            if found:
                lines.setdefault(context, {})[Path(path).name] = sorted(found)
    return {"digest": digest(facts), "import": lines.pop("", {}), "lines": lines}


@contextlib.contextmanager
def covered_package(package_dir: Path):
    """``(cov, module)``: a running ``coverage.Coverage`` measuring only the package's own files
    (its context ``""``), and the package loaded from ``package_dir`` (``apply.load``) with every
    module of it imported under that coverage (the package imports its modules lazily: imported
    here first, a module-level statement is never counted to one key or item only). Coverage
    stops when the block ends, on an error too; read ``cov.get_data()`` after it.
    ``record`` (the corpus's keys) and ``evidence.record_lines`` (the evidence's items) share it."""
    import coverage

    from harness.mutants.apply import load

    package_dir = Path(package_dir).resolve()
    cov = coverage.Coverage(data_file=None, include=[str(package_dir / "*.py")], config_file=False)
    cov.start()
    try:
        module = load(package_dir)
        for path in sorted(package_dir.glob("*.py")):
            if path.stem != "__init__":
                importlib.import_module(f"{module.__name__}.{path.stem}")
        yield cov, module
    finally:
        cov.stop()


def _clear_caches(module) -> None:
    """Empty every ``functools`` cache of the package ``module``'s modules (the package's own first,
    then its modules in the order of ``sys.modules``): the ``cache_clear`` of each value of their
    globals that has a callable one.

    Called before each item of a recorded domain or corpus (``record``, ``evidence.record_lines``,
    the infection map: thousands of calls a record, under coverage's tracer), so the walk over
    ``sys.modules`` (700 to 2,000 modules in a test worker) and over the globals is made by
    built-ins (``compress``, ``map``, ``filter``), which run no line of Python: 0.45 -> 0.31 ms a
    call under coverage in a process of 757 modules (2026-12-08)."""
    name = module.__name__
    found = list(sys.modules.items())
    subs = compress(map(operator.itemgetter(1), found),
                    map(operator.methodcaller("startswith", name + "."), map(operator.itemgetter(0), found)))
    own = sys.modules.get(name)
    for sub in ([] if own is None else [own]) + list(subs):
        for clear in filter(callable, map(getattr, list(vars(sub).values()), repeat("cache_clear"), repeat(None))):
            clear()


FINGERPRINT_MEMORY_MB = 2048
"""Address space the fingerprint child may take past what it holds when it starts
(``RLIMIT_AS``, set by ``main``): a mutant that allocates without end (a parser mutant that
loops, seen growing ~25 MB a second) meets ``MemoryError`` there, an observation like any
error, instead of growing until its CPU limit (30-120 CPU s). The reference's fingerprint
needs some 300 MB."""


def _bound_memory() -> None:
    """``RLIMIT_AS`` at this process's size plus ``FINGERPRINT_MEMORY_MB`` (never above a hard
    limit already set); nothing where ``/proc`` or the limit is missing."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[0])
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = pages * os.sysconf("SC_PAGE_SIZE") + (FINGERPRINT_MEMORY_MB << 20)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError):
        return


def main(argv: list[str]) -> int:
    """``PACKAGE`` prints its digest; ``PACKAGE --against FILE`` the first key on which it
    differs from FILE's digest (``first_difference``: ``{"differs": [...], "computed": n}``);
    ``PACKAGE --record`` the reference's ``record``. The process's memory is bounded first
    (``FINGERPRINT_MEMORY_MB``)."""
    from harness.mutants.apply import load

    _bound_memory()

    if argv[1:2] == ["--record"]:
        print(json.dumps(record(Path(argv[0]))))
        return 0
    module = load(Path(argv[0]))
    if argv[1:2] == ["--against"]:
        reference = json.loads(Path(argv[2]).read_text(encoding="utf-8"))
        differs, computed = first_difference(module, reference)
        print(json.dumps({"differs": differs, "computed": computed}))
        return 0
    print(json.dumps(digest(fingerprint(module))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
