"""Exhaustive small-scope differential testing: every pattern (or schema) of a small grammar.

    enumerate  the patterns of the subset up to a size, once each (syntactic canonical forms)
    patterns   one pattern against the reference, the derivative oracle and re (the task function)
    schemas    the schema grammar and its check (tables, instances judged by jsonschema, walks)
    walks      seeded random members of a canonical DFA (shared with ``harness.differential.corpus``)
    runner     the tasks, the executor, the sums per size
    report     the terminal table and the common Report

This package only drives: which strings belong to a pattern's language is decided by each
implementation on its own (``oracles.automaton``, ``oracles.derivatives``, Python's
``re``/``regex``, ``jsonschema``); it shares none of their code.
"""
