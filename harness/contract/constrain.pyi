r"""The constrain contract: what an implementation graded by constrain-harness provides.

This is the spec's section 4 (000_4b494d6fc237472e.txt) made precise. Every name here
must be importable from the candidate module. Where the spec is silent, the decision
taken is written in the docstring as "Decision:".

Conventions
-----------
- Bytes are ``bytes``; a token id is an ``int``; arrays are numpy arrays.
- The catalogue calls every function the way section 4 declares it: positional
  arguments (their names are free), ``eos_id`` and ``prompt`` by name. The spec gives
  ``Constraint`` no constructor: the catalogue builds it as ``Constraint(index)``, then
  ``Constraint(index, 0)``, then ``Constraint(index=index)`` (the first that works).
- Bad input raises ``ValueError`` naming what is wrong and where (a pattern offset, a
  JSON pointer, a token id and state). A wrong Python type raises ``TypeError``.
- ``ValueError`` subclasses are allowed (the reference raises refined ones).

Two tiers of grading
--------------------
``constrain-harness check`` (the default tier) grades only what the spec's text states
(sections 2-5, the test table, the pitfalls) and accepts every reading consistent with it:
where the spec says only that something is refused or an error, any exception passes;
where it admits two readings (annotation keywords refused with ValueError, or accepted
without changing the language), both pass. ``check --strict`` also grades the decisions
below; in the default tier a departure from one is printed as a note ("contract decision
not met: ...") and changes neither the verdict nor the exit code. A course should grade
with the default tier. The table is ``harness.suite.tiers.DECISIONS`` (a test keeps the two
equal):

<!-- decisions: generated from harness.suite.tiers.DECISIONS -->
| decision (graded only with --strict) | the contract requires |
|---|---|
| `advance_refusal_valueerror` | `Constraint.advance` refuses a token with ValueError, not another exception |
| `annotations_accepted` | the annotations title, description, $comment, $schema, examples and default are accepted (the spec also allows refusing them with ValueError) |
| `apply_mask_accepts_lists` | `apply_mask` accepts Python lists for logits and mask |
| `apply_mask_errors_valueerror` | `apply_mask` raises ValueError for an all-False mask or a shape mismatch |
| `array_without_items_refused` | an array schema without `items` raises ValueError |
| `bad_arguments_refused` | `SamplingParams` refuses temperature < 0, top_k < 0, top_p outside (0, 1] and repetition_penalty <= 0 or an int past the float range with ValueError, `sample` logits all -inf, holding NaN or +inf, not 1-D or empty with ValueError, `TokenIndex` an eos_id out of range or a vocabulary entry neither bytes nor None with ValueError; a wrong Python type (a field, p, c, rng, a history id, dfa, vocab, eos_id, a state, a tokenizer for `vocab_bytes`, complex logits, `apply_mask` a mask not bool or logits not numbers, `Constraint` an index that is no TokenIndex) with TypeError (checked by the deep tier only) |
| `byte_map_functions` | `bytes_to_unicode()` / `unicode_to_bytes()` are exported and are GPT-2's byte map |
| `bytes_pattern_typeerror` | `regex_to_dfa` raises TypeError for a pattern that is not a str |
| `deep_nest_compiled_or_valueerror` | a pattern of 300 groups nested inside one another (Python's `re` compiles it) compiles with Python's meaning or is refused with ValueError (a size bound); a RecursionError or another exception departs (checked by the deep tier only) |
| `dfa_bad_input_refused` | `DFA(trans, accept)` refuses tables that are no DFA's (a target outside DEAD..n-1, `trans` not of shape (n, 256) or ragged, no state, `accept` not 1-D of 0/1) with ValueError or TypeError, and `DFA.step` a state or data of a wrong Python type with TypeError (checked by the deep tier only) |
| `dfa_from_tables` | `DFA(trans, accept)` given a canonical DFA's tables (one state or more) is that DFA |
| `dfa_tables_of_other_dtypes` | `DFA(trans, accept)` given a canonical DFA's tables as other integer types (`trans` int64, `accept` 0/1 integers) is that DFA, with `trans` int32 and `accept` bool (checked by the deep tier only) |
| `empty_enum_refused` | an empty `enum` raises ValueError |
| `enum_const_raw_utf8` | enum/const values and property names are written as compact JSON with raw UTF-8 (`ensure_ascii=False`, as the port's `dumps` writes); the spec's literal call `json.dumps(v, separators=(",", ":"))` escapes non-ASCII and DEL as `\uXXXX`: that reading passes every tier but --strict |
| `eos_keeps_state` | `Constraint.state` is unchanged by EOS |
| `eos_next_state` | `next_state(s, eos_id)` is s when s accepts, else DEAD |
| `extra_regex_syntax` | `(?:...)`, an empty alternation branch, `\xHH`, `]` first in a class and `{0}` are accepted with Python's meaning (a refusal is a note; another meaning fails in both tiers) |
| `float_token_id_typeerror` | `TokenIndex.next_state` raises TypeError for a float token id (`9.0`), never reading it as an int |
| `history_out_of_range_valueerror` | under a repetition penalty, `constrained_sample` raises ValueError for a history or prompt token id outside range(V) (a negative id never wraps around) |
| `large_enum_accepted` | an `enum` of 5,000 ten-letter strings (a regex of about 75,000 characters) is accepted with the spec's meaning: size bounds stay above realistic tool schemas |
| `malformed_schema_valueerror` | a schema JSON Schema's meta-schema refuses (`"type": 5`, `"minItems": -1`, `"required": ["a", "a"]`, `"anyOf": []`) or that is no JSON (a non-string key, NaN, a set, a lone surrogate: TypeError allowed too), and a schema of any JSON value (`{}`, `"items": true`), raise ValueError; keywords the subset names only alone (`enum` beside `const`, `type` beside `anyOf`) are refused with ValueError or read with JSON Schema's meaning; a `const` integer `json` will not write (over 4,300 digits) is refused with ValueError or compiled exactly; an argument that is no dict (`5`, `None`, a list) raises TypeError (checked by the deep tier only) |
| `mask_after_eos_empty` | `Constraint.mask()` after EOS is an all-False bool [V] |
| `mask_out_of_range_valueerror` | `TokenIndex.mask` raises ValueError for a state out of range(n_states) |
| `newer_python_readings` | a pattern Python's versions read differently (possessive and atomic forms, a global flag past the start, a conditional's group name, a `t` flag: `facts.constructs.READ_AS_NEWER_PYTHONS`) raises ValueError where the running Python's `re` refuses it, and where that `re` compiles it is refused with ValueError or matches as its `re.fullmatch` does; another exception, an acceptance of a pattern `re` refuses or another meaning departs (checked by the deep tier only: every Python is given every Python's readings, so the code a reference keeps for another Python's reading runs and is graded) |
| `next_state_out_of_range_valueerror` | `TokenIndex.next_state` raises ValueError for a state or token id out of range |
| `next_state_refused_is_dead` | `next_state` returns DEAD for a special (None) or empty token |
| `non_object_subschema_valueerror` | a subschema that is no JSON object and no boolean (`"items": 5`, a property's schema `"x"`, an `anyOf` branch `null`: JSON Schema's meta-schema refuses each) raises ValueError, not another exception (checked by the deep tier only) |
| `python_escapes_and_repeat_forms` | control escapes (`\a`, `\f`, `[\b]`), octal escapes and the repeat forms `{,n}`, `{n,n}` are accepted with Python's meaning (accepting one with another meaning fails in both tiers) |
| `python_only_syntax_refused` | Python syntax the spec does not name (inline flags `(?i)`, named groups `(?P<n>...)`, comments `(?#...)`, possessive and atomic forms) is refused (accepting it with Python's meaning is a note; another meaning fails in both tiers) |
| `refusal_changes_nothing` | a refused `advance` leaves `state`, `done` and `mask()` unchanged |
| `repeat_cap` | a repeat bound over the documented cap (`a{1000000000}`) raises ValueError (checked only under --strict: an uncapped reading builds a billion states) |
| `sample_after_eos_valueerror` | `constrained_sample` on a finished constraint raises ValueError |
| `step_from_dead` | `DFA.step(DEAD, data)` returns DEAD |
| `step_out_of_range_valueerror` | `DFA.step` raises ValueError for a state neither DEAD nor in range(n_states) |
| `tiny_temperature_is_greedy` | `sample` at a temperature > 0 so small that `logits / T` overflows (1e-300 beside logits of 1e9, a subnormal 5e-324) draws the largest logit, as the greedy limit T -> 0 does, with the logprob of the logits before temperature; a NaN, an error or another token departs (checked by the deep tier only) |
| `tiny_temperature_ties_drawn` | `sample` at a temperature > 0 so small that `logits / T` overflows draws each of equal largest logits (softmax(x / T) weighs them equally at every T > 0; the lowest id alone is greedy's rule at T = 0): only one of them, a NaN or an error departs (checked by the deep tier only) |
| `tools_json_byte_form` | `message_json` and `delta_json` write the reference's byte form: its key order, `tool_calls` omitted when empty (the shape itself is the spec's and fails in both tiers) |
| `tools_render_arguments_verbatim` | `render_messages` writes an assistant's tool-call arguments back as the client sent them (re-serializing them as compact JSON, key order kept, is a note) |
| `tools_render_refuses_bad_messages` | `render_messages` refuses a malformed conversation (messages not an array, an unknown role, a content that is a number, tool-call arguments that are not a JSON object) with the OpenAI error shape and the reference's status |
| `type_list_refused` | a list of types (`"type": ["string", "null"]`) raises ValueError |
| `type_with_enum` | `enum` or `const` next to a matching `type` is accepted |
| `unsupported_syntax_valueerror` | refused patterns (anchors, backreferences, lookarounds, lazy quantifiers, non-ASCII, bad repeats, unbalanced groups, empty language) raise ValueError, not another exception |
| `vocab_bytes_bytes_tokens` | `vocab_bytes` gives a token a tokenizer answers as bytes (`convert_ids_to_tokens` of tiktoken-based `transformers` tokenizers, such as Qwen's) those bytes (checked by the deep tier only) |
| `vocab_bytes_empty` | `vocab_bytes` of a tokenizer holding no token (an untrained `tokenizers.Tokenizer`) is `[]` (checked by the deep tier only) |
| `vocab_bytes_malformed_refused` | `vocab_bytes` refuses a malformed tokenizer of a kind it reads with ValueError or TypeError: a negative token id, two tokens with one id, a token that is no str (bytes or None from `convert_ids_to_tokens` aside), a lone surrogate, an added token whose content is no str, `convert_ids_to_tokens` answering other than one token an id, a token id that is no int, `decode_single_token_bytes` answering no bytes; added tokens past `get_vocab`'s ids are refused so or ignored (checked by the deep tier only) |
| `vocab_bytes_tiktoken` | `vocab_bytes` reads a tiktoken-style encoding (`decode_single_token_bytes`), with special tokens (None) or none |
| `vocab_bytes_token_list` | `vocab_bytes` reads a plain list or tuple of token strings with the spec's rule |
| `vocab_bytes_tokenizers` | `vocab_bytes` reads a Hugging Face `tokenizers.Tokenizer` (a trained byte-level BPE; an added special token is None, an added token that is not special the bytes the spec's rule gives its text: ASCII, or text holding a character outside the byte map) |
| `vocab_bytes_transformers` | `vocab_bytes` reads a `transformers` tokenizer (`len`, `convert_ids_to_tokens`, `all_special_ids`) over ids 0..len-1: an id it answers None for (a hole, as fast tokenizers answer) is None, a special id past len is ignored (checked by the deep tier only) |
<!-- end of decisions -->

Two more decisions are documented below but graded in no tier: a DFA over the
implementation's documented state cap raises ValueError (no test pattern reaches a cap),
and callers must not modify an array ``TokenIndex.mask`` returns (a rule for callers; the
reference's is a read-only view, which the catalogue does not ask of a candidate).
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

DEAD: int
"""-1: the absence of a state. ``DFA.step`` from DEAD stays DEAD."""


class DFA:
    """A canonical byte DFA.

    - ``trans``: ``np.ndarray`` of dtype ``int32``, shape ``(n_states, 256)``; entries
      are ``DEAD`` or a state in ``range(n_states)``.
    - ``accept``: ``np.ndarray`` of dtype ``bool``, shape ``(n_states,)``.
    - The start state is 0. Every state is live (an accepting state is reachable from
      it). States are numbered breadth first from 0, bytes ascending, after Moore
      minimization: the arrays are a function of the language alone.

    Decision (``dfa_from_tables``): ``DFA(trans, accept)`` given a canonical DFA's
    tables (one state or more) is that DFA. Decision (``dfa_bad_input_refused``, checked
    by the deep tier only): tables that are no DFA's raise ValueError or TypeError, and
    ``step`` given a state or data of a wrong Python type raises TypeError. Decision
    (``dfa_tables_of_other_dtypes``, deep tier only): the same tables as other integer
    types (``trans`` int64, ``accept`` 0/1 integers) are that DFA, int32 and bool.
    """

    n_states: int
    trans: npt.NDArray[np.int32]
    accept: npt.NDArray[np.bool_]

    def step(self, state: int, data: bytes) -> int:
        """The state after reading ``data`` from ``state``.

        Decision (``step_from_dead``): DEAD stays DEAD. Decision
        (``step_out_of_range_valueerror``): ValueError for a state neither DEAD nor in
        range(n_states).
        """

    def matches(self, data: bytes) -> bool:
        """True iff ``data`` is in the language (``step(0, data)`` is accepting)."""


def regex_to_dfa(pattern: str) -> DFA:
    """Compile a pattern of the subset to its canonical DFA.

    Meaning: exactly Python's ``re.fullmatch(pattern.encode('ascii'), data)`` on bytes.

    Supported: ASCII literals; escaped metacharacters; ``\\xHH``; ``\\n \\t \\r \\f \\v``
    (decision: also ``\\a`` and Python's octal escapes ``\\0``, ``\\012``, with Python's
    meaning); ``\\d \\w \\s \\D \\W \\S``; ``.`` (any
    byte but ``\\n``); bracket classes with ranges, class escapes, negation
    (complement over all 256 bytes); ``(...)`` and ``(?:...)``; ``|`` with empty
    branches; greedy ``* + ? {m} {m,} {m,n}``.

    Refuses (the spec's test table; decision ``unsupported_syntax_valueerror``: with
    ValueError, naming the construct and its offset): anchors
    ``^ $ \\A \\Z \\b \\B``; backreferences; lookarounds; lazy and possessive
    quantifiers; named groups; inline flags and comments; non-ASCII characters; bad
    repeats (``{3,2}``, a bound over the implementation's documented cap); unbalanced
    groups or brackets; nothing to repeat; an empty language. Decisions: a bound over
    the cap (``repeat_cap``); ``(?:...)``, empty branches, ``\\xHH``, ``]`` first in a
    class, ``{0}`` (``extra_regex_syntax``); TypeError for a pattern that is not a str
    (``bytes_pattern_typeerror``). Decision (graded in no tier): a DFA larger than
    the implementation's documented state cap raises ValueError rather than exhausting
    memory. Decision (``deep_nest_compiled_or_valueerror``, deep tier only): 300 groups
    nested inside one another compile with Python's meaning or are refused with
    ValueError, never with a RecursionError.
    """


def json_schema_to_regex(schema: dict[str, Any]) -> str:
    """The regex (of the subset above) of the compact JSON documents valid under ``schema``.

    Compact JSON is ``json.dumps(v, separators=(",", ":"))`` with ``ensure_ascii`` free:
    strings may hold raw well-formed UTF-8 (RFC 3629) or escapes.

    Subset: ``type`` in string, integer, number, boolean, null, array, object (a
    single type; decision ``type_list_refused``: a list of types is refused); ``enum`` and ``const`` (each
    value's compact JSON, escaped; decision ``type_with_enum``: ``const`` and ``enum``
    may stand alone or next to a matching ``type``); arrays with ``items``, ``minItems``, ``maxItems``;
    objects with ``properties`` (written in the order given), ``required``, and
    ``additionalProperties: false``; ``anyOf``. Annotations ``title``,
    ``description``, ``$schema``, ``$comment``, ``examples`` and ``default`` are
    allowed and do not constrain (decision ``annotations_accepted``; the default tier
    also accepts refusing them with ValueError, as section 2.5's "anything else" reads).

    Raises ValueError naming the JSON pointer for any other keyword,
    ``additionalProperties`` other than false, a ``required`` name not in
    ``properties``, an unknown type, an empty ``enum`` (decision ``empty_enum_refused``).
    Decision (``non_object_subschema_valueerror``, deep tier only): a subschema that is no
    object and no boolean (``"items": 5``, a property's schema ``"x"``, an ``anyOf`` branch
    ``null``) is bad input: ValueError (the argument itself not a dict may be TypeError).
    Decision (``malformed_schema_valueerror``, deep tier only): a schema the 2020-12
    meta-schema refuses (``{"type": 5}``, ``{"anyOf": []}``, ``"required": ["a", "a"]``),
    one that is no JSON (a non-string key, NaN, a set, a lone surrogate; TypeError too) and
    one of any JSON value (``{}``, ``"items": true``) raise ValueError; ``enum`` beside
    ``const`` or ``type`` beside ``anyOf`` are refused or read with JSON Schema's meaning;
    a ``const`` integer ``json`` will not write (over 4,300 digits) is refused with
    ValueError or compiled exactly; an argument that is no dict (``5``, ``None``, a list) raises TypeError.
    Decision (``large_enum_accepted``): an ``enum`` of 5,000 ten-letter strings (a regex
    of about 75,000 characters) is accepted; size bounds stay above realistic schemas.
    """


class TokenIndex:
    """Token masks over a DFA for one vocabulary.

    ``vocab[t]`` is token t's bytes, or None for a special token. ``eos_id`` is None
    or in ``range(len(vocab))``; the EOS entry's own bytes are ignored.

    Rules (V = len(vocab)):
    - ``mask(state)[t]`` is True iff t is not EOS, ``vocab[t]`` is non-empty bytes and
      ``dfa.step(state, vocab[t]) != DEAD``;
    - ``mask(state)[eos_id]`` is True iff ``dfa.accept[state]``;
    - a special (None) or empty token is never allowed.

    Raises ValueError for an out-of-range ``eos_id`` or a vocabulary entry that is
    neither bytes nor None (TypeError when ``vocab`` is not a sequence).
    """

    dfa: DFA
    vocab_size: int
    eos_id: int | None

    def __init__(self, dfa: DFA, vocab: Sequence[bytes | None], eos_id: int | None = None) -> None: ...

    def mask(self, state: int) -> npt.NDArray[np.bool_]:
        """bool [V]; computed the first time a state is asked for, then cached.

        Decision (graded in no tier): the returned array must not be modified by the
        caller (the reference returns a read-only view of its cache). Decision
        (``mask_out_of_range_valueerror``): ValueError for a state out of
        ``range(dfa.n_states)``.
        """

    def next_state(self, state: int, token_id: int) -> int:
        """The state after token ``token_id`` from ``state``: ``dfa.step(state,
        vocab[token_id])`` for a token with bytes (DEAD where the walk dies).

        Decisions: DEAD for a special or empty token (``next_state_refused_is_dead``);
        for EOS, ``state`` itself when ``state`` is accepting (the text is unchanged),
        else DEAD (``eos_next_state``); ValueError for a state or token id out of range
        (``next_state_out_of_range_valueerror``); TypeError for a float token id, never
        read as an int (``float_token_id_typeerror``).
        """


class Constraint:
    """One generation's position in the language.

    ``state`` is the DFA state of the text so far and ``done`` is True once EOS was
    accepted. The spec gives no constructor: the catalogue calls ``Constraint(index)``,
    then ``Constraint(index, 0)``, then ``Constraint(index=index)``; the reference is
    ``Constraint(index, state=0)``.
    """

    index: TokenIndex
    state: int
    done: bool

    def mask(self) -> npt.NDArray[np.bool_]:
        """``index.mask(state)``; decision (``mask_after_eos_empty``): after EOS
        (``done``) an all-False bool [V]."""

    def advance(self, token_id: int) -> None:
        """Consume a token. Refuses a token outside ``mask()`` (including any token
        after EOS); decision (``advance_refusal_valueerror``): with ValueError naming
        the token id and the state; decision (``refusal_changes_nothing``): a refusal
        changes nothing. EOS sets ``done``; decision (``eos_keeps_state``): the state is
        unchanged by EOS."""

    def is_complete(self) -> bool:
        """True iff the text so far is in the language (``dfa.accept[state]``)."""


class SamplingParams:
    """L8.1's sampling parameters (a dataclass).

    - ``temperature: float = 1.0``: 0 means greedy (argmax, ties to the lowest id);
    - ``top_k: int = 0``: keep the k largest logits (0 keeps all);
    - ``top_p: float = 1.0``: keep the smallest set of most likely tokens whose
      probability reaches top_p;
    - ``repetition_penalty: float = 1.0``: logits of tokens in ``prompt`` or
      ``history`` are divided by it when positive, multiplied when negative.
    Raises ValueError for temperature < 0, top_k < 0, top_p outside (0, 1],
    repetition_penalty <= 0, TypeError for a field of a wrong type (decision
    ``bad_arguments_refused``, checked by the deep tier only).
    """

    temperature: float
    top_k: int
    top_p: float
    repetition_penalty: float

    def __init__(self, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0,
                 repetition_penalty: float = 1.0) -> None: ...


def sample(logits: npt.ArrayLike, p: SamplingParams, history: Sequence[int],
           rng: np.random.Generator, prompt: Sequence[int] = ()) -> tuple[int, float]:
    """L8.1: draw one token id from ``logits`` (float [V]) under ``p``; ``-inf`` is never
    drawn. Returns ``(token_id, logprob)`` where logprob is the log-softmax of the
    logits after the repetition penalty (before temperature, top-k and top-p) at
    the drawn token. Raises ValueError when every logit is ``-inf``.

    Decision (``tiny_temperature_is_greedy``, deep tier only): at a temperature > 0 so
    small that ``logits / T`` overflows (1e-300 beside logits of 1e9, a subnormal
    5e-324), the draw is the largest logit, as the limit T -> 0 (greedy) and
    softmax(logits / T) itself say; the spec names no such temperature, and a sampler
    that divides first may fail there (a note in the default tier).

    Decision (``tiny_temperature_ties_drawn``, deep tier only): at such a
    temperature, equal largest logits are each drawn (softmax(logits / T) weighs them
    equally at every T > 0); the lowest id alone is greedy's rule at T = 0 only."""


def apply_mask(logits: npt.ArrayLike, mask: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """A new float64 [V] array: ``logits`` where ``mask`` is True, ``-inf`` elsewhere.
    The input is never modified. The shapes differing or a mask that allows nothing
    are errors (decision ``apply_mask_errors_valueerror``: ValueError). Decision
    (``apply_mask_accepts_lists``): Python lists are accepted for both."""


def vocab_bytes(tok: Any) -> list[bytes | None]:
    """Every token's bytes, by id; None for a special token.

    A token string made only of characters of the GPT-2 byte map is decoded through
    ``unicode_to_bytes``; any other token string is its UTF-8 encoding. The default
    tier hands a tokenizer object (``harness.suite.shapes.SpecTokenizer``) answering the
    ``tokenizers.Tokenizer``, ``transformers`` and token-list interfaces at once, with its
    specials marked the way real tokenizers mark them (``all_special_ids``, added tokens
    flagged ``special``); never an extra argument. Decisions: a Hugging Face
    ``tokenizers.Tokenizer`` (``vocab_bytes_tokenizers``) and a tiktoken-style encoding
    (``decode_single_token_bytes``, ``vocab_bytes_tiktoken``) are read too, and so is a
    plain list or tuple of token strings (``vocab_bytes_token_list``). The
    reference also takes an optional ``special_ids`` (extra specials for a plain list).
    Decision (``bad_arguments_refused``, deep tier only): a value that is no tokenizer (a
    str, bytes, an int, None) raises TypeError. Decisions (deep tier only): a ``transformers``
    tokenizer (``len``, ``convert_ids_to_tokens``, ``all_special_ids``) is read over ids
    0..len-1, an id it answers None for is None, a special id past len ignored
    (``vocab_bytes_transformers``); a token answered as bytes (tiktoken-based tokenizers) is
    those bytes (``vocab_bytes_bytes_tokens``); a tokenizer with no token
    gives ``[]`` (``vocab_bytes_empty``); a malformed tokenizer (a negative id, two tokens
    with one id, a token that is no str, a lone surrogate, an added token whose content is no
    str, ``convert_ids_to_tokens`` answering other than one token an id) raises ValueError or
    TypeError (``vocab_bytes_malformed_refused``)."""


def bytes_to_unicode() -> dict[int, str]:
    """The GPT-2 byte map: byte value -> printable character (byte 32 -> 'Ġ').
    (M05.2's, or --ref-deps; decision ``byte_map_functions``: exported and equal to
    GPT-2's.)"""


def unicode_to_bytes() -> dict[str, int]:
    """The inverse of ``bytes_to_unicode``."""


def constrained_sample(logits: npt.ArrayLike, c: Constraint, p: SamplingParams,
                       history: Sequence[int], rng: np.random.Generator,
                       prompt: Sequence[int] = ()) -> tuple[int, float]:
    """``sample`` on ``apply_mask(logits, c.mask())``, then ``c.advance(token)``.

    Greedy (temperature 0) takes the largest allowed logit, ties to the lowest id.
    The logprob is the log-softmax over the allowed tokens. Refuses a done constraint
    or a mask that allows nothing (decision ``sample_after_eos_valueerror``: with
    ValueError). Decision (``history_out_of_range_valueerror``): under a repetition
    penalty, a history or prompt id outside range(V) raises ValueError."""
