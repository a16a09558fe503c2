"""Replay the golden files against any implementation of the constrain contract.

``replay_constrain(doc, impl)`` checks what the Rust port's tests check (seed
``002_...``, "What the tests check"), so that we and the file's consumers read the
file the same way; ``replay_masks(doc, impl)`` is the Python module's
``test_masks_match_the_golden_file`` (seed ``000_...``). ``impl`` is a module-like
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
  the lowest disallowed id, EOS before a whole string) raises ValueError and
  ``next_state`` gives DEAD for it; after EOS every ``advance`` raises.
- ``subset_errors_are_refused``: each of the 15 refused patterns raises ValueError
  from ``regex_to_dfa``; each of the 11 refused schemas from ``json_schema_to_regex``
  (or, for a refusal the reference makes at the ``regex`` stage, from either step).
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
  exactly that one text: the value a schema names is the text a model can write.
- ``masks_match_the_golden_file`` (``replay_masks``): as ``masks_match_python_l8_7``
  for masks_golden.json, schemas through the candidate's own translation.

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

from golden import fileformat

DEAD = -1
CHECKS = ("dfa_matches_python_l8_7", "masks_match_python_l8_7", "subset_errors_are_refused",
          "refused_extra", "dumps_matches_python", "token_index_rules", "constrained_sample_hand_example",
          "constrained_output_always_parses", "masks_match_the_golden_file")
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
    """The candidate's DFA and TokenIndex per pattern (built once per replay)."""

    def __init__(self, impl):
        self.impl = impl
        self.dfas: dict[str, object] = {}
        self.indexes: dict[tuple, object] = {}

    def dfa(self, pattern: str):
        if pattern not in self.dfas:
            self.dfas[pattern] = self.impl.regex_to_dfa(pattern)
        return self.dfas[pattern]

    def index(self, pattern: str, vocab, eos_id):
        key = (pattern, tuple(vocab), eos_id)
        if key not in self.indexes:
            self.indexes[key] = self.impl.TokenIndex(self.dfa(pattern), vocab, eos_id)
        return self.indexes[key]


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"


def _compare_dfa(report, check: str, where: str, dfa, record: dict) -> None:
    want_trans, want_accept = fileformat.dfa_from_record(record)
    trans, accept = np.asarray(dfa.trans), np.asarray(dfa.accept)
    if int(dfa.n_states) != record["n_states"] or trans.shape != want_trans.shape:
        report.fail(check, where, f"n_states {dfa.n_states}, expected {record['n_states']}")
        return
    bad = np.flatnonzero(accept.astype(bool) != want_accept)
    if bad.size:
        s = int(bad[0])
        report.fail(check, where, f"state {s} accepting {bool(accept[s])}, expected {bool(want_accept[s])}")
        return
    diff = np.argwhere(trans != want_trans)
    if diff.size:
        s, b = (int(x) for x in diff[0])
        report.fail(check, where, f"{len(diff)} transitions differ, first: state {s} byte 0x{b:02x} goes to "
                                  f"{int(trans[s, b])}, expected {int(want_trans[s, b])}")
        return
    report.passed(check)


def _candidate_pattern(report, check: str, where: str, impl, case: dict) -> str | None:
    """The candidate's regex for a case: the pattern itself, or its schema's translation."""
    if case["kind"] == "pattern":
        return case["pattern"]
    try:
        return impl.json_schema_to_regex(json.loads(case["schema"]))
    except Exception as exc:  # noqa: BLE001 - a candidate's failure is a finding
        report.fail(check, where, f"json_schema_to_regex raised {_describe(exc)}")
        return None


# --------------------------------------------------------------------------- dfa

def check_dfas(report, impl, cache, cases: list[dict], *, strict_regex: bool) -> None:
    check = "dfa_matches_python_l8_7"
    for case in cases:
        where = f"{case['kind']} {case['name']}"
        pattern = _candidate_pattern(report, check, where, impl, case)
        if pattern is None:
            continue
        if case["kind"] == "schema":
            if pattern != case["pattern"]:
                report.fail(check, where, f"regex text differs from the recorded one: {pattern[:80]!r}...",
                            level="fail" if strict_regex else "note")
            else:
                report.passed(check)
        try:
            dfa = cache.dfa(pattern)
        except Exception as exc:  # noqa: BLE001
            report.fail(check, where, f"regex_to_dfa raised {_describe(exc)}")
            continue
        _compare_dfa(report, check, where, dfa, case["dfa"])


# --------------------------------------------------------------------------- masks

def check_masks(report, impl, cache, cases: list[dict], vocab_record: dict, check: str) -> None:
    vocab = fileformat.vocab_from_record(vocab_record)
    eos = vocab_record["eos_id"]
    for case in cases:
        where = f"{case['kind']} {case['name']}"
        pattern = _candidate_pattern(report, check, where, impl, case)
        if pattern is None:
            continue
        try:
            index = cache.index(pattern, vocab, eos)
        except Exception as exc:  # noqa: BLE001
            report.fail(check, where, f"building the TokenIndex raised {_describe(exc)}")
            continue
        for path in case["paths"]:
            _replay_path(report, impl, index, path, vocab, vocab_record, check, f"{where} path {path['seed']}")


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


def _replay_path(report, impl, index, path: dict, vocab, vocab_record: dict, check: str, where: str) -> None:
    try:
        constraint = impl.Constraint(index)
    except Exception as exc:  # noqa: BLE001
        report.fail(check, where, f"Constraint(index) raised {_describe(exc)}")
        return
    try:
        for step in walk_path(constraint, path, vocab, vocab_record["eos_id"]):
            at = f"{where} step {step.number}"
            _check_rules(report, impl, index, constraint, step.got, step.got_complete, vocab_record, at)
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


