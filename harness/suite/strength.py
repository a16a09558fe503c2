"""Strengthenings of the catalogue that generated survivors showed were missing.

Each function takes the implementation under test (``impl``) and raises
``CatalogueFailure`` (an ``AssertionError``, through ``harness.suite.explain.fail``) when
the implementation departs from what the spec states. Each asserts only what the
spec's description of its catalogue test says, against an oracle computed here (numpy
arithmetic, Python's ``re``, ``json``), never against the reference's internals. Its
docstring names the catalogue test it belongs to (the lead calls it from there) and the
generated survivor of ``mutants --generated --sample 200 --seed 1`` it kills.

Where the spec is silent and only the contract decides (an error class, an input shape
beyond the spec's), a check records the departure through ``tiers.decision`` instead: a
note in the default tier, a failure under ``--strict``; so a submission that follows the
spec to the letter never fails a check in the default tier.

``CHECKS`` lists them: (function, catalogue test, survivor ids). ``tests/suite/test_strength.py``
shows each passes on the reference, never fails a fairness-gallery candidate in the default
tier, and kills its survivors.

Example::

    >>> import oracles.automaton as ref
    >>> check_apply_mask_sparse(ref)   # passes: returns None
"""

from __future__ import annotations

import numpy as np

from harness.sandbox import Fresh, call_many, repeat_call
from harness.suite import oracle_memo, session
from harness.suite.explain import fail
from harness.suite.inputs import CONSTRAINT_SHAPES, known_constraint_shape, make_constraint
from harness.suite.seeding import seeded_rng
from harness.suite.tiers import decision

ESCAPE_PATTERNS = (r"\a", r"\f", r"\n", r"\r", r"\t", r"\v", r"[\a\f]", r"[\n-\r]", r"[^\t\v]", r"\x07\x0b",
                   r"\d", r"\D", r"\w", r"\W", r"\s", r"\S", r"[\s\d]", r"[^\w]", r"\.", r"\\", r"\-", r"[\]\[]",
                   r"[\b]", r"[a\b]", r"\0", r"\012", r"\101", r"\1010", r"[\4]", r"[\101]", r"\08", r"[\0-\7]")
_PROBE_BYTES = bytes([0x00, 0x04, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x30, 0x37, 0x38, 0x41, 0x61, 0x5F, 0x20, 0x80, 0xFF])


def check_escapes_mean_what_python_means(impl) -> None:
    """test_matches_python_re ("the regex subset means what Python means"), for every
    escape of the subset: control escapes, ``[\\b]`` (backspace in a class), octal
    escapes, the class escapes.

    The catalogue's ten patterns use \\d \\w \\s \\S \\. but no control, octal or
    in-class escape. Oracle: Python's ``re.fullmatch`` on bytes, over every one-byte
    string and the two-byte strings of 16 probe bytes. Kills: see ``CHECKS``.
    """
    import re

    probes = [bytes([b]) for b in range(256)] + [bytes([a, b]) for a in _PROBE_BYTES for b in _PROBE_BYTES]
    for pattern in ESCAPE_PATTERNS:
        oracle = re.compile(pattern.encode("ascii"))
        dfa = _compiled_or_noted(impl, pattern)
        for data, matched in () if dfa is None else each_match(dfa, probes):
            want = oracle.fullmatch(data) is not None
            if matched != want:
                fail("an escape matches other bytes than in Python's re", pattern=pattern, data=data,
                     expected=want, got=not want)


REPEAT_FORMS = ("a{,3}", "a{0}", "a{0,}", "(ab){,2}c", "[ab]{1,}", "a{2,2}")


def check_repeat_forms_mean_what_python_means(impl) -> None:
    """test_matches_python_re ("the regex subset means what Python means"), for the
    repeat forms the ten patterns do not use: ``{,n}``, ``{0}``, ``{0,}``, ``{n,n}``.

    Oracle: Python's ``re.fullmatch`` on bytes, over the strings of a, b, c up to length 6.
    Kills: see ``CHECKS``.
    """
    import itertools
    import re

    probes = [bytes(t) for n in range(7) for t in itertools.product(b"abc", repeat=n)]
    for pattern in REPEAT_FORMS:
        oracle, dfa = re.compile(pattern.encode("ascii")), _compiled_or_noted(impl, pattern)
        for data, matched in () if dfa is None else each_match(dfa, probes):
            want = oracle.fullmatch(data) is not None
            if matched != want:
                fail("a repeat form matches other strings than in Python's re", pattern=pattern, data=data,
                     expected=want, got=not want)


