"""The deep tier's tokenizer shapes (``harness.sandbox.shapes``: ``TiktokenPublic``,
``TokenizersLike``, ``TransformersLike``) cross the wall as data and are rebuilt equal, the
data a well-formed tokenizer cannot hold (holes, bytes entries, a lone surrogate, a negative or
duplicate id, a fixed answer of ``convert_ids_to_tokens``) included.

Oracles: the objects themselves (a round trip through the channel is the identity on every
method a reader calls), and the reference called in-process on the same object.
"""

from __future__ import annotations

import socket
import time

import pytest

import oracles.automaton as reference
from harness.sandbox import Candidate, arguments, channel, shapes
from harness.sandbox.shapes import TiktokenPublic, TokenizersLike, TransformersLike

RANKS = {b"a": 0, b"\xe4\xb8": 1, "text": 3}  # a str token: decode_single_token_bytes answers it as given
SHAPES = [
    TiktokenPublic(RANKS, {"<|s|>": 2, "<|bad|>": -1}),
    TokenizersLike([("a", 0), ("b", 0), (b"ab", 1), ("x\ud800", 2), ("c", "3")],
                   [(1, None, False), (2, "\ud800y", False), (5, "<s>", True)]),
    TransformersLike(["\u0120a", None, b"\xe4\xb8", "z\udfff", 5], [3, 9, -1]),
    TransformersLike(["a", "b"], [0], answer="ab"),
    TransformersLike(["a", "b"], [], answer=["a", None, b"c", "\ud800"]),
]


def surface(tok) -> dict:
    """What a reader of ``tok``'s kind can ask it, each answer as given (an exception as its class)."""
    def ask(call):
        try:
            return call()
        except Exception as exc:  # noqa: BLE001 - the class is the answer compared
            return type(exc).__name__

    if isinstance(tok, TiktokenPublic):
        return {"n_vocab": tok.n_vocab, "names": sorted(tok.special_tokens_set),
                "ids": [ask(lambda n=n: tok.encode_single_token(n)) for n in sorted(tok.special_tokens_set)],
                "bytes": [ask(lambda i=i: tok.decode_single_token_bytes(i)) for i in range(-1, tok.n_vocab + 1)],
                "private": hasattr(tok, "_special_tokens")}
    if isinstance(tok, TokenizersLike):
        return {"pairs": list(tok.get_vocab().items()), "size": tok.get_vocab_size(),
                "by_id": [tok.id_to_token(i) for i in range(-1, 7)],
                "added": [(i, a.content, a.special) for i, a in tok.get_added_tokens_decoder().items()]}
    return {"len": len(tok), "specials": tok.all_special_ids, "asked": ask(lambda: tok.convert_ids_to_tokens([0, 1])),
            "every": ask(lambda: tok.convert_ids_to_tokens(list(range(len(tok))))),
            "one": [ask(lambda i=i: tok.convert_ids_to_tokens(i)) for i in range(len(tok))]}


@pytest.mark.parametrize("tok", SHAPES, ids=lambda t: type(t).__name__)
def test_a_shape_crosses_the_channel_and_is_rebuilt_equal(tok):
    described = arguments.describe_argument(tok)
    a, b = socket.socketpair()
    try:
        channel.send(a, described)
        got = channel.receive(b, deadline=time.monotonic() + 5)
    finally:
        a.close()
        b.close()
    rebuilt = arguments.rebuild_argument(got.kind, got.data, {})
    assert type(rebuilt) is type(tok)
    assert surface(rebuilt) == surface(tok)


def test_the_public_tiktoken_surface_holds_no_private_table():
    tok = SHAPES[0]
    assert not hasattr(tok, "_special_tokens") and hasattr(shapes.TiktokenLike(RANKS, {}), "_special_tokens")
    assert tok.encode_single_token("<|s|>") == 2 and tok.decode_single_token_bytes(3) == "text"


@pytest.mark.e2e
def test_the_candidate_reads_the_shapes_as_the_reference_does_in_process():
    """Behind the wall the reference answers each shape as it does in-process: a vocabulary, or
    the same refusal (a lone surrogate crosses intact, so it is refused there too)."""
    readable = [TiktokenPublic({b"a": 0, b" b": 2}, {"<|s|>": 1}), TokenizersLike([("\u0120a", 0), ("b c", 1)]),
                TransformersLike(["\u0120a", None, b"\xe4\xb8", "<s>"], [3, 9])]
    refused = [TransformersLike(["a", "b\ud800"]), TokenizersLike([("a", 0), ("x", 1)], [(1, "\ud800", False)])]
    with Candidate(None) as cand:
        for tok in readable:
            assert cand.module.vocab_bytes(tok) == reference.vocab_bytes(tok)
        for tok in refused:
            with pytest.raises(ValueError, match="lone surrogate|no UTF-8") as remote:
                cand.module.vocab_bytes(tok)
            with pytest.raises(ValueError) as here:
                reference.vocab_bytes(tok)
            assert str(here.value) in str(remote.value)
