"""The three implementations that constrain-harness makes check each other.

- ``oracles.automaton``: the reference pipeline (regex -> Thompson NFA -> canonical
  minimized byte DFA -> token masks; JSON-schema subset -> regex; sampling).
- ``oracles.derivatives``: a Brzozowski-derivative oracle with its own front end.
- ``oracles.stdlib``: Python's ``re``, the ``regex`` module's partial matching,
  ``json`` and ``jsonschema``.

They share no code that decides meaning: a bug shared by two oracles is invisible.
"""