def _check_rules(report, impl, index, constraint, allowed, complete, vocab_record, at: str) -> None:
    """token_index_rules at one step, on the candidate's own ``allowed`` ids and
    ``complete`` flag (the rules hold whatever the recorded masks say); ``constraint``
    is left untouched unless it wrongly accepts a token after EOS."""
    check = "token_index_rules"
    eos, specials, empties = vocab_record["eos_id"], vocab_record["special_ids"], vocab_record["empty_ids"]
    allowed_set = set(allowed)
    if getattr(constraint, "done", False):  # after EOS: nothing, and every advance refused
        for token in sorted({eos, *(allowed[:1] or [0])} - {None}):
            problem = _refuses(lambda: constraint.advance(token))
            report.expect(check, at, f"advance({token}) after EOS {problem}" if problem else None)
        return
    bad = sorted(allowed_set & {*specials, *empties})
    report.expect(check, at, f"special or empty ids allowed: {bad}" if bad else None)
    if eos is not None and (eos in allowed_set) != complete:
        report.fail(check, at, f"EOS allowed is {eos in allowed_set} but complete is {complete}")
    else:
        report.passed(check)
    state = constraint.state
    disallowed = [t for t in range(vocab_record["size"]) if t not in allowed_set]
    probes = sorted({*specials[:1], *empties[:1], *[t for t in disallowed if t != eos][:1],
                     *([eos] if eos is not None and not complete else [])})
    for token in probes:
        try:
            fresh = impl.Constraint(index, state)
        except Exception as exc:  # noqa: BLE001
            report.fail(check, at, f"Constraint(index, {state}) raised {_describe(exc)}")
            return
        problem = _refuses(lambda: fresh.advance(token))
        report.expect(check, at, f"advance({token}) of a disallowed token {problem}" if problem else None)
        try:
            nxt = index.next_state(state, token)
        except Exception as exc:  # noqa: BLE001
            report.fail(check, at, f"next_state({state}, {token}) raised {_describe(exc)}")
            continue
        report.expect(check, at, None if nxt == DEAD else f"next_state({state}, {token}) is {nxt}, not DEAD")


# --------------------------------------------------------------------------- refusals, dumps

def check_refusals(report, impl, patterns: list[dict], schemas: list[dict], check: str) -> None:
    for case in patterns:
        problem = _refuses(lambda: impl.regex_to_dfa(case["pattern"]))
        where = f"pattern {case['pattern']!r} ({case['reason']})"
        report.expect(check, where, f"regex_to_dfa {problem}" if problem else None)
    for case in schemas:
        schema = json.loads(case["schema"])
        where = f"schema {case['name']}"
        if case["stage"] == "schema":
            problem = _refuses(lambda: impl.json_schema_to_regex(schema))
        else:
            problem = _refuses(lambda: impl.regex_to_dfa(impl.json_schema_to_regex(schema)))
        report.expect(check, where, f"the schema {problem}" if problem else None)


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
        except Exception as exc:  # noqa: BLE001
            problem = f"raised {_describe(exc)}"
        if problem:
            report.fail(check, where, f'{{"const": value}} is not exactly {case["dumps"]!r}: {problem}')
        else:
            report.passed(check)


# --------------------------------------------------------------------------- outputs

def check_outputs(report, impl, cases: list[dict], vocab_record: dict) -> None:
    """``constrained_output_always_parses`` (see the module docstring)."""
    from golden.walks import ReferenceWalker, walk
    from oracles.stdlib import check_document

    check = "constrained_output_always_parses"
    vocab, eos = fileformat.vocab_from_record(vocab_record), vocab_record["eos_id"]
    for i, case in enumerate(cases):
        where = f"schema {case['name']}"
        schema = json.loads(case["schema"])
        try:
            walker = ReferenceWalker(impl, impl.json_schema_to_regex(schema), vocab, eos)
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
        constraint = impl.Constraint(impl.TokenIndex(impl.regex_to_dfa(record["pattern"]), vocab, eos))
        params = impl.SamplingParams(temperature=0.0)
    except Exception as exc:  # noqa: BLE001
        report.fail(check, "setup", f"building the constraint or SamplingParams raised {_describe(exc)}")
        return
    history: list[int] = []
    for i, step in enumerate(record["steps"]):
        if not _sample_step(report, impl, constraint, params, history, record, step, f"step {i}"):
            return
        history.append(step["token"])
    for refusal in record["refused"]:
        fresh = np.asarray(logits, dtype=np.float64)
        if refusal["call"] == "apply_mask":
            problem = _refuses(lambda: impl.apply_mask(fresh, np.asarray(refusal["mask"], dtype=bool)))
        else:  # the constraint after EOS: its mask allows nothing
            problem = _refuses(lambda: impl.constrained_sample(fresh, constraint, params, list(history),
                                                               np.random.default_rng(0)))
        message = f"{refusal['call']} with an all-false mask {problem}" if problem else None
        report.expect(check, refusal["name"], message)


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

def replay_constrain(doc: dict, impl, *, strict_regex: bool = False) -> ReplayReport:
    """Replay constrain_golden.json (a loaded document) against ``impl``."""
    report = ReplayReport(fileformat.FILES["constrain_golden"])
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
    check_outputs(report, impl, doc["schemas"], doc["vocab"])
    return report


def replay_masks(doc: dict, impl) -> ReplayReport:
    """Replay masks_golden.json (a loaded document) against ``impl``."""
    report = ReplayReport(fileformat.FILES["masks_golden"])
    check_masks(report, impl, _Cache(impl), doc["cases"], doc["vocab"], "masks_match_the_golden_file")
    return report
