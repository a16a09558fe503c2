"""The objects the catalogue hands a candidate that are not data, both sides of the wall:
``describe_argument`` (the grader's side, ``harness.sandbox.client``) turns one into the data
that rebuilds it, ``rebuild_argument`` (the candidate's side, ``harness.sandbox.server``) makes
it again there.

=========================  ==================================  ===================================
kind                       what the grader hands               what the candidate's process gets
=========================  ==================================  ===================================
``shape``                  ``harness.sandbox.shapes``'         the same tokenizer, rebuilt
                           ``SpecTokenizer``, ``TiktokenLike``,
                           ``TiktokenPublic``, ``TokenizersLike``,
                           ``TransformersLike``
``tokenizers.Tokenizer``   a Hugging Face tokenizer            ``Tokenizer.from_str`` of its JSON
``SamplingParams``         the spec's L8.1 parameters          the candidate's own class (or the
                           (a dataclass)                       reference's, with ``--ref-deps``)
=========================  ==================================  ===================================

Generators (``rng``) and ``Fresh`` arguments are the wall's own, not the catalogue's: they stay
in ``client`` and ``server``.

Invariant: what crosses is data (a dict or a string), never an object or code; anything else
is a ``TypeError`` on the grader's side, before a frame is sent.
"""

from __future__ import annotations

from harness.sandbox import channel


def describe_argument(obj) -> channel.Described:
    """An object that is not data, as the data that rebuilds it on the candidate side:
    ``harness.suite.shapes`` tokenizers, ``tokenizers.Tokenizer`` (its JSON),
    ``SamplingParams`` (its fields); anything else is a TypeError."""
    from harness.sandbox import shapes

    if isinstance(obj, (shapes.SpecTokenizer, shapes.TiktokenLike, shapes.TokenizersLike, shapes.TransformersLike)):
        return channel.Described("shape", obj.describe())
    if type(obj).__name__ == "TiktokenLike" and hasattr(obj, "_by_id") and hasattr(obj, "_special_tokens"):
        # a test's own copy of the tiktoken surface (as harness.suite.test_vocab had): same data
        return channel.Described("shape", shapes.TiktokenLike.describe(obj))
    module = type(obj).__module__ or ""
    if module.startswith("tokenizers") and type(obj).__name__ == "Tokenizer":
        return channel.Described("tokenizers.Tokenizer", obj.to_str())
    if type(obj).__name__ == "SamplingParams":
        import dataclasses

        if dataclasses.is_dataclass(obj):
            return channel.Described("SamplingParams", dataclasses.asdict(obj))
    raise TypeError(f"cannot hand a {type(obj).__name__} to the candidate process (data, proxies, "
                    f"generators and the tokenizers of harness.suite.shapes only)")


def rebuild_argument(kind: str, data, objects: dict):
    """The object a ``Described(kind, data)`` of ``describe_argument`` stands for, made in the
    candidate's process (``harness.sandbox.server.Server.rebuild``); ``objects``: the server's
    handles, of which 1, the candidate's module, is read for ``SamplingParams`` only (its own
    class, else the reference's where ``--ref-deps`` lent it)."""
    if kind == "tokenizers.Tokenizer":
        from tokenizers import Tokenizer

        return Tokenizer.from_str(data)
    if kind == "SamplingParams":
        cls = getattr(objects[1], "SamplingParams", None)
        if cls is None:
            try:
                from oracles.automaton import SamplingParams as cls
            except ImportError:  # the reference is not in this sandbox (harness.sandbox.lending)
                raise AttributeError("the module has no SamplingParams (the spec's L8.1 sampling: --ref-deps "
                                     "lends the reference's)") from None
        return cls(**data)
    from harness.sandbox import shapes

    return shapes.rebuild(data)