def each_match(dfa, probes):
    """``(data, bool(dfa.matches(data)))`` for each of ``probes``, in order: one round trip
    for them all (``call_many``: hundreds of probes cost one call's latency, not hundreds);
    when the batch raises, one call at a time, so a mismatch before the input that raises
    still decides, as in a plain loop."""
    try:
        got = call_many(dfa.matches, [(data,) for data in probes])
    except Exception:  # noqa: BLE001 - replayed one at a time below, where it raises again
        got = None
    if got is None:
        for data in probes:
            yield data, bool(dfa.matches(data))
        return
    for data, matched in zip(probes, got):
        yield data, bool(matched)


# the spec lists \\d \\w \\s, classes, ., groups and {m,n}; these forms are Python's too: refusing
# one is a contract decision (a note), accepting it with another meaning is wrong in both tiers
SPEC_LISTED = {r"\d", r"\D", r"\w", r"\W", r"\s", r"\S", r"[\s\d]", r"[^\w]", r"\.", r"\\", "[ab]{1,}", "a{2,2}"}


def _compiled_or_noted(impl, pattern: str):
    """``impl.regex_to_dfa(pattern)``, or None after noting a refusal of a form beyond the spec's list."""
    if pattern in SPEC_LISTED:
        return impl.regex_to_dfa(pattern)
    try:
        return impl.regex_to_dfa(pattern)
    except Exception as exc:  # noqa: BLE001 - refusing a form the spec does not list is a decision
        decision("python_escapes_and_repeat_forms", False,
                 f"regex_to_dfa({pattern!r}) raised {type(exc).__name__}: {str(exc)[:80]}")
        return None


def check_array_without_items_is_refused(impl) -> None:
    """test_json_schema_rejects_keywords_outside_the_subset ("no silently ignored
    constraints"): the subset's arrays have ``items`` (seed 2.5: "array with items");
    an array schema without it is outside the subset and must raise ValueError.

    Oracle: the spec's rule, "anything else raises ValueError". Kills: see ``CHECKS``.
    """
    for schema in ({"type": "array"}, {"type": "array", "maxItems": 2},
                   {"type": "object", "properties": {"a": {"type": "array"}}}):
        try:
            impl.json_schema_to_regex(schema)
        except ValueError:
            continue
        except Exception as exc:  # noqa: BLE001 - another error class is a note, as every refusal's class
            decision("array_without_items_refused", False, f"{schema} raised {type(exc).__name__}")
            continue
        decision("array_without_items_refused", False, f"{schema} gave a regex")


def check_apply_mask_sparse(impl) -> None:
    """test_apply_mask ("float64 copy with -inf"), for masks that allow few tokens.

    The catalogue's masks allow about 40% of the tokens; a real constraint allows a
    handful out of tens of thousands. Oracle: ``np.where(mask, logits, -inf)`` in float64.
    Kills: see ``CHECKS``.
    """
    rng = seeded_rng(11)
    for size, allowed, dtype in ((1000, 3, np.float32), (4096, 1, np.float64), (64, 2, np.int64), (50, 5, np.float16)):
        logits = (rng.normal(size=size) * 4).astype(dtype)
        mask = np.zeros(size, dtype=bool)
        mask[rng.choice(size, allowed, replace=False)] = True
        before = logits.copy()
        out = np.asarray(impl.apply_mask(logits, mask))
        want = np.where(mask, logits.astype(np.float64), -np.inf)
        if out.dtype != np.float64 or out.shape != (size,):
            fail("apply_mask must return float64 [V] (sparse mask)", dtype=str(out.dtype), shape=out.shape)
        if not np.array_equal(logits, before) or np.shares_memory(out, logits):
            fail("apply_mask must return a new array and leave its input alone (sparse mask)", size=size)
        if not np.array_equal(out, want):
            i = int(np.flatnonzero(~((out == want) | (np.isneginf(out) & np.isneginf(want))))[0])
            fail("apply_mask: kept logits unchanged, the rest -inf (sparse mask)", size=size, index=i,
                 mask=bool(mask[i]), expected=float(want[i]), got=float(out[i]))


