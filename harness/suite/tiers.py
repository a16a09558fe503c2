"""Two tiers of grading: what the spec states, and what our contract decides beyond it.

The default tier asserts only what the spec's text (``000_4b494d6fc237472e.txt``,
sections 2-5) states, and accepts every reading consistent with it. Where the spec is
silent, the contract (``harness/contract/constrain.pyi``) takes a decision ("Decision:"
in its docstrings); a test checks such a decision through ``decision(...)``:

- under ``check --strict`` a departure fails the test, like any assertion;
- in the default tier it is recorded as a note ("contract decision not met: ...") that
  the report prints, and it changes neither the verdict nor the exit code.

Every key passed to ``decision`` is a row of ``DECISIONS`` (the table the contract's
documentation prints), so a course sees exactly what each tier grades.

Example::

    >>> set_strict(False)
    >>> decision("step_out_of_range_valueerror", False, "DFA.step(99) raised IndexError")
    >>> drain_notes()
    ['contract decision not met: step_out_of_range_valueerror: DFA.step(99) raised IndexError']
    >>> set_strict(True)
    >>> decision("step_out_of_range_valueerror", False, "raised IndexError")
    Traceback (most recent call last):
    ...
    AssertionError: contract decision not met: step_out_of_range_valueerror: raised IndexError

As a pytest plugin (registered by ``harness/suite/conftest.py``): ``--strict`` selects
the tier (pytest's own flag of that name, which also makes markers and config strict: the
catalogue registers every marker it uses), and after each test's call phase the notes it recorded are put in
``report.user_properties`` as ``("notes", [str, ...])`` (absent when there are none).

The tier and the notes are the catalogue state in force's (``harness.suite.session``: the running
session's, kept in its ``config.stash``; none is a module global of this one).

Invariant: ``decision`` never raises in the default tier (a departure is a note, never a
failure); an unknown key is an internal error (``KeyError``), loud in both tiers.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.suite import session

__all__ = ["Decision", "DECISIONS", "decision", "register", "set_strict", "is_strict", "drain_notes", "keep_notes",
           "decision_table", "record"]


@dataclass(frozen=True)
class Decision:
    """One contract decision the spec does not state: its key and what it requires."""

    key: str
    requires: str


# The table: every decision a catalogue test may check through ``decision(key, ...)``.
# Registered below, in one place, so the table is complete as soon as this module is
# imported (the contract's documentation is checked against it by tests/suite/test_fairness.py).
DECISIONS: dict[str, Decision] = {}


def register(key: str, requires: str) -> Decision:
    """Add a row to ``DECISIONS``."""
    row = Decision(key, requires)
    if DECISIONS.get(key, row) != row:
        raise KeyError(f"decision {key!r} registered twice with different texts")
    DECISIONS[key] = row
    return row


for _key, _requires in (
    # the DFA
    ("step_from_dead", "`DFA.step(DEAD, data)` returns DEAD"),
    ("step_out_of_range_valueerror", "`DFA.step` raises ValueError for a state neither DEAD nor in range(n_states)"),
    ("unsupported_syntax_valueerror", "refused patterns (anchors, backreferences, lookarounds, lazy quantifiers, "
     "non-ASCII, bad repeats, unbalanced groups, empty language) raise ValueError, not another exception"),
    ("repeat_cap", "a repeat bound over the documented cap (`a{1000000000}`) raises ValueError (checked only "
     "under --strict: an uncapped reading builds a billion states)"),
    ("extra_regex_syntax", "`(?:...)`, an empty alternation branch, `\\xHH`, `]` first in a class and `{0}` are "
     "accepted with Python's meaning (a refusal is a note; another meaning fails in both tiers)"),
    ("python_only_syntax_refused", "Python syntax the spec does not name (inline flags `(?i)`, named groups "
     "`(?P<n>...)`, comments `(?#...)`, possessive and atomic forms) is refused (accepting it with Python's "
     "meaning is a note; another meaning fails in both tiers)"),
    ("newer_python_readings", "a pattern Python's versions read differently (possessive and atomic forms, a "
     "global flag past the start, a conditional's group name, a `t` flag: `facts.constructs.READ_AS_NEWER_PYTHONS`) "
     "raises ValueError where the running Python's `re` refuses it, and where that `re` compiles it is refused "
     "with ValueError or matches as its `re.fullmatch` does; another exception, an acceptance of a pattern `re` "
     "refuses or another meaning departs (checked by the deep tier only: every Python is given every Python's "
     "readings, so the code a reference keeps for another Python's reading runs and is graded)"),
    ("bytes_pattern_typeerror", "`regex_to_dfa` raises TypeError for a pattern that is not a str"),
    ("dfa_from_tables", "`DFA(trans, accept)` given a canonical DFA's tables (one state or more) is that DFA"),
    ("dfa_bad_input_refused", "`DFA(trans, accept)` refuses tables that are no DFA's (a target outside DEAD..n-1, "
     "`trans` not of shape (n, 256) or ragged, no state, `accept` not 1-D of 0/1) with ValueError or TypeError, "
     "and "
     "`DFA.step` a state or data of a wrong Python type with TypeError (checked by the deep tier only)"),
    ("bad_arguments_refused", "`SamplingParams` refuses temperature < 0, top_k < 0, top_p outside (0, 1] and "
     "repetition_penalty <= 0 or an int past the float range with ValueError, `sample` logits all -inf, "
     "holding NaN or +inf, not 1-D or empty "
     "with ValueError, `TokenIndex` an eos_id out of range or a vocabulary entry neither bytes nor None with "
     "ValueError; a wrong Python type (a field, p, c, rng, a history id, dfa, vocab, eos_id, a state, a tokenizer "
     "for `vocab_bytes`, complex logits, `apply_mask` a mask not bool or logits not numbers, `Constraint` an "
     "index that is no TokenIndex) with TypeError (checked by the deep tier only)"),
    ("python_escapes_and_repeat_forms", "control escapes (`\\a`, `\\f`, `[\\b]`), octal escapes and the repeat "
     "forms `{,n}`, `{n,n}` are accepted with Python's meaning (accepting one with another meaning fails in "
     "both tiers)"),
    # masks and the constraint
    ("mask_out_of_range_valueerror", "`TokenIndex.mask` raises ValueError for a state out of range(n_states)"),
    ("next_state_out_of_range_valueerror", "`TokenIndex.next_state` raises ValueError for a state or token id "
     "out of range"),
    ("float_token_id_typeerror", "`TokenIndex.next_state` raises TypeError for a float token id (`9.0`), "
     "never reading it as an int"),
    ("next_state_refused_is_dead", "`next_state` returns DEAD for a special (None) or empty token"),
    ("eos_next_state", "`next_state(s, eos_id)` is s when s accepts, else DEAD"),
    ("eos_keeps_state", "`Constraint.state` is unchanged by EOS"),
    ("mask_after_eos_empty", "`Constraint.mask()` after EOS is an all-False bool [V]"),
    ("refusal_changes_nothing", "a refused `advance` leaves `state`, `done` and `mask()` unchanged"),
    ("advance_refusal_valueerror", "`Constraint.advance` refuses a token with ValueError, not another exception"),
    # sampling
    ("apply_mask_errors_valueerror", "`apply_mask` raises ValueError for an all-False mask or a shape mismatch"),
    ("apply_mask_accepts_lists", "`apply_mask` accepts Python lists for logits and mask"),
    ("history_out_of_range_valueerror", "under a repetition penalty, `constrained_sample` raises ValueError for "
     "a history or prompt token id outside range(V) (a negative id never wraps around)"),
    ("tiny_temperature_is_greedy", "`sample` at a temperature > 0 so small that `logits / T` overflows (1e-300 "
     "beside logits of 1e9, a subnormal 5e-324) draws the largest logit, as the greedy limit T -> 0 does, with the "
     "logprob of the logits before temperature; a NaN, an error or another token departs (checked by the deep tier "
     "only)"),
    ("sample_after_eos_valueerror", "`constrained_sample` on a finished constraint raises ValueError"),
    # schemas
    ("non_object_subschema_valueerror", "a subschema that is no JSON object and no boolean (`\"items\": 5`, "
     "a property's schema `\"x\"`, an `anyOf` branch `null`: JSON Schema's meta-schema refuses each) raises "
     "ValueError, not another exception (checked by the deep tier only)"),
    ("malformed_schema_valueerror", "a schema JSON Schema's meta-schema refuses (`\"type\": 5`, `\"minItems\": -1`, "
     "`\"required\": [\"a\", \"a\"]`, `\"anyOf\": []`) or that is no JSON (a non-string key, NaN, a set, a lone "
     "surrogate: TypeError allowed too), and a schema of any JSON value (`{}`, `\"items\": true`), raise ValueError; "
     "keywords the subset names only alone (`enum` beside `const`, `type` beside `anyOf`) are refused with "
     "ValueError or read with JSON Schema's meaning; a `const` integer `json` will not write (over 4,300 digits) "
     "is refused with ValueError or compiled exactly; an argument that is no dict (`5`, `None`, a list) raises "
     "TypeError (checked by the deep tier only)"),
    ("annotations_accepted", "the annotations title, description, $comment, $schema, examples and default are "
     "accepted (the spec also allows refusing them with ValueError)"),
    ("type_with_enum", "`enum` or `const` next to a matching `type` is accepted"),
    ("type_list_refused", "a list of types (`\"type\": [\"string\", \"null\"]`) raises ValueError"),
    ("enum_const_raw_utf8", "enum/const values and property names are written as compact JSON with raw UTF-8 "
     "(`ensure_ascii=False`, as the port's `dumps` writes); the spec's literal call `json.dumps(v, "
     "separators=(\",\", \":\"))` escapes non-ASCII and DEL as `\\uXXXX`: that reading passes every tier but "
     "--strict"),
    ("empty_enum_refused", "an empty `enum` raises ValueError"),
    ("array_without_items_refused", "an array schema without `items` raises ValueError"),
    ("large_enum_accepted", "an `enum` of 5,000 ten-letter strings (a regex of about 75,000 characters) is "
     "accepted with the spec's meaning: size bounds stay above realistic tool schemas"),
    # token bytes
    ("byte_map_functions", "`bytes_to_unicode()` / `unicode_to_bytes()` are exported and are GPT-2's byte map"),
    ("vocab_bytes_tiktoken", "`vocab_bytes` reads a tiktoken-style encoding (`decode_single_token_bytes`), with "
     "special tokens (None) or none"),
    ("vocab_bytes_token_list", "`vocab_bytes` reads a plain list or tuple of token strings with the spec's rule"),
    ("vocab_bytes_tokenizers", "`vocab_bytes` reads a Hugging Face `tokenizers.Tokenizer` (a trained byte-level "
     "BPE; an added special token is None, an added token that is not special the bytes the spec's rule gives "
     "its text: ASCII, or text holding a character outside the byte map)"),
    # the port's tool surface (golden replay --file tools): the reference's choices the spec does not state
    ("tools_render_refuses_bad_messages", "`render_messages` refuses a malformed conversation (messages not an "
     "array, an unknown role, a content that is a number, tool-call arguments that are not a JSON object) "
     "with the OpenAI error shape and the reference's status"),
    ("tools_render_arguments_verbatim", "`render_messages` writes an assistant's tool-call arguments back as the "
     "client sent them (re-serializing them as compact JSON, key order kept, is a note)"),
    ("tools_json_byte_form", "`message_json` and `delta_json` write the reference's byte form: its key order, "
     "`tool_calls` omitted when empty (the shape itself is the spec's and fails in both tiers)"),
    # issue 52 item 3, the spec's survivors outside vocab.py (branch kill10r)
    ("tiny_temperature_ties_drawn", "`sample` at a temperature > 0 so small that `logits / T` overflows draws each "
     "of equal largest logits (softmax(x / T) weighs them equally at every T > 0; the lowest id alone is "
     "greedy's rule at T = 0): only one of them, a NaN or an error departs (checked by the deep tier only)"),
    ("dfa_tables_of_other_dtypes", "`DFA(trans, accept)` given a canonical DFA's tables as other integer types "
     "(`trans` int64, `accept` 0/1 integers) is that DFA, with `trans` int32 and `accept` bool (checked by the "
     "deep tier only)"),
    ("deep_nest_compiled_or_valueerror", "a pattern of 300 groups nested inside one another (Python's `re` compiles "
     "it) compiles with Python's meaning or is refused with ValueError (a size bound); a RecursionError or "
     "another exception departs (checked by the deep tier only)"),
    # token bytes beyond the readers above (branch kill10v: the vocab.py survivors of issue 52 item 3)
    ("vocab_bytes_transformers", "`vocab_bytes` reads a `transformers` tokenizer (`len`, `convert_ids_to_tokens`, "
     "`all_special_ids`) over ids 0..len-1: an id it answers None for (a hole, as fast tokenizers answer) is None, "
     "a special id past len is ignored (checked by the deep tier only)"),
    ("vocab_bytes_bytes_tokens", "`vocab_bytes` gives a token a tokenizer answers as bytes (`convert_ids_to_tokens` "
     "of tiktoken-based `transformers` tokenizers, such as Qwen's) those bytes (checked by the deep tier only)"),
    ("vocab_bytes_empty", "`vocab_bytes` of a tokenizer holding no token (an untrained `tokenizers.Tokenizer`) is "
     "`[]` (checked by the deep tier only)"),
    ("vocab_bytes_malformed_refused", "`vocab_bytes` refuses a malformed tokenizer of a kind it reads with "
     "ValueError or TypeError: a negative token id, two tokens with one id, a token that is no str (bytes or None "
     "from `convert_ids_to_tokens` aside), a lone surrogate, an added token whose content is no str, "
     "`convert_ids_to_tokens` answering other than one token an id, a token id that is no int, "
     "`decode_single_token_bytes` answering no bytes; added tokens past `get_vocab`'s ids are refused so or ignored "
     "(checked by the deep tier only)"),
):
    register(_key, _requires)


def set_strict(strict: bool) -> None:
    """Set the tier of the catalogue state in force (``harness.suite.session``: a session's is set by
    the plugin from its run value, and from pytest's ``--strict`` below)."""
    session.current().strict = bool(strict)


def is_strict() -> bool:
    return session.current().strict


def decision(key: str, ok: bool, message: str) -> None:
    """Check a contract decision: fail under ``--strict``, else note a departure."""
    if key not in DECISIONS:
        raise KeyError(f"unknown contract decision {key!r}: register it in harness.suite.tiers")
    if ok:
        return
    text = f"contract decision not met: {key}: {message}"
    state = session.current()
    if state.strict:
        raise AssertionError(text)
    state.notes.append(text)


def record(name: str, value) -> None:
    """A fact about the run for the report (e.g. ``("shape", "Constraint(index)")``): put in
    the current test's ``user_properties`` by the plugin."""
    session.current().properties.append((name, value))


def drain_notes() -> list[str]:
    """The notes recorded since the last call (the plugin calls it after each test)."""
    state = session.current()
    notes, state.notes = state.notes, []
    return notes


def keep_notes(notes: list[str]) -> None:
    """Add ``notes`` as if recorded here since the last ``drain_notes`` (the notes a twin grader
    drained at the end of a test it ran for this process: ``harness.suite.twin.replay``)."""
    session.current().notes.extend(notes)


def decision_table() -> str:
    """``DECISIONS`` as the Markdown table the contract's documentation holds (one row per
    key, sorted): the rows graded only under ``check --strict``."""
    lines = ["| decision (graded only with --strict) | the contract requires |", "|---|---|"]
    for key in sorted(DECISIONS):
        lines.append(f"| `{key}` | {DECISIONS[key].requires} |")
    return "\n".join(lines)


# --------------------------------------------------------------------------- the plugin


def pytest_addoption(parser) -> None:
    # pytest (>= 6) has its own ``--strict`` (strict markers/config): the tier reads that
    # same flag, which ``check --strict`` passes; registered here only where pytest lacks it.
    if "--strict" in _registered_option_names(parser):
        return
    parser.getgroup("constrain-harness tiers").addoption(
        "--strict", action="store_true", default=False, dest="strict",
        help="grade the contract's decisions too (default: the spec's text only; a departure is a note)")


def _registered_option_names(parser) -> set[str]:
    groups = [*getattr(parser, "_groups", ()), getattr(parser, "_anonymous", None)]
    return {name for group in groups if group is not None for option in group.options for name in option.names()}


def pytest_configure(config) -> None:
    set_strict(bool(config.getoption("strict", default=False)))
    drain_notes()


def pytest_runtest_setup(item) -> None:
    drain_notes()  # a note belongs to the test that recorded it


def _attach_notes(report) -> None:
    notes = drain_notes()
    if notes:
        report.user_properties.append(("notes", notes))
    state = session.current()
    properties, state.properties = state.properties, []
    report.user_properties.extend(properties)


try:  # the hook wrapper needs pytest; the module stays importable without it (doctest, docs)
    import pytest as _pytest

    @_pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        outcome = yield
        if call.when == "call":
            _attach_notes(outcome.get_result())
except ImportError:  # pragma: no cover
    pass
