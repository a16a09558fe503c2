"""Hypothesis strategies that make the three implementations check each other.

In Hypothesis's own API style: plural nouns, the spec first and every option
keyword-only, ``InvalidArgument`` for impossible arguments, each docstring ending with
the direction it shrinks in.

    patterns        pattern text of the subset (trees rendered with the groups that
                    precedence needs); ``pattern_trees`` for the tree, which knows
                    structurally whether its language is empty and a shortest member;
                    ``near_patterns`` for text one edit away (fuzz-and-reject)
    strings         ``members(dfa)``: accepting walks of any trans/accept table;
                    ``regex_strings`` (Hypothesis's ``from_regex``), ``prefixes``,
                    ``one_byte_edits``, and ``strings_for(pattern)`` mixing them
    schemas         ``schemas()`` of the JSON-schema subset with tricky enum values;
                    ``documents(schema, valid=...)``: compact documents, valid by
                    construction or one mutation away
    vocabularies    ``vocabularies()`` -> (vocab, eos_id): printable bytes, words,
                    UTF-8 characters and fragments, lone bytes, specials, the empty
                    token, EOS at any id or none

``reuse`` keeps one strategy object per set of arguments (``reused``), so a property that
builds its strategies inside the test (the deep tier's) has each validated once, not at every
example; the objects draw exactly what fresh ones would.

Used by ``tests/differential/test_differential_*.py``; the strategies' own claims are checked by
``tests/strategies/test_strategies.py`` against ``re``, ``json`` and ``jsonschema``.

Import from the submodules (``from strategies.patterns import patterns``); the
package itself re-exports nothing, so ``from strategies import patterns`` is the
module.
"""
