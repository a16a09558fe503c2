"""The constrain contract: what an implementation graded by constrain-harness provides.

This is the seed's section 4 (000_4b494d6fc237472e.txt) made precise. Every name here
must be importable from the candidate module. Where the seed is silent, the decision
taken is written in the docstring as "Decision:".

Conventions
-----------
- Bytes are ``bytes``; a token id is an ``int``; arrays are numpy arrays.
- Bad input raises ``ValueError`` naming what is wrong and where (a pattern offset, a
  JSON pointer, a token id and state). A wrong Python type raises ``TypeError``.
- ``ValueError`` subclasses are allowed (the reference raises refined ones).
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
    """

    n_states: int
    trans: npt.NDArray[np.int32]
    accept: npt.NDArray[np.bool_]

    def step(self, state: int, data: bytes) -> int:
        """The state after reading ``data`` from ``state``; DEAD stays DEAD.

        Raises ValueError for a state neither DEAD nor in range(n_states).
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

    Raises ValueError (naming the construct and its offset) for: anchors
    ``^ $ \\A \\Z \\b \\B``; backreferences; lookarounds; lazy and possessive
    quantifiers; named groups; inline flags and comments; non-ASCII characters; bad
    repeats (``{3,2}``, a bound over the implementation's documented cap); unbalanced
    groups or brackets; nothing to repeat; an empty language.
    Decision: a DFA larger than the implementation's documented state cap raises
    ValueError rather than exhausting memory.
    """


def json_schema_to_regex(schema: dict[str, Any]) -> str:
    """The regex (of the subset above) of the compact JSON documents valid under ``schema``.

    Compact JSON is ``json.dumps(v, separators=(",", ":"))`` with ``ensure_ascii`` free:
    strings may hold raw well-formed UTF-8 (RFC 3629) or escapes.

    Subset: ``type`` in string, integer, number, boolean, null, array, object (a
    single type; decision: a list of types is refused); ``enum`` and ``const`` (each
    value's compact JSON, escaped; decision: ``const`` and ``enum`` may stand alone or
    next to a matching ``type``); arrays with ``items``, ``minItems``, ``maxItems``;
    objects with ``properties`` (written in the order given), ``required``, and
    ``additionalProperties: false``; ``anyOf``. Annotations ``title``,
    ``description``, ``$schema``, ``$comment``, ``examples`` and ``default`` are
    allowed and do not constrain (decision).

    Raises ValueError naming the JSON pointer for any other keyword,
    ``additionalProperties`` other than false, a ``required`` name not in
    ``properties``, an unknown type, an empty ``enum``.
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

        Decision: the returned array must not be modified by the caller (the
        reference returns a read-only view of its cache). Raises ValueError for a
        state out of ``range(dfa.n_states)``.
        """

    def next_state(self, state: int, token_id: int) -> int:
        """The state after token ``token_id`` from ``state``: ``dfa.step(state,
        vocab[token_id])`` for an allowed token, DEAD for a disallowed one.

        Decision: for EOS, ``state`` itself when ``state`` is accepting (the text is
        unchanged), else DEAD. Raises ValueError for a state or token id out of range.
        """


class Constraint:
    """One generation's position in the language.

    Decision: ``Constraint(index, state=0)``; ``state`` is the DFA state of the text
    so far and ``done`` is True once EOS was accepted.
    """

    index: TokenIndex
    state: int
    done: bool

    def __init__(self, index: TokenIndex, state: int = 0) -> None: ...

    def mask(self) -> npt.NDArray[np.bool_]:
        """``index.mask(state)``; after EOS (``done``) an all-False bool [V]."""

    def advance(self, token_id: int) -> None:
        """Consume a token. Raises ValueError naming the token id and the state when
        the token is outside ``mask()`` (including any token after EOS). EOS sets
        ``done``; the state is unchanged by EOS."""

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
    repetition_penalty <= 0.
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
    the drawn token. Raises ValueError when every logit is ``-inf``."""


def apply_mask(logits: npt.ArrayLike, mask: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """A new float64 [V] array: ``logits`` where ``mask`` is True, ``-inf`` elsewhere.
    The input is never modified. Raises ValueError when the shapes differ or the mask
    allows nothing."""


def vocab_bytes(tok: Any, special_ids: Any = None) -> list[bytes | None]:
    """Every token's bytes, by id; None for a special token.

    A token string made only of characters of the GPT-2 byte map is decoded through
    ``unicode_to_bytes``; any other token string is its UTF-8 encoding. Accepts a
    sequence of token strings (with ``special_ids``), a Hugging Face
    ``tokenizers.Tokenizer``, a ``transformers`` tokenizer (duck-typed:
    ``convert_ids_to_tokens``, ``all_special_ids``), or a tiktoken-style encoding
    (``decode_single_token_bytes``)."""


def bytes_to_unicode() -> dict[int, str]:
    """The GPT-2 byte map: byte value -> printable character (byte 32 -> 'Ġ')."""


def unicode_to_bytes() -> dict[str, int]:
    """The inverse of ``bytes_to_unicode``."""


def constrained_sample(logits: npt.ArrayLike, c: Constraint, p: SamplingParams,
                       history: Sequence[int], rng: np.random.Generator,
                       prompt: Sequence[int] = ()) -> tuple[int, float]:
    """``sample`` on ``apply_mask(logits, c.mask())``, then ``c.advance(token)``.

    Greedy (temperature 0) takes the largest allowed logit, ties to the lowest id.
    The logprob is the log-softmax over the allowed tokens. Raises ValueError when the
    constraint is done or its mask allows nothing."""
