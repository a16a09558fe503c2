"""The grader's memo of its own oracles' answers, filled once in a mutant worker's warm grader.

A generated mutant's catalogue run is a fork of its worker's warm grader (``harness.mutants.warm``)
and runs under the fixed run seed 0, so wherever the mutant answers as the reference does, the
grader asks its oracles the same questions in every run: the brute-force masks of the same tables,
``re`` compiling the same patterns, the same seeded vocabularies and enum. This module keeps those
answers where every fork inherits them:

- **what is kept** (``ORACLES``): pure functions of the grader's own code, each answer keyed by
  every input it reads (arrays by dtype, shape and bytes; a generator by its bit generator's whole
  state, which a kept answer also sets to the state the call left): ``brute_force`` (the spec's
  masks, ``harness.suite.definitions``), ``same_language`` (``test_canonical_form``'s check of its
  pairs), ``check_document`` (``json`` + ``jsonschema``, ``oracles.stdlib``), ``large_enum`` (the
  5,000 seeded words of ``strength.check_large_enum_schema``, keyed by the run seed),
  ``random_vocab`` (``harness.suite.inputs``), ``re_probes`` and ``live_probes`` (a table's seeded
  probe strings with ``re``'s or ``regex``'s answer for each) and ``re_disagreement``
  (``golden.readings.first_disagreement_with_re``). Beside them, ``re``'s own cache of compiled
  patterns. Nothing whose answer depends on CPU time or on a cache's state is kept (the derivative
  oracle spends a work budget that its caches lower, ``oracles.stdlib.within_cpu`` a CPU budget);
- **how it is filled, and why that is sound with fork**: a child's memory never comes back to its
  parent, so the answers must be in the warm grader itself before it forks. It is filled lazily, by
  the runs themselves: each default-tier catalogue run a warm grader forks (``records``) writes down,
  as it runs, the inputs of each ``answer`` the memo missed (``begin_recording``; never an answer),
  and, when the run passed every test (pytest's exit 0: the mutant answered as the reference
  wherever a test looked), writes them and ``re``'s newly cached patterns out (``end_recording``).
  After that fork ends, the warm grader reads the inputs (``fill_from``: MessagePack,
  ``harness.sandbox.channel``, data only) and computes every answer itself, with the same functions
  (``fill``): an answer in the memo is always the function's own for its key, whatever a run did;
  later forks inherit it. A run that fails (a killed mutant's own questions, which no later run
  asks) keeps nothing. So a run pays only for the answers it used, computed once more in the warm
  grader (~0.5 CPU s for the whole default tier's), where a recording run of the reference's whole
  default tier cost 4-5 CPU s (its candidate included) before the first fork (until 2026-12-07).
  That CPU is counted in the record of the mutant whose run was read;
- **where it is used**: ``answer(name, *args)`` at the oracles' call sites. With the memo empty
  (every process but a warm grader's forks: ``constrain-harness check``, a cold mutant process,
  the project's tests) it is the function's call, nothing else: what a student's ``check`` does is
  unchanged. In a fork, an input that misses (a mutant that answers otherwise) is computed as
  before. A kept answer is handed out as a fresh copy (arrays, lists), so a test that changes what
  it got changes nothing the next call sees;
- **bounds**: at most ``MAX_ENTRIES`` answers and ``MAX_BYTES`` of their arrays, bytes and text
  (past them, answers are computed as before); ``re``'s cache keeps its own bound (512 patterns).

``CONSTRAIN_HARNESS_NO_ORACLE_MEMO=1`` (``OFF_VARIABLE``): nothing recorded, the memo stays empty
(the slow path, to compare verdicts). The memo never crosses the wall: it lives in grader
processes only, and the candidate is asked exactly what it was asked before.
"""

from __future__ import annotations

import json
import os
import re

import numpy as np

__all__ = ["OFF_VARIABLE", "MAX_ENTRIES", "MAX_BYTES", "ORACLES", "answer", "begin_recording", "end_recording",
           "fill", "fill_from", "forget", "records", "size", "wanted"]

OFF_VARIABLE = "CONSTRAIN_HARNESS_NO_ORACLE_MEMO"
MAX_ENTRIES = 20_000
MAX_BYTES = 128 << 20

_MISSING = object()
_MEMO: dict[tuple, object] = {}   # (oracle name, key) -> answer, filled only by ``fill``
_SIZE = [0]   # bytes of the kept answers (estimated)
_RECORDING: list | None = None   # in a recording fork: the missed calls' (name, inputs as data), in order
_RE_BEFORE: set[tuple] = set()   # in a recording fork: ``re``'s patterns cached when it began
_PREPARED: list[str] = []   # what the warm grader kept, run by run (``said``)


# ---------------------------------------------------------------- the oracles kept