def _penalized(logits: np.ndarray, seen: set[int], penalty: float) -> np.ndarray:
    """The contract's repetition penalty: a seen token's logit divided by it when positive,
    multiplied by it when negative."""
    out = np.asarray(logits, dtype=np.float64).copy()
    for t in seen:
        out[t] = out[t] / penalty if out[t] > 0 else out[t] * penalty
    return out


def _log_softmax_at(values: np.ndarray, allowed: list[int], token: int) -> float:
    top = values[allowed].max()
    return float(values[token] - top - np.log(np.exp(values[allowed] - top).sum()))


# state 0 of the hand example allows 0 c, 4 d, 8 ca, 9 cat, 10 dog (spec section 3)
_STATE0_ALLOWED = [0, 4, 8, 9, 10]
_PENALTY_CASES = (  # (logits of the allowed ids 0 4 8 9 10, history, prompt, penalty)
    ([1.0, 2.0, 3.0, 4.0, 3.5], [9], (), 2.0),         # 9 falls to 2.0: 10 wins
    ([1.0, 2.0, 3.0, 4.0, 3.5], [9], (), 1.5),         # 9 falls to 2.67: 10 wins
    ([1.0, 2.0, 3.0, 4.0, 4.5], [10], (), 0.8),        # a penalty below 1 raises 10 to 5.625
    ([-1.0, -2.0, -3.0, -0.5, -4.0], [], (9,), 2.0),   # a negative seen logit is multiplied: -1.0
    ([-1.0, -2.0, -3.0, -1.5, -4.0], [0], (), 0.5),    # -0.5 for token 0 (from the history)
    ([2.0, -2.0, 1.0, 1.9, 0.0], [0, 12], (9,), 1.25),  # a seen token outside the mask changes nothing
)


def check_greedy_with_repetition_penalty(impl) -> None:
    """test_greedy_takes_the_best_allowed_token ("the largest allowed logit wins; the
    logprob is renormalized"), with the repetition penalty the contract applies first.

    Oracle: the contract's rule (seen = history + prompt; positive logits divided by the
    penalty, negative ones multiplied), then argmax over the allowed tokens and the
    log-softmax over them, computed here with numpy on the hand example's state 0.
    Kills: see ``CHECKS``.
    """
    from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB

    index = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    for values, history, prompt, penalty in _PENALTY_CASES:
        logits = np.full(len(HAND_VOCAB), 9.0)  # disallowed tokens score higher than any allowed one
        logits[_STATE0_ALLOWED] = values
        want = _penalized(logits, set(history) | set(prompt), penalty)
        token_want = _STATE0_ALLOWED[int(np.argmax(want[_STATE0_ALLOWED]))]
        c = make_constraint(impl, index)
        params = impl.SamplingParams(temperature=0.0, repetition_penalty=penalty)
        token, logprob = impl.constrained_sample(logits, c, params,
                                                 list(history), seeded_rng(0), prompt)
        logprob_want = _log_softmax_at(want, _STATE0_ALLOWED, token_want)
        if int(token) != token_want or not abs(float(logprob) - logprob_want) <= 1e-9:
            fail("greedy under a repetition penalty must take the best allowed penalized logit, "
                 "with the log-softmax over the allowed tokens", logits=values, history=history, prompt=prompt,
                 penalty=penalty, expected=(token_want, round(logprob_want, 9)), got=(int(token), float(logprob)))


def _draw(impl, logits, index, params, rng):
    """One ``constrained_sample`` from a fresh constraint in state 0; a ValueError there
    (the constraint refusing the drawn token) is the sampler drawing outside the mask."""
    try:
        return impl.constrained_sample(logits, make_constraint(impl, index), params, [], rng)
    except ValueError as exc:
        fail("constrained_sample raised on an allowed-token draw (did it draw outside the mask?)",
             params=repr(params), error=str(exc))


