"""Replay the golden files against any implementation of the constrain contract.

``replay_constrain(doc, impl)`` checks what the Rust port's tests check (seed
``002_...``, "What the tests check"), so that we and the file's consumers read the
file the same way; ``replay_masks(doc, impl)`` is the Python module's
``test_masks_match_the_golden_file`` (spec ``000_...``). ``impl`` is a module-like
object with the contract's names (``harness/contract/constrain.pyi``): the reference
module, or a proxy of a candidate's module; this module never loads one (that is the
grader's work, ``harness.golden_replay``) and imports nothing from ``harness``.

Checks (each a name in ``CHECKS``):

- ``dfa_matches_python_l8_7``: per schema, the regex text (a difference is a
  *note* unless ``strict_regex``: another text with the same language is allowed
  by the Python contract) and the DFA of the candidate's own regex; per pattern
  (and per masks_golden case), ``n_states``, every accepting flag, every transition.
- ``masks_match_python_l8_7``: along every recorded path, ``Constraint.mask()``
  gives exactly the recorded ids and ``is_complete()`` the recorded flag, at every
  step; after EOS ``done`` is set and nothing is allowed. The ``no_eos`` paths (a
  TokenIndex with ``eos_id=None``) end complete with nothing left to allow.
- ``token_index_rules``: at every step, specials and empty tokens are refused, EOS
  is allowed iff the text is complete, ``advance`` of a disallowed token (a special,
  the lowest disallowed id, EOS before a whole string) is refused (ValueError: the
  decision ``advance_refusal_valueerror``) and ``next_state`` gives DEAD for a token
  whose bytes die (for a special or EOS: the decisions ``next_state_refused_is_dead``,
  ``eos_next_state``); after EOS every ``advance`` is refused. A fresh constraint in a
  state is ``Constraint(index, state)`` where the candidate has it, else one advanced
  along the path (the spec gives no constructor).
- ``subset_errors_are_refused``: each of the 15 refused patterns is refused by
  ``regex_to_dfa`` (ValueError: ``unsupported_syntax_valueerror``); Python syntax the
  spec does not name may be accepted with Python's meaning instead (a note on
  ``python_only_syntax_refused``; another language fails); each of the 11 refused
  schemas raises ValueError from ``json_schema_to_regex`` or the ``regex_to_dfa`` of its
  regex (a list of types, an empty enum: decisions).
- ``refused_extra``: the same for ``refused_extra`` (beyond the port test's 15/11).
- ``constrained_output_always_parses``: per schema, ``OUTPUT_WALKS`` seeded walks
  (``golden.walks.walk``) through the candidate's own regex, DFA and masks over the
  file's vocabulary end with EOS, and each text parses, satisfies the schema
  (``jsonschema``) and keeps the schema's property order (``oracles.stdlib``):
  a grammar wider than the schema (a missing comma, one item too many) is caught
  where the text it lets through is written.
- ``constrained_sample_hand_example``: section 3's ``ab?`` example: at each step
  ``Constraint.mask()`` allows the recorded ids, greedy ``constrained_sample``
  (``SamplingParams(temperature=0)``, fresh float64 logits each call) takes the
  recorded token with a logprob within ``tolerance`` of the recorded one; then
  ``apply_mask`` with an all-false mask and ``constrained_sample`` after EOS raise
  ValueError.
- ``dumps_matches_python``: the recorded output is what this Python's
  ``json.dumps(json.loads(text), separators=(",", ":"))`` writes (both
  ``ensure_ascii`` settings), and the candidate's ``{"const": value}`` language is
  exactly one of those texts: ``dumps`` (raw UTF-8) or ``dumps_ascii`` (spec 000's
  literal call; a note on ``enum_const_raw_utf8``).
- ``vocab_bytes_marks_specials``: ``vocab_bytes`` of the ``vocab_bytes`` section's tokenizer
  (cl100k_base's token strings in GPT-2's byte map, its five specials carried by the tokenizer,
  handed as ``tokenizer(tokens, special_ids)``: ``readings.RecordedTokenizer`` by default, the
  wall's ``SpecTokenizer`` behind it) is ``None`` for every special and the recorded bytes for
  every other id, ordinary tokens spelling the specials' own text included.
- ``masks_match_the_golden_file`` (``replay_masks``): as ``masks_match_python_l8_7``
  for masks_golden.json, schemas through the candidate's own translation.

Fairness: the replay grades a Python candidate with ``check``'s default tier
(``golden.readings``): a departure from a contract decision (a key of
``harness.suite.tiers.DECISIONS``) is a note, a failure only with ``strict``
(``golden replay --strict``); refusing Python syntax the spec does not list, or a schema
with annotations, is such a note; a schema whose enum/const values the literal
``json.dumps`` call writes differently is compared with that reading's DFA too.

A candidate's exception is a finding, never a crash of the replay. ``impl`` may be a
module or a proxy of one behind the wall (``harness.golden_replay`` hands the replay
such a proxy for ``golden replay --impl``, so untrusted code never runs in the grader).

Example::

    >>> doc = fileformat.load(GOLDEN_DIR / "constrain_golden.json", "constrain_golden")
    >>> replay_constrain(doc, oracles.automaton).ok
    True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from golden import fileformat, readings

DEAD = -1
CHECKS = ("dfa_matches_python_l8_7", "masks_match_python_l8_7", "subset_errors_are_refused",
          "refused_extra", "dumps_matches_python", "token_index_rules", "constrained_sample_hand_example",
          "constrained_output_always_parses", "masks_match_the_golden_file", "vocab_bytes_marks_specials")
OUTPUT_WALKS = 25
"""constrained_output_always_parses: seeded walks per schema (the port test's 25)."""
OUTPUT_SEED = 925
"""Walk j of schema i draws from ``default_rng([OUTPUT_SEED, i, j])``, budget ``j``."""
OUTPUT_LIMIT = 96
"""Tokens after which a walk that has not ended is a failure (steering ends them
within about budget + the longest shortest completion, far below)."""
MAX_FINDINGS = 20
"""Findings kept per check (the count of failures is always complete)."""


@dataclass(frozen=True)
class Finding:
    check: str
    where: str
    message: str
    level: str = "fail"  # "fail" or "note"


@dataclass
class ReplayReport:
    """Assertions made and findings, per check."""

    file: str
    strict: bool = False
    assertions: dict[str, int] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(self.failures.values())

    def passed(self, check: str, n: int = 1) -> None:
        self.assertions[check] = self.assertions.get(check, 0) + n

    def fail(self, check: str, where: str, message: str, level: str = "fail") -> None:
        self.passed(check)
        if level == "fail":
            self.failures[check] = self.failures.get(check, 0) + 1
        if sum(1 for f in self.findings if f.check == check) < MAX_FINDINGS:
            self.findings.append(Finding(check, where, message, level))

    def expect(self, check: str, where: str, problem: str | None) -> None:
        """Count one assertion: passed when ``problem`` is None, else a failure."""
        if problem:
            self.fail(check, where, problem)
        else:
            self.passed(check)

    def decision(self, check: str, where: str, key: str, ok: bool, message: str) -> None:
        """A contract decision the spec does not state (a key of ``harness.suite.tiers``):
        a departure is a note, a failure only under ``strict`` (``golden replay --strict``)."""
        if ok:
            self.passed(check)
        else:
            self.fail(check, where, f"contract decision not met: {key}: {message}",
                      level="fail" if self.strict else "note")

    def lines(self) -> list[str]:
        """A readable report: one line per finding, one per check, a totals line."""
        out = [f"{f.level.upper()} {f.check} [{f.where}]: {f.message}" for f in self.findings]
        for check in sorted(self.assertions):
            failed = self.failures.get(check, 0)
            out.append(f"{'ok  ' if not failed else 'FAIL'} {check}: {self.assertions[check]} assertions, "
                       f"{failed} failed")
        total = sum(self.assertions.values())
        out.append(f"{self.file}: {len(self.assertions)} checks, {total} assertions, "
                   f"{sum(self.failures.values())} failed")
        return out


# --------------------------------------------------------------------------- helpers

class _Cache:
    """Per replay: the candidate's regex per case, DFA per pattern, TokenIndex per
    (pattern, vocabulary), the ``Constraint`` shape that worked, and how it reads each
    schema whose enum/const values the spec's two readings write differently."""

    def __init__(self, impl):
        self.impl = impl
        self.regexes: dict[str, tuple[str | None, BaseException | None]] = {}
        self.dfas: dict[str, object] = {}
        self.indexes: dict[tuple, object] = {}
        self.shape: str | None = None
        self.state_constructor: bool | None = None  # Constraint(index, state) usable?
        self.ascii_cases: set[str] = set()  # schema cases read as the literal json.dumps call
        self.shadow: tuple | None = None  # (index, constraint, tokens taken): constraint_at's walker

    def regex(self, case: dict) -> tuple[str | None, BaseException | None]:
        if case["kind"] == "pattern":
            return case["pattern"], None
        if case["name"] not in self.regexes:
            try:
                self.regexes[case["name"]] = (self.impl.json_schema_to_regex(json.loads(case["schema"])), None)
            except Exception as exc:  # noqa: BLE001 - a candidate's failure is a finding
                self.regexes[case["name"]] = (None, exc)
        return self.regexes[case["name"]]

    def dfa(self, pattern: str):
        if pattern not in self.dfas:
            try:
                self.dfas[pattern] = self.impl.regex_to_dfa(pattern)
            except Exception as exc:  # noqa: BLE001 - kept, so every check reports the same refusal
                self.dfas[pattern] = exc
        if isinstance(self.dfas[pattern], BaseException):
            raise self.dfas[pattern]
        return self.dfas[pattern]

    def index(self, pattern: str, vocab, eos_id):
        key = (pattern, tuple(vocab), eos_id)
        if key not in self.indexes:
            self.indexes[key] = self.impl.TokenIndex(self.dfa(pattern), vocab, eos_id)
        return self.indexes[key]

    def constraint(self, index):
        """A fresh ``Constraint`` at the start state, in the first shape the candidate
        accepts (``golden.readings.CONSTRAINT_SHAPES``, the catalogue's)."""
        constraint, self.shape = readings.build_constraint(self.impl.Constraint, index, self.shape)
        return constraint

    def constraint_at(self, index, state: int, tokens: list[int]):
        """A fresh ``Constraint`` in ``state``: ``Constraint(index, state)`` where the
        candidate's constructor takes a state (checked: it reports that state), else a
        shadow constraint advanced along the path's ``tokens`` (the spec's only way to
        reach a state), rebuilt from the start when a probe left it elsewhere (what a
        refused advance leaves behind is a decision): linear in the path, not quadratic."""
        if self.state_constructor is not False:
            try:
                fresh = self.impl.Constraint(index, state)
                if int(fresh.state) == int(state):
                    self.state_constructor = True
                    return fresh
            except Exception:  # noqa: BLE001 - no such constructor: reach the state by advancing
                pass
            self.state_constructor = False
        same = self.shadow is not None and self.shadow[0] is index
        shadow, taken, left_in = self.shadow[1:] if same else (None, [], None)
        if shadow is None or taken != tokens[:len(taken)] or bool(getattr(shadow, "done", False)) \
                or int(shadow.state) != left_in:  # a probe moved it: what a refusal leaves is a decision
            shadow, taken = self.constraint(index), []
        for token in tokens[len(taken):]:
            shadow.advance(token)
        self.shadow = (index, shadow, list(tokens), int(state))
        return shadow


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"


def _dfa_problem(dfa, want_trans, want_accept) -> str | None:
    """None when ``dfa``'s tables are ``want_trans``/``want_accept``, else the first difference."""
    trans, accept = np.asarray(dfa.trans), np.asarray(dfa.accept)
    if int(dfa.n_states) != len(want_accept) or trans.shape != want_trans.shape:
        return f"n_states {dfa.n_states}, expected {len(want_accept)}"
    bad = np.flatnonzero(accept.astype(bool) != want_accept)
    if bad.size:
        s = int(bad[0])
        return f"state {s} accepting {bool(accept[s])}, expected {bool(want_accept[s])}"
    diff = np.argwhere(trans != want_trans)
    if diff.size:
        s, b = (int(x) for x in diff[0])
        return (f"{len(diff)} transitions differ, first: state {s} byte 0x{b:02x} goes to {int(trans[s, b])}, "
                f"expected {int(want_trans[s, b])}")
    return None


def _compare_dfa(report, check: str, where: str, dfa, record: dict) -> None:
    want_trans, want_accept = fileformat.dfa_from_record(record)
    report.expect(check, where, _dfa_problem(dfa, want_trans, want_accept))


def _candidate_pattern(report, check: str, where: str, impl, case: dict, cache=None) -> str | None:
    """The candidate's regex for a case: the pattern itself, or its schema's translation.
    A refusal of a schema that relies on a contract decision (an annotation, ``type``
    beside ``enum``) is that decision's note; any other refusal a failure."""
    cache = cache or _Cache(impl)
    pattern, exc = cache.regex(case)
    if exc is None:
        return pattern
    decided = readings.decided_schema_constructs(json.loads(case["schema"]))
    if decided and isinstance(exc, ValueError):
        for key in decided:
            report.decision(check, where, key, False, f"the schema was refused: {_describe(exc)}")
    else:
        report.fail(check, where, f"json_schema_to_regex raised {_describe(exc)}")
    return None


def _compiled(report, check: str, where: str, cache, pattern: str):
    """The candidate's DFA of ``pattern``, or None: refusing Python syntax the spec does not
    list is a note on ``extra_regex_syntax``; any other refusal a failure."""
    try:
        return cache.dfa(pattern)
    except Exception as exc:  # noqa: BLE001
        if readings.uses_extra_syntax(pattern):
            report.decision(check, where, "extra_regex_syntax", False, f"{pattern[:60]!r} refused: {_describe(exc)}")
        else:
            report.fail(check, where, f"regex_to_dfa raised {_describe(exc)}")
        return None


# --------------------------------------------------------------------------- dfa

def check_dfas(report, impl, cache, cases: list[dict], *, strict_regex: bool) -> None:
    check = "dfa_matches_python_l8_7"
    for case in cases:
        where = f"{case['kind']} {case['name']}"
        pattern = _candidate_pattern(report, check, where, impl, case, cache)
        if pattern is None:
            continue
        if case["kind"] == "schema":
            if pattern != case["pattern"]:
                report.fail(check, where, f"regex text differs from the recorded one: {pattern[:80]!r}...",
                            level="fail" if strict_regex else "note")
            else:
                report.passed(check)
        dfa = _compiled(report, check, where, cache, pattern)
        if dfa is None:
            continue
        want_trans, want_accept = fileformat.dfa_from_record(case["dfa"])
        problem = _dfa_problem(dfa, want_trans, want_accept)
        if problem and case["kind"] == "schema" and _ascii_reading(case, dfa):
            cache.ascii_cases.add(case["name"])
            report.decision(check, where, "enum_const_raw_utf8", False, "the language is the spec's literal "
                            "json.dumps call's (ensure_ascii): enum/const values escaped to ASCII")
            continue
        report.expect(check, where, problem)


def _ascii_reading(case: dict, dfa) -> bool:
    """Whether ``dfa`` is the schema's canonical DFA under the spec's literal reading (the
    reference's regex with enum/const values and property names written ``ensure_ascii``)."""
    schema = json.loads(case["schema"])
    if not readings.readings_differ(schema):
        return False
    from oracles import automaton

    want = automaton.regex_to_dfa(readings.ascii_reading_regex(schema))
    return _dfa_problem(dfa, np.asarray(want.trans), np.asarray(want.accept)) is None


# --------------------------------------------------------------------------- masks

def check_masks(report, impl, cache, cases: list[dict], vocab_record: dict, check: str) -> None:
    vocab = fileformat.vocab_from_record(vocab_record)
    eos = vocab_record["eos_id"]
    for case in cases:
        where = f"{case['kind']} {case['name']}"
        pattern = _candidate_pattern(report, check, where, impl, case, cache)
        if pattern is None or _compiled(report, check, where, cache, pattern) is None:
            continue
        if case["name"] in cache.ascii_cases and case["kind"] == "schema":
            report.decision(check, where, "enum_const_raw_utf8", False, "the recorded paths spell the raw reading; "
                            "the ASCII reading's DFA was compared instead (dfa_matches_python_l8_7)")
            continue
        try:
            index = cache.index(pattern, vocab, eos)
        except Exception as exc:  # noqa: BLE001
            report.fail(check, where, f"building the TokenIndex raised {_describe(exc)}")
            continue
        for path in case["paths"]:
            _replay_path(report, cache, index, path, vocab, vocab_record, check, f"{where} path {path['seed']}")


@dataclass(frozen=True)
class PathStep:
    """One recorded step of a golden path beside what the candidate answered there.

    ``number`` counts from 0 (before the first token); ``text`` is the bytes of the
    tokens taken so far (EOS adds none); ``allowed``/``complete`` are the file's,
    ``got``/``got_complete`` the candidate's ``mask()`` ids and ``is_complete()``;
    ``after_eos``: the token taken just before this step was EOS."""

    number: int
    text: bytes
    allowed: list[int]
    complete: bool
    got: list[int]
    got_complete: bool
    after_eos: bool


class StepRaised(Exception):
    """The candidate raised during a path walk, at step ``number``: ``call`` names what
    was called (e.g. ``advance(7)``); the candidate's own exception is ``error`` (and
    ``__cause__``)."""

    def __init__(self, number: int, call: str, error: BaseException):
        super().__init__(f"{call} raised {_describe(error)}")
        self.number, self.call, self.error = number, call, error


def walk_path(constraint, path: dict, vocab: list[bytes | None], eos_id: int | None):
    """Replay one recorded path (masks_golden's or constrain_golden's) through a
    candidate's ``constraint``: before each recorded token and after the last, read
    ``mask()`` and ``is_complete()`` and yield a ``PathStep``; when the caller asks for
    the next step, ``advance`` by the recorded token. The one walk both the golden
    replay (``check_masks``) and the catalogue (``harness.suite.golden_replay``) use;
    each judges the steps its own way. A candidate's exception comes out as
    ``StepRaised``; stop iterating to stop the walk (e.g. at the first difference).

    Example: the hand example's path ``[9, 7, EOS]`` yields steps 0..3 with texts
    ``b""``, ``b"cat"``, ``b"cats"``, ``b"cats"`` (the last one ``after_eos``)."""
    tokens, text = path["tokens"], b""
    for number, (allowed, complete) in enumerate(zip(path["allowed"], path["complete"])):
        try:
            got = np.flatnonzero(np.asarray(constraint.mask(), dtype=bool)).tolist()
            got_complete = bool(constraint.is_complete())
        except Exception as exc:  # noqa: BLE001 - a candidate's failure is a finding
            raise StepRaised(number, "mask()/is_complete()", exc) from exc
        after_eos = number > 0 and tokens[number - 1] == eos_id
        yield PathStep(number, text, allowed, complete, got, got_complete, after_eos)
        if number == len(tokens):
            return
        token = tokens[number]
        try:
            constraint.advance(token)
        except Exception as exc:  # noqa: BLE001
            raise StepRaised(number, f"advance({token})", exc) from exc
        if token != eos_id:
            text += vocab[token] or b""  # a special taken (a corrupt file) adds nothing


def _replay_path(report, cache, index, path: dict, vocab, vocab_record: dict, check: str, where: str) -> None:
    try:
        constraint = cache.constraint(index)
    except Exception as exc:  # noqa: BLE001
        report.fail(check, where, f"{_describe(exc)}")
        return
    try:
        for step in walk_path(constraint, path, vocab, vocab_record["eos_id"]):
            at = f"{where} step {step.number}"
            _check_rules(report, cache, index, constraint, step, path["tokens"][:step.number], vocab_record, at)
            if step.after_eos:  # the spec: nothing after EOS; is_complete() there is a decision, and so is the
                # mask in L8.7's file (spec 002 states it: its masks_match_python_l8_7 catches port mutant s10)
                problem = None if step.got == [] else f"mask() after EOS allows {step.got[:8]}"
                if check == "masks_match_python_l8_7":
                    report.expect(check, at, problem)
                else:
                    report.decision(check, at, "mask_after_eos_empty", problem is None, problem or "")
                report.decision(check, at, "eos_keeps_state", step.got_complete == step.complete,
                                f"is_complete() after EOS is {step.got_complete}")
                continue
            if step.got != step.allowed or step.got_complete != step.complete:
                extra = sorted(set(step.got) - set(step.allowed))
                missing = sorted(set(step.allowed) - set(step.got))
                report.fail(check, at, f"allowed ids: extra {extra[:12]}, missing {missing[:12]}; "
                                       f"complete {step.got_complete}, expected {step.complete}")
                return  # the states drift from here on
            report.passed(check)
    except StepRaised as exc:
        report.fail(check, f"{where} step {exc.number}", str(exc))
        return
    if path["ended"] == "eos" and not getattr(constraint, "done", False):
        report.fail(check, where, "Constraint.done is not set after EOS")


def _refuses(action) -> str | None:
    """None if ``action()`` raises ValueError, else what happened instead."""
    try:
        action()
    except ValueError:
        return None
    except Exception as exc:  # noqa: BLE001
        return f"raised {_describe(exc)}, not ValueError"
    return "was accepted"


def _expect_refusal(report, check: str, where: str, action, what: str, key: str | None) -> None:
    """The spec says ``action`` is refused without naming a class: nothing raised fails;
    an exception other than ValueError is the decision ``key``'s departure (a note unless
    strict). ``key`` None: the spec itself says ValueError."""
    problem = _refuses(action)
    if problem is None:
        report.passed(check)
    elif problem == "was accepted" or key is None:
        report.fail(check, where, f"{what} {problem}")
    else:
        report.decision(check, where, key, False, f"{what} {problem}")


def _check_rules(report, cache, index, constraint, step, taken: list[int], vocab_record, at: str) -> None:
    """token_index_rules at one step, on the candidate's own ``allowed`` ids and
    ``complete`` flag (the rules hold whatever the recorded masks say); ``constraint``
    is left untouched unless it wrongly accepts a token after EOS. What the spec states
    fails; the contract's decisions (error classes, ``next_state`` of specials and EOS)
    are notes unless strict."""
    check = "token_index_rules"
    eos, specials, empties = vocab_record["eos_id"], vocab_record["special_ids"], vocab_record["empty_ids"]
    allowed, complete = step.got, step.got_complete
    allowed_set = set(allowed)
    if getattr(constraint, "done", False):  # after EOS: nothing, and every advance refused
        for token in sorted({eos, *(allowed[:1] or [0])} - {None}):
            _expect_refusal(report, check, at, lambda: constraint.advance(token), f"advance({token}) after EOS",
                            "advance_refusal_valueerror")
        return
    bad = sorted(allowed_set & {*specials, *empties})
    report.expect(check, at, f"special or empty ids allowed: {bad}" if bad else None)
    if eos is not None and (eos in allowed_set) != complete:
        report.fail(check, at, f"EOS allowed is {eos in allowed_set} but complete is {complete}")
    else:
        report.passed(check)
    state = constraint.state
    disallowed = [t for t in range(vocab_record["size"]) if t not in allowed_set]
    ordinary = [t for t in disallowed if t != eos][:1]
    probes = sorted({*specials[:1], *empties[:1], *ordinary, *([eos] if eos is not None and not complete else [])})
    for token in probes:
        try:
            fresh = cache.constraint_at(index, state, taken)
        except Exception as exc:  # noqa: BLE001
            report.fail(check, at, f"a fresh Constraint in state {state} could not be made: {_describe(exc)}")
            return
        _expect_refusal(report, check, at, lambda: fresh.advance(token), f"advance({token}) of a disallowed token",
                        "advance_refusal_valueerror")
        key = ("next_state_refused_is_dead" if token in specials or token in empties
               else "eos_next_state" if token == eos else None)
        try:
            nxt = index.next_state(state, token)
        except Exception as exc:  # noqa: BLE001
            nxt = f"raised {_describe(exc)}"
        problem = None if nxt == DEAD else f"next_state({state}, {token}) is {nxt}, not DEAD"
        if key is None:  # a token whose bytes die: the spec's delta* is DEAD
            report.expect(check, at, problem)
        else:
            report.decision(check, at, key, problem is None, problem or "")


# --------------------------------------------------------------------------- refusals, dumps

def check_refusals(report, impl, patterns: list[dict], schemas: list[dict], check: str) -> None:
    """Each pattern is refused (the spec's constructs: any exception, ValueError the
    decision ``unsupported_syntax_valueerror``); Python syntax the spec does not name
    (``golden.readings.python_only_construct``) may instead be accepted with Python's
    meaning (a note on ``python_only_syntax_refused``), never with another. Each schema
    is refused with ValueError (spec 000 section 2.5), at either step (a bad repeat may be
    refused by ``regex_to_dfa``); a list of types and an empty enum are decisions."""
    for case in patterns:
        where = f"pattern {case['pattern']!r} ({case['reason']})"
        if readings.python_only_construct(case["reason"], case["pattern"]):
            _python_only(report, impl, case["pattern"], check, where)
            continue
        _expect_refusal(report, check, where, lambda: impl.regex_to_dfa(case["pattern"]), "regex_to_dfa",
                        "unsupported_syntax_valueerror")
    for case in schemas:
        schema = json.loads(case["schema"])
        where = f"schema {case['name']}"
        key = SCHEMA_DECISIONS.get(case["name"])
        problem = _refuses(lambda: impl.regex_to_dfa(impl.json_schema_to_regex(schema)))
        if problem is None:
            report.passed(check)
        elif key is not None:
            report.decision(check, where, key, False, f"the schema {problem}")
        else:
            report.fail(check, where, f"the schema {problem}")


SCHEMA_DECISIONS = {"type_list": "type_list_refused", "empty_enum": "empty_enum_refused"}
"""Refused schemas of the golden file whose refusal the spec does not state."""


def _python_only(report, impl, pattern: str, check: str, where: str) -> None:
    try:
        dfa = impl.regex_to_dfa(pattern)
    except Exception as exc:  # noqa: BLE001 - refused: what the contract decides (ValueError its class)
        report.decision(check, where, "unsupported_syntax_valueerror", isinstance(exc, ValueError),
                        f"regex_to_dfa raised {_describe(exc)}, not ValueError")
        return
    try:
        wrong = readings.first_disagreement_with_re(pattern, dfa.trans, dfa.accept, extra=(b"", b"a", b"A", b"aa"))
    except Exception as exc:  # noqa: BLE001 - tables that cannot be read
        report.fail(check, where, f"accepted, but its tables cannot be read: {_describe(exc)}")
        return
    if wrong is not None:
        report.fail(check, where, f"accepted with another language than Python's: re.fullmatch differs on {wrong!r}")
    else:
        report.decision(check, where, "python_only_syntax_refused", False, "accepted with Python's meaning")


def _single_string_problem(dfa, data: bytes) -> str | None:
    """None if the DFA's language is exactly ``{data}``, else the first reason it is not."""
    state = 0
    trans, accept = np.asarray(dfa.trans), np.asarray(dfa.accept)
    for i, byte in enumerate(data):
        live = np.flatnonzero(trans[state] != DEAD).tolist()
        if live != [byte] or accept[state]:
            return f"after {data[:i]!r}: live bytes {live[:8]}, accepting {bool(accept[state])}"
        state = int(trans[state, byte])
    if not accept[state] or (trans[state] != DEAD).any():
        return f"after the whole text: accepting {bool(accept[state])}, more bytes allowed"
    return None


def check_dumps(report, impl, doc: dict) -> None:
    """The recorded texts are this Python's; the candidate's ``{"const": value}`` language is
    exactly one of the spec's two readings of compact JSON: ``dumps`` (raw UTF-8, the
    contract's) or ``dumps_ascii`` (the literal call: a note on ``enum_const_raw_utf8``)."""
    check = "dumps_matches_python"
    for case in doc["dumps"]:
        where = f"dumps {case['name']}"
        value = json.loads(case["text"])
        for key, ascii_only in (("dumps", False), ("dumps_ascii", True)):
            got = json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only)
            if got != case[key]:
                report.fail(check, where, f"this Python writes {got!r}, the file says {case[key]!r}")
            else:
                report.passed(check)
        try:
            dfa = impl.regex_to_dfa(impl.json_schema_to_regex({"const": value}))
            problem = _single_string_problem(dfa, case["dumps"].encode("utf-8"))
            if problem and case["dumps_ascii"] != case["dumps"] \
                    and _single_string_problem(dfa, case["dumps_ascii"].encode("utf-8")) is None:
                report.decision(check, where, "enum_const_raw_utf8", False,
                                f'{{"const": value}} is {case["dumps_ascii"]!r}, the literal json.dumps call\'s')
                continue
        except Exception as exc:  # noqa: BLE001
            problem = f"raised {_describe(exc)}"
        if problem:
            report.fail(check, where, f'{{"const": value}} is neither {case["dumps"]!r} nor '
                                      f'{case["dumps_ascii"]!r}: {problem}')
        else:
            report.passed(check)


