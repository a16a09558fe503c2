"""The three implementations that constrain-harness makes check each other.

- ``oracles.automaton``: the reference pipeline (regex -> Thompson NFA -> canonical
  minimized byte DFA -> token masks; JSON-schema subset -> regex; sampling).
- ``oracles.derivatives``: a Brzozowski-derivative oracle with its own front end.
- ``oracles.stdlib``: Python's ``re``, the ``regex`` module's partial matching,
  ``json`` and ``jsonschema``.

They share no code that decides meaning: a bug shared by two oracles is invisible.

Glossary: one name per idea, in the reference (``oracles.automaton``), the derivative
oracle (``oracles.derivatives``) and the strategies (``strategies``):

- *byte set*: a set of bytes, as a 256-bit int (bit b set iff byte b is in it).
  Reference tree: ``ByteSet(mask)``; derivative terms: ``byteset(bits)`` (kind
  ``K_SET``); strategies: a tree's ``byteset()`` (a frozenset).
- *bracket*: the text ``[...]`` and its *bracket items* (a literal, a range ``a-z``, a
  shorthand ``\\d``), negated or not. Only the strategies keep brackets as such
  (``Bracket(items, negated)``, ``BracketItem``); both parsers turn a bracket straight
  into its byte set.
- *byte classes*: a partition of the 256 bytes into byte sets that every edge
  (reference: ``determinize.BytePartition``, built by ``byte_classes``) or every
  derivative (``oracles.derivatives.classes``) treats alike.
- *empty string* (ε): reference and strategies ``EmptyString()``; derivative
  ``EMPTY_STRING`` (kind ``K_EMPTY_STRING``).
- *empty language* (∅, no string at all): derivative ``NOTHING`` (kind ``K_NOTHING``);
  the reference tree writes it ``ByteSet(0)``; the strategies' unmatchable brackets
  (``UNMATCHABLE_BRACKETS``, e.g. ``[^\\d\\D]``) denote it; the error a pattern with an
  empty language raises is ``EmptyLanguage``.
- *errors*: each of ``oracles.automaton`` and ``oracles.derivatives`` has its own
  ``errors`` module with the same class names for the same kinds, all under its own
  ``ConstrainError`` (a ``ValueError``): ``PatternError`` (``PatternSyntaxError``
  malformed, ``UnsupportedSyntax`` outside the subset, ``EmptyLanguage``,
  ``PatternTooLarge``), ``LimitExceeded``, ``InvalidArgument``; the reference adds
  ``SchemaError`` (``SchemaMalformed``, ``SchemaUnsupported``, ``SchemaTooLarge``).
  A wrong Python type is a plain ``TypeError`` in both. ``tests/oracles/test_errors.py`` holds
  them to it.

Old names, none kept as an alias (none was part of the spec's contract, the CLI or a
golden file): reference ``ByteClass`` and ``Empty``, ``determinize.ByteClasses``;
derivative ``EMPTY`` (now ``NOTHING``), ``EPS``, ``PatternMalformed``,
``PatternUnsupported``, ``LanguageEmpty``, ``DerivativeLimitExceeded``; strategies
``ByteClass`` (now ``Bracket``), ``Empty``. The golden files record the reference's
error names of their format version (``golden.fileformat.error_name``).
"""
