"""constrain-harness: differential testing and oracles for constrained decoding.

The pipeline under test, stage by stage (one module per stage in ``oracles/automaton``):

    pattern text --parser--> tree of byte sets --nfa--> Thompson NFA
      --determinize--> byte DFA over byte classes --minimize--> live, minimal,
      breadth-first numbered (canonical) DFA --index--> token masks over a byte trie
      --constraint/sampling--> constrained generation

A JSON schema joins at the front: ``json_schema_to_regex`` turns the subset into a
pattern. The harness feeds the same inputs to the Brzozowski-derivative oracle
(``oracles.derivatives``) and to Python's ``re``/``regex``/``json``/``jsonschema``
(``oracles.stdlib``), and compares tables, masks and verdicts.

Entry point: the ``constrain-harness`` command (``harness.cli:main``).
"""

__version__ = "0.1.0"