# --------------------------------------------------------------------------- outputs

def check_outputs(report, impl, cases: list[dict], vocab_record: dict, cache=None) -> None:
    """``constrained_output_always_parses`` (see the module docstring)."""
    from golden.walks import ReferenceWalker, walk
    from oracles.stdlib import check_document

    check = "constrained_output_always_parses"
    vocab, eos = fileformat.vocab_from_record(vocab_record), vocab_record["eos_id"]
    for i, case in enumerate(cases):
        where = f"schema {case['name']}"
        schema = json.loads(case["schema"])
        pattern = _candidate_pattern(report, check, where, impl, case, cache)
        if pattern is None:
            continue
        try:
            walker = ReferenceWalker(impl, pattern, vocab, eos)
        except Exception as exc:  # noqa: BLE001
            report.fail(check, where, f"building the grammar raised {_describe(exc)}")
            continue
        for j in range(OUTPUT_WALKS):
            at = f"{where} walk {j}"
            try:
                path = walk(walker, eos, [OUTPUT_SEED, i, j], budget=j, limit=OUTPUT_LIMIT)
            except Exception as exc:  # noqa: BLE001
                report.fail(check, at, f"the walk raised {_describe(exc)}")
                break
            report.expect(check, at, _output_problem(path, check_document(schema, path.text), eos))


