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
    constrained_sample,
    json_schema_to_regex,
    regex_to_dfa,
    vocab_bytes,
)

from ..tokenizer.byte_map import bytes_to_unicode, unicode_to_bytes  # noqa: F401