def _array_key(array) -> tuple:
    array = np.asarray(array)
    return (array.dtype.str, array.shape, array.tobytes())


def _rng_state(rng) -> dict | None:
    """The whole state of ``rng``'s bit generator when it is numpy's default (PCG64), else None."""
    if not isinstance(rng, np.random.Generator) or type(rng.bit_generator) is not np.random.PCG64:
        return None
    return rng.bit_generator.state


def _rng_from(state: dict) -> np.random.Generator:
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = state
    return rng


def _brute_force(trans, accept, vocab, eos_id):
    from harness.suite.definitions import brute_force

    return brute_force(trans, accept, vocab, eos_id)


def _same_language(left, right):
    from harness.suite.definitions import same_language_counterexample

    return same_language_counterexample(left, right)


def _check_document(schema, text):
    from oracles.stdlib import check_document

    return check_document(schema, text)


def _under_the_seed(compute):
    """``compute()`` (which draws from ``harness.suite.seeding``) under the run seed ``seed``, as a
    session of that seed would run it."""
    def computed(seed):
        from harness.suite import session

        before = list(session._IN_FORCE)
        session.use(session.CatalogueState(seed=seed))
        try:
            return compute()
        finally:
            session._IN_FORCE[:] = before
    return computed


def _drawing(compute):
    """``compute(rng, *rest)``, answering also the state its draws leave ``rng`` in."""
    def computed(rng, *rest):
        return (*compute(rng, *rest), rng.bit_generator.state)
    return computed


def _schema_text(schema) -> str | None:
    from oracles.stdlib import _schema_key

    return _schema_key(schema)


class _Oracle:
    """One kept function: ``compute(*args)``; ``key(*args)`` (None: not kept, computed); ``fresh(answer,
    *args)``: what a caller gets from a kept answer (a copy; and any state the call changes, set);
    ``to_data(*args)`` / ``from_data(data)``: the inputs as channel data and back; ``size(answer)``."""

    def __init__(self, compute, key, fresh, to_data, from_data, size):
        self.compute, self.key, self.fresh = compute, key, fresh
        self.to_data, self.from_data, self.size = to_data, from_data, size


def _vocab_key(vocab) -> tuple | None:
    if not all(token is None or type(token) is bytes for token in vocab):
        return None
    return tuple(vocab)


def _brute_force_key(trans, accept, vocab, eos_id):
    vocab_key = _vocab_key(vocab)
    if vocab_key is None or not (eos_id is None or type(eos_id) is int):
        return None
    return (_array_key(trans), _array_key(accept), vocab_key, eos_id)


def _random_vocab_key(rng, alphabet, n_multi, all_bytes):
    state = _rng_state(rng)
    if state is None or type(alphabet) is not bytes or type(n_multi) is not int or type(all_bytes) is not bool:
        return None
    return (json.dumps(state, sort_keys=True), alphabet, n_multi, all_bytes)


def _random_vocab_fresh(answer, rng, *_):
    vocab, eos_id, after = answer
    rng.bit_generator.state = after
    return list(vocab), eos_id


def _check_document_key(schema, text):
    schema_text = _schema_text(schema)
    if schema_text is None or type(text) not in (str, bytes):
        return None
    return (schema_text, type(text).__name__, text)


def _probes(kind: str):
    """``(pattern, trans, accept, rng, walks) -> (strings, answers, the state rng is left in)``: the
    probe strings of the table (``golden.readings.probe_strings``, drawn from ``rng``, by length) and
    the oracle's answer for each: ``re.fullmatch`` (``"re"``, ``test_matches_python_re``) or, for the
    first 300, ``regex`` partial matching (``"live"``, ``test_every_state_is_live``)."""
    def computed(pattern, trans, accept, rng, walks):
        from golden.readings import by_length, probe_strings

        strings = by_length(probe_strings(trans, accept, rng, walks))
        if kind == "re":
            oracle = re.compile(pattern.encode("ascii"))
            answers = [oracle.fullmatch(data) is not None for data in strings]
        else:
            from oracles.stdlib import partial_match

            strings = strings[:300]
            answers = [partial_match(pattern, data) for data in strings]
        return strings, answers, rng.bit_generator.state
    return computed


def _probes_key(pattern, trans, accept, rng, walks):
    state = _rng_state(rng)
    if state is None or type(pattern) is not str or type(walks) is not int:
        return None
    return (pattern, _array_key(trans), _array_key(accept), json.dumps(state, sort_keys=True), walks)


def _probes_fresh(answer, pattern, trans, accept, rng, walks):
    strings, answers, after = answer
    rng.bit_generator.state = after
    return list(strings), list(answers)


def _disagreement(pattern, trans, accept, extra):
    from golden.readings import first_disagreement_with_re

    return first_disagreement_with_re(pattern, trans, accept, extra=extra)


