"""The spec's shared facts, each written once: the data several parts of the harness
need to agree on, with the spec section each comes from.

Why a package of its own: the tests, the catalogue (``harness/suite``), the golden
builder (``golden/``), the strategies, the benchmarks and the mutants all read the
same hand example, the same tool schemas, the same refusal table. Kept here, beside
``harness/`` rather than inside it, it can be imported by ``golden/`` and
``strategies/`` without making them depend on the harness. It imports nothing from
``harness/``, ``oracles/``, ``golden/`` or ``strategies/``: it is data plus pure
converters, and decides no meaning (the oracles do not import it, so they stay
independent of each other and of it).

The modules:

- ``facts.hand``: spec 000 section 3, ``(cat|car|dog)s?``: its table, its vocabulary,
  its masks; 002 section 3's sampling example (``ab?``).
- ``facts.tools``: the tool schemas of the specs' examples (002 section 3's
  conformance tool, 000 section 1's ``{"city": "Oslo", "days": 3}``) and 002
  section 3's streamed call.
- ``facts.constructs``: one table of the regex constructs and schema keywords the
  seeds support or refuse, with an example of each.

Example::

    >>> from facts.hand import HAND_PATTERN, hand_trans
    >>> HAND_PATTERN, hand_trans()[0, ord("c")]
    ('(cat|car|dog)s?', 1)
"""
