"""The golden files and the code that writes, checks and replays them.

    cases       the inputs: vocabularies, patterns, schemas, JSON texts, refusals, pitfalls
    walks       seeded walks through a language, by the derivative oracle or the reference
    build       the two documents, cross-checked between the oracles; ``render_all()``
    sampling    section 3's constrained_sample example: exact logprobs, cross-checked
    layout      the byte-exact JSON text layout (sorted keys, ASCII, integers only)
    fileformat  names, ``format_version(kind)``, ``load`` (version and JSON Schema checked),
                the hex/DFA encodings, SHA256SUMS
    replay      the consumers' checks against any implementation of the contract

Entry point: ``constrain-harness golden write|check|replay`` (``harness.commands.golden``).
The formats are documented field by field in ``golden/README.md``.
"""