def _disagreement_key(pattern, trans, accept, extra):
    if type(pattern) is not str or not all(type(data) is bytes for data in extra):
        return None
    return (pattern, _array_key(trans), _array_key(accept), tuple(extra))


def _probes_oracle(kind: str) -> _Oracle:
    return _Oracle(_probes(kind), _probes_key, _probes_fresh,
                   lambda pattern, trans, accept, rng, walks: [pattern, np.asarray(trans), np.asarray(accept),
                                                               _rng_state(rng), walks],
                   lambda data: (data[0], data[1], data[2], _rng_from(data[3]), data[4]),
                   lambda answer: sum(len(data) + 50 for data in answer[0]))


ORACLES: dict[str, _Oracle] = {
    "brute_force": _Oracle(
        _brute_force, _brute_force_key, lambda answer, *_: (answer[0].copy(), answer[1].copy()),
        lambda trans, accept, vocab, eos_id: [np.asarray(trans), np.asarray(accept), list(vocab), eos_id],
        lambda data: (data[0], data[1], list(data[2]), data[3]),
        lambda answer: answer[0].nbytes + answer[1].nbytes),
    "same_language": _Oracle(
        _same_language, lambda left, right: (left, right) if type(left) is str and type(right) is str else None,
        lambda answer, *_: answer, lambda left, right: [left, right], tuple,
        lambda answer: 8 + len(answer or b"")),
    "check_document": _Oracle(
        _check_document, _check_document_key, lambda answer, *_: answer,
        lambda schema, text: [json.dumps(schema), text], lambda data: (json.loads(data[0]), data[1]),
        lambda answer: 100 + len(answer.reason)),
    "re_probes": _probes_oracle("re"),
    "live_probes": _probes_oracle("live"),
    "re_disagreement": _Oracle(
        _disagreement, _disagreement_key, lambda answer, *_: answer,
        lambda pattern, trans, accept, extra: [pattern, np.asarray(trans), np.asarray(accept), list(extra)],
        lambda data: (data[0], data[1], data[2], tuple(data[3])), lambda answer: 8 + len(answer or b"")),
}
"""The functions kept, by name (module docstring); ``seeded`` and ``drawn`` add those of the modules
this one cannot import (``harness.suite.strength``, ``harness.suite.inputs``: they call ``answer``)."""


def seeded(name: str, compute, size) -> None:
    """Keep ``compute()``, a function of the run seed alone (``harness.suite.seeding``), as the oracle
    ``name``: ``answer(name, seed)``, a fresh list of its items each time; ``size(answer)`` its bytes."""
    ORACLES[name] = _Oracle(_under_the_seed(compute), lambda seed: seed if type(seed) is int else None,
                            lambda answer, *_: list(answer), lambda seed: [seed], tuple, size)


def drawn(name: str, compute) -> None:
    """Keep ``compute(rng, alphabet, n_multi, all_bytes) -> (vocab, eos_id)``, which draws from ``rng``,
    as the oracle ``name``, keyed by ``rng``'s whole state (numpy's default bit generator only); a kept
    answer sets ``rng`` to the state the draws left it in."""
    ORACLES[name] = _Oracle(
        _drawing(compute), _random_vocab_key, _random_vocab_fresh,
        lambda rng, alphabet, n_multi, all_bytes: [_rng_state(rng), alphabet, n_multi, all_bytes],
        lambda data: (_rng_from(data[0]), data[1], data[2], data[3]),
        lambda answer: sum(len(token or b"") + 40 for token in answer[0]))


# ---------------------------------------------------------------- the call sites' side


def answer(name: str, *args):
    """``ORACLES[name]``'s answer for ``args``: the kept one (a fresh copy) when the memo holds it,
    else computed here; while recording (``begin_recording``), a missed call's inputs are written
    down first."""
    oracle = ORACLES[name]
    key = _MISSING
    if _MEMO:
        key = oracle.key(*args)
        if key is not None:
            kept = _MEMO.get((name, key), _MISSING)
            if kept is not _MISSING:
                return oracle.fresh(kept, *args)
    if _RECORDING is not None:
        _record(name, oracle, args, key)
    found = oracle.compute(*args)
    if oracle.fresh in (_random_vocab_fresh, _probes_fresh):
        return found[:2]   # a drawn answer: less the state its draws left the generator in
    return found


def _record(name: str, oracle: _Oracle, args, key=_MISSING) -> None:
    try:
        if (oracle.key(*args) if key is _MISSING else key) is not None:
            _RECORDING.append([name, oracle.to_data(*args)])
    except Exception:  # noqa: BLE001 - an input that cannot be written down is simply not kept
        pass


