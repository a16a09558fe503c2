"""The spec's table "What the tests check": the 16 catalogue tests, in the spec's order.

Source: ``000_4b494d6fc237472e.txt``, section 4 ("What the tests check") and section 5
(pitfalls, which name the test that catches each mutant). ``harness/suite/test_*.py``
implements each entry under exactly this name; ``harness.grading.check`` prints this table with a
verdict per test, and the reports carry ``kind`` and ``checks``.

Example::

    >>> CATALOGUE[0].name, CATALOGUE[0].kinds
    ('test_hand_example', ('unit', 'smoke'))
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    """One row of the spec's table, plus the pitfalls (section 5) it catches."""

    name: str
    kinds: tuple[str, ...]
    checks: str
    why: str
    pitfalls: str = ""


CATALOGUE: tuple[Entry, ...] = (
    Entry("test_hand_example", ("unit", "smoke"),
          "section 3's DFA: 7 states, the accepting ones, every edge; step and matches",
          "you and the test agree on the canonical form", "3. numbering in another order (s04)"),
    Entry("test_hand_example_masks", ("unit", "smoke"),
          "section 3's masks; next_state for tokens, EOS, dead tokens", "the mask semantics",
          "4. EOS allowed everywhere (s05)"),
    Entry("test_matches_python_re", ("golden",),
          "10 patterns: random strings from your DFA, their prefixes, and one-byte edits get the same answer "
          "from Python's re", "the regex subset means what Python means",
          "1. classes differ from Python's (s01, s02, s08, s11); 6. repetition built wrong (s09, s10)"),
    Entry("test_every_state_is_live", ("property",), "from every state an accepting state is reachable",
          "masks never lead into a dead end", "4. a dead sink kept as a state (s12)"),
    Entry("test_canonical_form", ("property",), "five pairs of equivalent patterns give identical trans and accept",
          "L10.9 compares tables with yours", "2. no minimization (s03)"),
    Entry("test_unsupported_syntax_raises", ("boundary",),
          "anchors, backreferences, lookarounds, lazy quantifiers, non-ASCII, bad repeats, empty language",
          "no silent misreading", "7. anchors read as literal characters (s13)"),
    Entry("test_masks_match_brute_force", ("property",),
          "every state and token: the trie mask equals walking the token's bytes", "the trie is only a speedup",
          "5. the trie walk stopping at the first dead byte, or recording the wrong next state (s06, s14)"),
    Entry("test_masks_match_the_golden_file", ("golden",),
          "masks and completeness along recorded paths, from an oracle using derivatives, not automata",
          "the L10.9 parity file"),
    Entry("test_reachable_states_never_have_an_empty_mask", ("property",),
          "with all bytes and EOS, every state reachable by tokens allows something", "generation never gets stuck"),
    Entry("test_constraint_lifecycle", ("unit",),
          "advancing, refusing a disallowed token, EOS only when complete, nothing after EOS", "engine bugs surface"),
    Entry("test_apply_mask", ("boundary",),
          "float64 copy with -inf; an all-false mask and a wrong shape are errors",
          "L8.1 never sees an all -inf row"),
    Entry("test_greedy_takes_the_best_allowed_token", ("unit",),
          "the largest allowed logit wins (ties lowest); the logprob is renormalized", "greedy tool calls"),
    Entry("test_constrained_generation_parses", ("property",),
          "40 seeded requests under a tool schema: at least 30 finish, every finished one parses and validates",
          "the L10.9 guarantee", "8. JSON strings allowing raw control bytes or any high byte (s15, s16)"),
    Entry("test_json_schema_documents", ("unit",),
          "valid documents match; missing keys, wrong types, order, extra keys, trailing commas, spaces, bounds, "
          "raw control bytes do not", "the schema subset's meaning",
          "8. leading zeros, exponent without digits (s23, s24); 9. optional made required (s17); "
          "10. maxItems off by one (s18)"),
    Entry("test_json_schema_rejects_keywords_outside_the_subset", ("boundary",),
          "pattern, maxLength, $ref, additionalProperties: true, unknown required names, unknown types",
          "no silently ignored constraints", "11. unknown schema keywords ignored (s25)"),
    Entry("test_vocab_bytes", ("unit",), "the byte map undone; non-map strings as UTF-8; specials as None",
          "masks over the real tokenizer", "12. UTF-8 without undoing the byte map; specials given bytes (s26, s27)"),
)

NAMES: tuple[str, ...] = tuple(entry.name for entry in CATALOGUE)
BY_NAME: dict[str, Entry] = {entry.name: entry for entry in CATALOGUE}

DEEP_NAMES: tuple[str, ...] = (
    "test_deep_tables_equal_the_derivative_oracle", "test_deep_matching_equals_python_re",
    "test_deep_masks_equal_the_derivative_oracle", "test_deep_schema_documents_get_the_oracles_verdict",
    "test_deep_long_patterns_equal_the_derivative_oracle", "test_deep_step_refuses_every_state_out_of_range",
    "test_deep_sampling_params_choose_exactly_their_tokens",
    "test_deep_parser_edge_cases_read_as_python",
    "test_deep_parentheses_in_no_group_compile_as_python_reads_them",
    "test_deep_newer_python_readings_as_this_python",
    "test_deep_dfa_refuses_bad_tables_and_wrong_types",
    "test_deep_bad_arguments_are_refused",
    "test_deep_tiny_temperature_draws_the_largest_logit",
    "test_deep_non_object_subschemas_are_refused",
    "test_deep_malformed_schemas_are_refused",
    "test_deep_typed_enums_read_as_json_schema_reads_them",
    "test_deep_high_bytes_equal_the_derivative_oracle",
    "test_deep_sampling_params_defaults_are_the_contracts",
    "test_deep_vocab_bytes_reads_every_token_of_a_tokenizer",
    "test_deep_constraint_ends_at_an_eos_past_the_single_bytes",
    # issue 52 item 3, the spec's survivors outside vocab.py (branch kill10r)
    "test_deep_sampling_filters_rows_without_inf_and_splits_tied_maxima",
    "test_deep_schema_array_bounds_read_as_json_schema",
    "test_deep_token_index_refuses_out_of_range_and_wrong_types",
    "test_deep_dfa_from_tables_of_other_integer_types",
    "test_deep_parser_refuses_reversed_ranges_non_ascii_and_deep_nests_cleanly",
    # kill10v: vocab_bytes' specials, holes and bytes entries; malformed tokenizers
    "test_deep_vocab_bytes_reads_specials_holes_and_bytes",
    "test_deep_vocab_bytes_refuses_malformed_tokenizers",
)
"""The ``--deep`` tier's tests (``test_deep.py``), run after the catalogue: its Hypothesis
properties, then its exact checks. ``harness.mutants.coverage`` records each one's lines."""