def _output_problem(path, verdict, eos) -> str | None:
    if path.ended != "eos":
        return f"the walk ended {path.ended!r} after {len(path.tokens)} tokens, not with EOS ({path.text[:60]!r})"
    if not (verdict.parses and verdict.valid and verdict.ordered):
        return f"the output {path.text[:80]!r} does not pass: {verdict.reason}"
    return None


# --------------------------------------------------------------------------- sampling

def check_sampling(report, impl, record: dict) -> None:
    """``constrained_sample_hand_example`` (see the module docstring)."""
    check = "constrained_sample_hand_example"
    vocab, eos = fileformat.vocab_from_record(record["vocab"]), record["vocab"]["eos_id"]
    logits = record["logits"]
    try:
        constraint = _Cache(impl).constraint(impl.TokenIndex(impl.regex_to_dfa(record["pattern"]), vocab, eos))
        params = impl.SamplingParams(temperature=0.0)
    except Exception as exc:  # noqa: BLE001
        report.fail(check, "setup", f"building the constraint or SamplingParams raised {_describe(exc)}")
        return
    history: list[int] = []
    for i, step in enumerate(record["steps"]):
        if not _sample_step(report, impl, constraint, params, history, record, step, f"step {i}"):
            return
        history.append(step["token"])
    for refusal in record["refused"]:  # the spec: errors, without a class (ValueError: the contract's)
        fresh = np.asarray(logits, dtype=np.float64)
        if refusal["call"] == "apply_mask":
            _expect_refusal(report, check, refusal["name"],
                            lambda: impl.apply_mask(fresh, np.asarray(refusal["mask"], dtype=bool)),
                            "apply_mask with an all-false mask", "apply_mask_errors_valueerror")
        else:  # the constraint after EOS: its mask allows nothing
            _expect_refusal(report, check, refusal["name"],
                            lambda: impl.constrained_sample(fresh, constraint, params, list(history),
                                                            np.random.default_rng(0)),
                            "constrained_sample after EOS", "sample_after_eos_valueerror")