def fill(calls) -> int:
    """Compute, here, the answer of each ``[name, inputs as data]`` of ``calls`` (and ``["re", [pattern,
    flags]]``: ``re.compile``, into ``re``'s own cache) and keep it, within the bounds: the count
    kept. An unknown name, inputs of the wrong shape or a call that raises are skipped."""
    kept = 0
    for call in calls:
        try:
            name, data = call
            if name == "re":
                pattern, flags = data
                if type(pattern) in (str, bytes) and type(flags) is int:
                    re.compile(pattern, flags)
                continue
            oracle = ORACLES[name]
            args = oracle.from_data(data)
            key = oracle.key(*args)
            if key is None or (name, key) in _MEMO:
                continue
            if len(_MEMO) >= MAX_ENTRIES:
                break
            found = oracle.compute(*args)
            size = oracle.size(found) + sum(len(part) for part in _flat_bytes(key))
            if _SIZE[0] + size > MAX_BYTES:
                continue
            _MEMO[(name, key)] = found
            _SIZE[0] += size
            kept += 1
        except Exception:  # noqa: BLE001 - what cannot be computed here is computed by the run, as before
            continue
    return kept


def _flat_bytes(key):
    for part in key if isinstance(key, tuple) else (key,):
        if isinstance(part, (bytes, str)):
            yield part
        elif isinstance(part, tuple):
            yield from _flat_bytes(part)


def size() -> tuple[int, int]:
    """(answers kept, their estimated bytes)."""
    return len(_MEMO), _SIZE[0]


def forget() -> None:
    """Empty the memo (the project's tests)."""
    _MEMO.clear()
    _SIZE[0] = 0


def _re_patterns() -> list[list]:
    """``re``'s cached patterns as ``["re", [pattern, flags]]`` calls, each once (its caches' keys
    are ``(type, pattern, flags)`` on every Python the project runs; anything else is left out; a
    pattern may be in both of 3.12+'s caches, ``_cache`` and ``_cache2``)."""
    found, seen = [], set()
    for cache in (getattr(re, "_cache", None), getattr(re, "_cache2", None)):
        for key in list(cache or ()):
            if isinstance(key, tuple) and len(key) == 3 and type(key[1]) in (str, bytes) and key not in seen:
                try:
                    found.append(["re", [key[1], int(key[2])]])
                except (TypeError, ValueError):
                    continue
                seen.add(key)
    return found


# ---------------------------------------------------------------- the warm grader's side


def wanted(env: dict[str, str]) -> bool:
    """Whether a warm grader should record and fill the memo: not turned off (``OFF_VARIABLE``, in
    this process's environment or the run's ``env``)."""
    return os.environ.get(OFF_VARIABLE) != "1" and env.get(OFF_VARIABLE) != "1"


def records(argv: list[str]) -> bool:
    """Whether a catalogue run of ``argv`` (pytest arguments) writes down the inputs of the calls the
    memo misses (``begin_recording``): a run of the default tier (its ``--run`` not deep). The deep
    pass's Hypothesis-drawn inputs are not kept, as before."""
    if "--run" not in argv[:-1]:
        return False
    from harness.run import CatalogueRun

    return not CatalogueRun.from_json(argv[argv.index("--run") + 1]).deep


def begin_recording() -> None:
    """In a catalogue run's fork: from now on, write down the inputs of each ``answer`` the memo
    misses (``end_recording`` writes them out)."""
    global _RECORDING
    _RECORDING = []
    _RE_BEFORE.clear()
    _RE_BEFORE.update((type(call[1][0]), *call[1]) for call in _re_patterns())


def end_recording(path: str) -> int:
    """Write the calls written down since ``begin_recording``, and ``re``'s patterns compiled since,
    to ``path`` (MessagePack, whole or not at all); stop recording. The calls written."""
    global _RECORDING
    from harness.sandbox.channel import pack

    calls = (_RECORDING or []) + [call for call in _re_patterns() if (type(call[1][0]), *call[1]) not in _RE_BEFORE]
    _RECORDING = None
    partial = path + ".part"
    with open(partial, "wb") as out:
        out.write(pack(calls))
    os.replace(partial, path)
    return len(calls)


def fill_from(path: str) -> int:
    """``fill`` from a recording fork's file (none, or not whole: nothing kept): the answers kept."""
    from harness.sandbox.channel import decode

    try:
        with open(path, "rb") as f:
            calls = decode(f.read())
    except Exception:  # noqa: BLE001 - no record: nothing kept, the runs compute as before
        calls = None
    kept = fill(calls) if isinstance(calls, list) else 0
    _PREPARED.append(f"{kept} answers kept from {len(calls) if isinstance(calls, list) else 0} calls")
    return kept


def said() -> str:
    """What this warm grader prepared (for a developer's eye)."""
    return "; ".join(_PREPARED) or "nothing"