def _draws(impl, logits, index, params: dict, rng, n: int):
    """``n`` draws, in order, exactly as ``n`` calls ``_draw(impl, logits, index,
    impl.SamplingParams(**params), rng)`` (a fresh constraint and SamplingParams for each,
    one generator for all): behind the wall in one round trip (``repeat_call``; the
    candidate builds each draw's Constraint before its SamplingParams, which the loop built
    the other way round). The first draw alone when the constraint's shape is not known yet
    (``make_constraint`` finds it)."""
    shape = known_constraint_shape()
    if shape is None:
        yield _draw(impl, logits, index, impl.SamplingParams(**params), rng)
        shape, n = known_constraint_shape(), n - 1
    constraint = dict(CONSTRAINT_SHAPES)[shape](lambda *a, **k: Fresh(impl.Constraint, *a, **k), index)
    try:
        yield from repeat_call(impl.constrained_sample, n, logits, constraint, Fresh(impl.SamplingParams, **params),
                               [], rng)
    except ValueError as exc:
        fail("constrained_sample raised on an allowed-token draw (did it draw outside the mask?)",
             params=repr(impl.SamplingParams(**params)), error=str(exc))


def check_sampling_filters_keep_the_best_allowed_tokens(impl) -> None:
    """test_greedy_takes_the_best_allowed_token ("the largest allowed logit wins"), through
    the sampling filters: top_k=1, or a top_p below the best token's probability, keeps
    only the best allowed token; top_k=k draws only among the k best allowed tokens.

    Oracle: the allowed logits sorted here (the contract: "keep the k largest logits";
    "the smallest set of most likely tokens whose probability reaches top_p"); 30
    seeded draws per case. Kills: see ``CHECKS``.
    """
    from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB

    index = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    logits = np.full(len(HAND_VOCAB), 9.0)
    logits[_STATE0_ALLOWED] = [0.5, 2.0, 1.0, 1.5, 0.0]     # ranks: 4, 9, 8, 0, 10
    ranked = [4, 9, 8, 0, 10]
    cases = ((dict(temperature=1.0, top_k=1), ranked[:1]), (dict(temperature=2.0, top_p=0.05), ranked[:1]),
             (dict(temperature=1.5, top_k=2), ranked[:2]), (dict(temperature=1.5, top_k=3), ranked[:3]),
             (dict(temperature=1.0, top_k=1, top_p=0.9), ranked[:1]))
    for params, keep in cases:
        drawn = {int(draw[0]) for draw in _draws(impl, logits, index, params, seeded_rng(21), 30)}
        if not drawn <= set(keep):
            fail("the sampling filters must keep only the best allowed tokens", params=params,
                 expected=sorted(keep), got=sorted(drawn))


def check_sampling_follows_the_softmax_of_the_allowed_logits(impl) -> None:
    """test_greedy_takes_the_best_allowed_token ("the logprob is renormalized"), at
    temperature 1: every draw's logprob is the log-softmax over the allowed tokens, and
    the draws follow that distribution; at temperature 0.5 the draws follow the softmax of
    the allowed logits divided by 0.5.

    Oracle: the log-softmax computed here; 3000 seeded draws, each allowed token's count
    within 5 standard deviations of 3000 p (a correct sampler fails this with probability
    below 1e-5, whatever random numbers it consumes). Kills: see ``CHECKS``.
    """
    from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB

    index = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    logits = np.full(len(HAND_VOCAB), 9.0)
    logits[_STATE0_ALLOWED] = [0.5, 2.0, 1.0, 1.5, 0.0]
    want = {t: _log_softmax_at(logits, _STATE0_ALLOWED, t) for t in _STATE0_ALLOWED}
    rng, n = seeded_rng(33), 3000
    counts = dict.fromkeys(_STATE0_ALLOWED, 0)
    for token, logprob in _draws(impl, logits, index, dict(temperature=1.0), rng, n):
        token = int(token)
        if token not in counts or not abs(float(logprob) - want[token]) <= 1e-9:
            fail("a sampled token must be allowed, its logprob the log-softmax over the allowed tokens",
                 token=token, expected=round(want.get(token, float("nan")), 9), got=float(logprob))
        counts[token] += 1
    _draws_follow(counts, want, n, "draws at temperature 1 must follow the softmax of the allowed logits")
    # temperature T divides the logits (L8.1): at T = 0.5 the draws follow softmax(x / 0.5) over
    # the allowed tokens (only the frequencies: what logprob a tempered draw reports is L8.1's)
    tempered = {t: _log_softmax_at(logits / 0.5, _STATE0_ALLOWED, t) for t in _STATE0_ALLOWED}
    counts = dict.fromkeys(_STATE0_ALLOWED, 0)
    for draw in _draws(impl, logits, index, dict(temperature=0.5), rng, n):
        token = int(draw[0])
        if token not in counts:
            fail("a sampled token must be allowed", token=token, temperature=0.5)
        counts[token] += 1
    _draws_follow(counts, tempered, n, "draws at temperature 0.5 must follow the softmax of the allowed logits / 0.5")