def _sample_step(report, impl, constraint, params, history, record: dict, step: dict, where: str) -> bool:
    """One greedy step; False when the candidate went elsewhere (the rest would drift)."""
    check = "constrained_sample_hand_example"
    try:
        allowed = np.flatnonzero(np.asarray(constraint.mask(), dtype=bool)).tolist()
        token, logprob = impl.constrained_sample(np.asarray(record["logits"], dtype=np.float64), constraint,
                                                 params, list(history), np.random.default_rng(0))
        token, logprob = int(token), float(logprob)
    except Exception as exc:  # noqa: BLE001
        report.fail(check, where, f"constrained_sample raised {_describe(exc)} (expected token {step['token']})")
        return False
    report.expect(check, where, None if allowed == step["allowed"] else
                  f"the mask allows {allowed}, expected {step['allowed']}")
    if token != step["token"]:
        report.fail(check, where, f"greedy took token {token}, expected {step['token']} "
                                  f"(the largest allowed logit among {step['allowed']})")
        return False
    report.passed(check)
    off = abs(logprob - float(step["logprob"]))
    report.expect(check, where, None if off <= float(record["tolerance"]) else
                  f"logprob {logprob!r}, expected {step['logprob']} = {step['logprob_formula']} (off by {off:.3g})")
    return True


