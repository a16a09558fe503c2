"""Real-world schema collections: coverage, soundness, completeness and the peers, per schema.

    load    the entries of a folder or JSON-lines file (plain schemas, MaskBench records)
    check   one entry: bounds, compile or refuse by name, random walks validated by
            jsonschema, the record's instances in the spec's reading, the peers (the task function)
    runner  the tasks through the executor, and the sums
    report  terminal, JSON, Markdown and HTML (with an SVG chart) through harness.report

Like ``harness.differential.sweep``, this package only drives: meaning is decided by
``oracles.automaton``, ``json`` and ``jsonschema`` (and each peer for itself).
"""