def _draws_follow(counts: dict, want: dict, n: int, message: str) -> None:
    """Each token's count within 5 standard deviations of n p (p = exp(want[token]))."""
    for t, lp in want.items():
        p = float(np.exp(lp))
        if abs(counts[t] - n * p) > 5 * np.sqrt(n * p * (1 - p)):
            fail(message, token=t, expected=round(n * p, 1), got=counts[t], draws=n)


def _one_state_table() -> tuple[np.ndarray, np.ndarray]:
    """``[ab]*``'s canonical DFA written out: one accepting state, a and b loop, the rest DEAD."""
    trans = np.full((1, 256), -1, dtype=np.int32)
    trans[0, [ord("a"), ord("b")]] = 0
    return trans, np.array([True])


def _dot_table() -> tuple[np.ndarray, np.ndarray]:
    """``.``'s canonical DFA written out: 0 --every byte but \\n--> 1 (accepting), 1 has no edge."""
    trans = np.full((2, 256), -1, dtype=np.int32)
    trans[0, :] = 1
    trans[0, ord("\n")] = -1
    return trans, np.array([False, True])


def check_dfa_rebuilt_from_tables(impl) -> None:
    """test_hand_example ("section 3's DFA: 7 states, the accepting ones, every edge;
    step and matches"), for a DFA given its tables: the spec's DFA *is* its two arrays
    (``trans: int32 [S, 256], accept: bool [S]``), and L10.9 hands tables across.

    Decision ``dfa_from_tables`` (the spec names no constructor): ``DFA(trans, accept)``
    given the canonical tables of section 3's example, of ``[ab]*`` (one state) and of
    ``.`` is that DFA: the same arrays, and ``matches`` answers as Python's ``re`` does.
    Oracle: the tables written out by hand here and ``re.fullmatch`` on bytes.
    Kills: see ``CHECKS``.
    """
    import re

    from harness.suite.inputs import HAND_ACCEPT, HAND_PATTERN, hand_trans

    cases = ((HAND_PATTERN, hand_trans().astype(np.int32), np.array(HAND_ACCEPT)),
             ("[ab]*", *_one_state_table()), (".", *_dot_table()))
    probes = [b"", b"a", b"b", b"ab", b"ba", b"c", b"\n", b"cat", b"cats", b"dog", b"dogs", b"car", b"ca", b"x"]
    for pattern, trans, accept in cases:
        try:
            dfa = impl.DFA(trans.copy(), accept.copy())
            same = (int(dfa.n_states) == len(accept) and np.array_equal(np.asarray(dfa.trans), trans)
                    and np.asarray(dfa.trans).dtype == np.int32  # the spec: trans: int32[S, 256]
                    and np.array_equal(np.asarray(dfa.accept), accept))
            wrong = [d for d in probes if bool(dfa.matches(d)) != (re.fullmatch(pattern.encode(), d) is not None)]
        except Exception as exc:  # noqa: BLE001 - refusing valid tables (any class) is the departure
            decision("dfa_from_tables", False, f"DFA(trans, accept) of {pattern!r} ({len(accept)} state(s)) "
                                               f"raised {type(exc).__name__}: {str(exc).strip()[:80]}")
            continue
        decision("dfa_from_tables", same and not wrong,
                 f"DFA(trans, accept) of {pattern!r}: " + ("matches differs from re on " + repr(wrong[:3])
                                                           if same else "the arrays (or trans's int32) differ "
                                                                        "from the ones given"))