# --------------------------------------------------------------------------- entry points

def check_vocab_bytes(report, impl, record: dict, tokenizer) -> None:
    """Spec 002's ``vocab_bytes_marks_specials``: specials map to None, every other token to its bytes."""
    check = "vocab_bytes_marks_specials"
    try:
        got = list(impl.vocab_bytes(tokenizer(record["tokens"], record["special_ids"])))
    except Exception as exc:  # noqa: BLE001 - a candidate's exception is a finding
        report.fail(check, "vocab_bytes", f"raised {_describe(exc)}")
        return
    if len(got) != record["size"]:
        report.fail(check, "vocab_bytes", f"{len(got)} entries for a vocabulary of {record['size']} ids")
        return
    for i, (token, want) in enumerate(zip(got, record["tokens_hex"])):
        where = f"vocab_bytes id {i} ({record['tokens'][i]!r}, cl100k id {record['source_ids'][i]})"
        if want is None:
            report.expect(check, where, None if token is None else f"a special token has bytes {token!r:.60}")
        else:
            report.expect(check, where, None if token is not None and bytes(token) == bytes.fromhex(want) else
                          f"bytes {token!r:.60}, expected {bytes.fromhex(want)!r}")


def replay_constrain(doc: dict, impl, *, strict_regex: bool = False, strict: bool = False,
                     tokenizer=None) -> ReplayReport:
    """Replay constrain_golden.json (a loaded document) against ``impl``; ``strict``: the
    contract's decisions fail (``golden replay --strict``), else they are notes; ``tokenizer``:
    how ``vocab_bytes_marks_specials`` builds its tokenizer from ``(tokens, special_ids)``
    (default ``readings.RecordedTokenizer``)."""
    report = ReplayReport(fileformat.FILES["constrain_golden"], strict=strict)
    cache = _Cache(impl)
    automata = doc["schemas"] + doc["patterns"]
    l87 = doc["l8_7_cases"]
    check_dfas(report, impl, cache, automata + l87["cases"], strict_regex=strict_regex)
    check_masks(report, impl, cache, automata, doc["vocab"], "masks_match_python_l8_7")
    check_masks(report, impl, cache, l87["cases"], l87["vocab"], "masks_match_python_l8_7")
    check_masks(report, impl, cache, doc["no_eos"]["cases"], doc["no_eos"]["vocab"], "masks_match_python_l8_7")
    check_refusals(report, impl, doc["refused_patterns"], doc["refused_schemas"], "subset_errors_are_refused")
    extra = doc["refused_extra"]
    check_refusals(report, impl, extra["patterns"], extra["schemas"], "refused_extra")
    check_dumps(report, impl, doc)
    check_sampling(report, impl, doc["constrained_sample_hand_example"])
    check_outputs(report, impl, doc["schemas"], doc["vocab"], cache)
    check_vocab_bytes(report, impl, doc["vocab_bytes"], tokenizer or readings.RecordedTokenizer)
    return report


def replay_masks(doc: dict, impl, *, strict: bool = False) -> ReplayReport:
    """Replay masks_golden.json (a loaded document) against ``impl`` (``strict``: as above)."""
    report = ReplayReport(fileformat.FILES["masks_golden"], strict=strict)
    check_masks(report, impl, _Cache(impl), doc["cases"], doc["vocab"], "masks_match_the_golden_file")
    return report
