"""A correct module in the spec's layout (python/tinyllm/infer/constrain.py) that takes L8.1's
sampling and M05.2's byte map from the student's own packages, as the spec's "Needs" line
says: an absolute import of its sibling module and a relative one of another package.
Expected: every test passes without --ref-deps, in check --impl (the repository, its python/
folder or this file), the batch and the Gradescope bundle."""

from tinyllm.infer.sampling import SamplingParams, sample  # noqa: F401

from oracles.automaton import (  # noqa: F401
    DEAD,
    DFA,
    Constraint,
    TokenIndex,
    apply_mask,
    json_schema_to_regex,
    regex_to_dfa,
    vocab_bytes,
)

from ..tokenizer.byte_map import bytes_to_unicode, unicode_to_bytes  # noqa: F401


def constrained_sample(logits, c, p, history, rng, prompt=()):
    """``sample`` on ``apply_mask(logits, c.mask())``, then ``c.advance(token)``; a ValueError
    when the constraint is done (EOS accepted). The module's own, built on the student's
    ``sample`` (``tinyllm.infer.sampling``) as the spec's L8.7 builds it on L8.1's: a broken
    sampler there fails the generation tests. The byte map is re-exported only: ``vocab_bytes``
    is the reference's, which carries its own."""
    if not isinstance(c, Constraint):
        raise TypeError(f"constrained_sample: c must be a Constraint, not {type(c).__name__}")
    if c.done:
        raise ValueError(f"constrained_sample: the constraint is done (EOS accepted in state {c.state})")
    token, logprob = sample(apply_mask(logits, c.mask()), p, history, rng, prompt)
    c.advance(token)
    return token, logprob