def check_float_token_id_is_refused(impl) -> None:
    """test_hand_example_masks ("next_state for tokens, EOS, dead tokens"), for a token id
    that is not an int: the spec's token id is an ``int``.

    Decision ``float_token_id_typeerror``: ``next_state(0, 9.0)`` raises TypeError, never
    reads the float as token 9 (``cat``). Oracle: the contract's rule (a wrong Python type
    raises TypeError). Kills: see ``CHECKS``.
    """
    from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB

    index = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    for token in (9.0, 0.0):
        try:
            got = index.next_state(0, token)
        except TypeError:
            continue
        except Exception as exc:  # noqa: BLE001 - another class is the departure
            decision("float_token_id_typeerror", False, f"next_state(0, {token!r}) raised {type(exc).__name__}")
            continue
        decision("float_token_id_typeerror", False, f"next_state(0, {token!r}) returned {got!r}")


# Python syntax beyond the spec's subset that Python 3.10+ reads on bytes patterns: refused,
# or accepted with Python's meaning (never with another one)
PYTHON_EXTENSIONS = ("(?i)a", "(?s).", "(?m)ab", "(?x)a b", "(?i:a)b", "(?s:.)a", "(?P<n>a)b", "(?#c)a", "(?i)[a-c]x")


def check_python_extensions_are_refused_or_python(impl) -> None:
    """test_unsupported_syntax_raises ("no silent misreading"), for the Python syntax
    the spec's list does not name: inline and scoped flags, named groups, comments.

    Accepted, a pattern must mean what Python means (the spec: "the subset is Python's
    own"); refused, the class is decision ``unsupported_syntax_valueerror``. Oracle:
    ``re.fullmatch`` on bytes over every one-byte string and the two-byte strings of
    16 probe bytes plus a few words. Kills: see ``CHECKS``.
    """
    import re

    probes = ([bytes([b]) for b in range(256)] + [bytes([a, b]) for a in _PROBE_BYTES for b in _PROBE_BYTES]
              + [b"ab", b"Ab", b"aB", b"AB", b"a b", b"\nb", b"\na", b"aa", b"ba"])
    for pattern in PYTHON_EXTENSIONS:
        oracle = re.compile(pattern.encode("ascii"))
        try:
            dfa = impl.regex_to_dfa(pattern)
        except Exception as exc:  # noqa: BLE001 - a refusal of any class is allowed by the seed
            decision("unsupported_syntax_valueerror", isinstance(exc, ValueError),
                     f"{pattern!r} (Python syntax outside the subset) raised {type(exc).__name__}: "
                     f"{(str(exc).splitlines() or [''])[0][:80]}")
            continue
        for data, matched in each_match(dfa, probes):
            want = oracle.fullmatch(data) is not None
            if matched != want:
                fail("Python syntax outside the subset was accepted with another meaning than Python's",
                     pattern=pattern, data=data, expected=want, got=not want)


def check_history_ids_out_of_range(impl) -> None:
    """test_greedy_takes_the_best_allowed_token, for the history and prompt the
    repetition penalty reads (L8.1's ``sample(logits, p, history, rng, prompt)``).

    Decision ``history_out_of_range_valueerror``: under a repetition penalty, a history
    or prompt token id outside ``range(V)`` raises ValueError (not an IndexError, and
    never a negative id wrapping around to the last token). Oracle: the contract's rule
    (bad input raises ValueError naming it). Kills: see ``CHECKS``.
    """
    from harness.suite.inputs import HAND_EOS, HAND_PATTERN, HAND_VOCAB

    index = impl.TokenIndex(impl.regex_to_dfa(HAND_PATTERN), HAND_VOCAB, HAND_EOS)
    params = impl.SamplingParams(temperature=1.0, repetition_penalty=1.5)
    size = len(HAND_VOCAB)
    for history, prompt in (([size], ()), ([size + 84], ()), ([9, -1], ()), ([], (size + 5,)), ([0], (-3,))):
        try:
            impl.constrained_sample(np.zeros(size), make_constraint(impl, index), params, list(history),
                                    seeded_rng(0), prompt)
        except ValueError:
            continue
        except Exception as exc:  # noqa: BLE001 - another class is the departure
            decision("history_out_of_range_valueerror", False,
                     f"history={history} prompt={prompt} (V={size}) raised {type(exc).__name__}")
            continue
        decision("history_out_of_range_valueerror", False, f"history={history} prompt={prompt} (V={size}) was used")


def check_vocab_bytes_reads_a_list_of_token_strings(impl) -> None:
    """test_vocab_bytes ("the byte map undone; non-map strings as UTF-8"), for the
    plainest tokenizer: the token strings themselves (the spec: "vocab_bytes gets them
    back from token strings").

    Decision ``vocab_bytes_token_list``: a list, or a tuple, of token strings is read with
    the spec's rule. Oracle: GPT-2's byte map written out in ``test_vocab`` and the spec's
    rule (only map characters: through the map; else UTF-8). Kills: see ``CHECKS``.
    """
    from harness.suite.inputs import expected_bytes, gpt2_byte_map

    inverse = {ch: b for b, ch in gpt2_byte_map().items()}
    tokens = ["\u0120hello", "a", "\u010a", "\u00e9", "\u4e2d", "hello world", "caf\u00e9!", "\u0120", "\u00c3\u00a9"]
    tokens += [ch for ch in inverse if ch not in tokens]
    want = [expected_bytes(t, inverse) for t in tokens]
    for container in (list, tuple):
        try:
            got = [bytes(g) if isinstance(g, (bytes, bytearray)) else g for g in impl.vocab_bytes(container(tokens))]
        except Exception as exc:  # noqa: BLE001 - refusing the token strings (any class) is the departure
            decision("vocab_bytes_token_list", False, f"vocab_bytes({container.__name__} of {len(tokens)} token "
                                                      f"strings) raised {type(exc).__name__}: {str(exc)[:80]}")
            continue
        where = f"vocab_bytes({container.__name__} of token strings)"
        if len(got) != len(want):
            decision("vocab_bytes_token_list", False, f"{where}: length {len(got)}, expected {len(want)}")
            continue
        wrong = next((i for i, (w, g) in enumerate(zip(want, got)) if w != g), None)
        if wrong is not None:
            decision("vocab_bytes_token_list", False,
                     f"{where}: token {wrong} ({tokens[wrong]!r}) gave {got[wrong]!r}, expected {want[wrong]!r}")


def _large_enum() -> list[str]:
    """5,000 distinct seeded ten-letter words: an enum a tool schema may plausibly hold."""
    rng = seeded_rng(5)
    words: dict[str, None] = {}
    while len(words) < 5000:
        words["".join(chr(97 + int(i)) for i in rng.integers(0, 26, size=10))] = None
    return list(words)


oracle_memo.seeded("large_enum", _large_enum, lambda words: sum(len(word) + 50 for word in words))


def check_large_enum_schema(impl) -> None:
    """test_json_schema_documents ("valid documents match; ... wrong types ... do not"),
    for an ``enum`` of realistic size (section 2.5: "an alternation of the values'
    compact JSON").

    Decision ``large_enum_accepted`` (the spec states no size bound; the contract lets an
    implementation document one): an ``enum`` of 5,000 ten-letter strings (a regex of about
    75,000 characters) is accepted, and its regex means the enum. Oracle: Python's ``re``
    over the returned regex, and ``json.dumps`` of members and of one-letter edits of them.
    Only ``json_schema_to_regex`` runs (no DFA is built). Kills: see ``CHECKS``.
    """
    import json
    import re

    words = oracle_memo.answer("large_enum", session.current().seed)   # _large_enum, under the run seed
    members = set(words)
    try:
        pattern = impl.json_schema_to_regex({"enum": words})
        oracle = re.compile(pattern.encode("ascii"))
    except Exception as exc:  # noqa: BLE001 - refusing it (any class) is the departure
        decision("large_enum_accepted", False, f"an enum of {len(words)} ten-letter strings raised "
                                               f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:100]}")
        return
    probes = [(json.dumps(w), True) for w in words[::250]]
    probes += [(json.dumps(w[:-1] + ("z" if w[-1] != "z" else "y")), None) for w in words[1::250]]
    probes += [(w, False) for w in words[2::1000]] + [(json.dumps(words[0] + words[1]), False)]
    for text, want in probes:
        if want is None:  # a one-letter edit: in the language iff it happens to be a member
            want = json.loads(text) in members
        if (oracle.fullmatch(text.encode()) is not None) != want:
            decision("large_enum_accepted", False, f"the regex of an enum of {len(words)} strings "
                                                   f"{'refuses' if want else 'accepts'} {text}")
            return


# (check, the catalogue test it belongs to, the generated survivors of the default tier it
# kills). In ``mutants --generated --sample 200 --seed 1``: the five repetition-penalty
# survivors, NotEq_Is.3, Mul_RShift.3, eight parser survivors and schema.RemoveStatement.22; found outside that
# sample (same operators, every sampling.py site screened): SliceBounds.0, ChangeDtype.1,
# Mul_Div.2 and Mul_Pow.2. Each is a default-tier survivor (confirmed by a catalogue run).
# The checks after the comment "strict-tier decisions" grade contract decisions only (notes in
# the default tier): each kills a survivor of the default tier of seed 1's sample that departs
# from a decision the spec does not state; the deep pass of ``mutants --generated`` (--deep
# --strict) kills it. Survivor ids are sites of the reference as it is now
# (``generation.enumerate_sites``); ``equivalents.json`` records each one's change
# (``GeneratedMutant.before`` and ``after``), by which ``tests/suite/test_strength.py`` finds it
# again when the reference is reformatted and the ids shift.
CHECKS: list[tuple] = [
    (check_greedy_with_repetition_penalty, "test_greedy_takes_the_best_allowed_token",
     ("sampling.ReplaceComparisonOperator_Eq_GtE.5", "sampling.ReplaceComparisonOperator_Eq_Lt.5",
      "sampling.ReplaceBinaryOperator_Div_FloorDiv.0", "sampling.ReplaceBinaryOperator_Div_Sub.0",
      "sampling.ReplaceBinaryOperator_Mul_Pow.1")),
    (check_sampling_filters_keep_the_best_allowed_tokens, "test_greedy_takes_the_best_allowed_token",
     ("sampling.ReplaceComparisonOperator_NotEq_Is.3", "sampling.ReplaceBinaryOperator_Mul_RShift.3",
      "sampling.SliceBounds.0")),
    (check_apply_mask_sparse, "test_apply_mask", ("sampling.ChangeDtype.1",)),
    (check_repeat_forms_mean_what_python_means, "test_matches_python_re", ("parser.NumberReplacer.162",)),
    (check_array_without_items_is_refused, "test_json_schema_rejects_keywords_outside_the_subset",
     ("schema.RemoveStatement.42",)),
    (check_escapes_mean_what_python_means, "test_matches_python_re",
     ("parser.NumberReplacer.33", "parser.ReplaceTrueWithFalse.6", "parser.ReplaceBinaryOperator_LShift_RShift.7",
      "parser.ReplaceBinaryOperator_LShift_Sub.7", "parser.NumberReplacer.204", "parser.NumberReplacer.220",
      "parser.NumberReplacer.231")),
    (check_sampling_follows_the_softmax_of_the_allowed_logits, "test_greedy_takes_the_best_allowed_token",
     ("sampling.ReplaceBinaryOperator_Mul_Div.2", "sampling.ReplaceBinaryOperator_Mul_Pow.2",
      "sampling.ReplaceBinaryOperator_Div_Add.1")),
    # strict-tier decisions (the second pass of ``mutants --generated`` runs --deep --strict)
    (check_dfa_rebuilt_from_tables, "test_hand_example",
     ("dfa.NumberReplacer.20", "dfa.ReplaceComparisonOperator_Lt_IsNot.1", "dfa.ReplaceComparisonOperator_GtE_IsNot.0",
      "dfa.ReplaceComparisonOperator_NotEq_IsNot.3", "dfa.ChangeDtype.3")),
    (check_float_token_id_is_refused, "test_hand_example_masks", ("index.RemoveStatement.21",)),
    (check_python_extensions_are_refused_or_python, "test_unsupported_syntax_raises",
     ("parser.ReplaceReturnValue.43",)),
    (check_history_ids_out_of_range, "test_greedy_takes_the_best_allowed_token",
     ("sampling.ReplaceComparisonOperator_GtE_Eq.2",)),
    (check_vocab_bytes_reads_a_list_of_token_strings, "test_vocab_bytes",
     ("vocab.SwapArguments.4", "vocab.SwapArguments.6")),
    (check_large_enum_schema, "test_json_schema_documents", ("schema.ReplaceComparisonOperator_Lt_Gt.0",)),
]


def run_for(test_name: str, impl) -> None:
    """Every check of ``CHECKS`` that belongs to the catalogue test ``test_name``, in order."""
    for check, test, _survivors in CHECKS:
        if test == test_name:
            check(impl)
