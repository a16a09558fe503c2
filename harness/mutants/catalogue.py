"""One table of mutants (``MUTANTS``): id, stage, pitfall, example, expected killers, patch.

A patch is a tuple of edits anchored on syntax (``anchors.Anchor(file, function, node,
new)``: the node must occur exactly once in that function of ``oracles/automaton/<file>``,
``oracles/tools/<file>`` for the tool-surface mutants, or the patch "no longer
applies": the reference moved on and the mutant must be updated). Reformatting the
reference never makes an anchor stale. An edit two mutants share is one definition
used by both (``MAX_ITEMS_OFF_BY_ONE``, ``ENUM_UNESCAPED``, ``ADVANCE_AFTER_EOS``).
``example(module)`` computes an answer that the mutant changes:
``tests/mutants/test_mutants.py`` checks ``example(reference) != example(mutant)`` for every
entry, so each patch provably changes behaviour.

Example: ``s18`` and ``l10_9:s05`` both apply ``MAX_ITEMS_OFF_BY_ONE``, which turns
``{hi - 1}`` into ``{hi}`` in ``schema.array``: maxItems 2 then accepts ``[1,2,3]``.

Rejected ideas (kept visible, with the reason):
- "trie records the parent's state for every token" as s14: a duplicate of l10_9:s06;
  s14 instead records the state *before the last byte* (wrong next state only).
- ``.`` matching every byte *and* ``\\n`` via ``[^...]``: two mistakes in one mutant
  would blur which test kills which pitfall.
"""

from __future__ import annotations

import numpy as np

from harness.mutants.anchors import Anchor, Edit  # noqa: F401 - Edit: for ad-hoc variants (tests, the self-check)
from harness.mutants.mutant import CATALOGUE, REPLAY, TOOLS_REPLAY, Mutant  # noqa: F401 - re-exported
from harness.mutants.tools_mutants import TOOLS_MUTANTS

# --- example helpers: small, deterministic computations over a module ------------------

HAND_VOCAB = [b"c", b"a", b"t", b"r", b"d", b"o", b"g", b"s", b"ca", b"cat", b"dog", b"ts", b"x", None, b""]


def _hand_masks(m) -> list[list[int]]:
    index = m.TokenIndex(m.regex_to_dfa("(cat|car|dog)s?"), HAND_VOCAB, eos_id=13)
    return [np.flatnonzero(index.mask(s)).tolist() for s in range(7)]


def _hand_next(m) -> list[int]:
    index = m.TokenIndex(m.regex_to_dfa("(cat|car|dog)s?"), HAND_VOCAB, eos_id=13)
    return [index.next_state(3, t) for t in range(15)]


def _matches(pattern: str, *data: bytes):
    return lambda m: tuple(m.regex_to_dfa(pattern).matches(d) for d in data)


def _schema_matches(schema: dict, *docs: str):
    return lambda m: tuple(m.regex_to_dfa(m.json_schema_to_regex(schema)).matches(d.encode()) for d in docs)


def _table(pattern: str):
    return lambda m: (lambda d: (d.trans.tolist(), d.accept.tolist()))(m.regex_to_dfa(pattern))


def _refuses(thunk):
    def run(m):
        try:
            thunk(m)
        except ValueError:
            return "refused"
        return "accepted"
    return run


def _advance_outside_mask(m):
    index = m.TokenIndex(m.regex_to_dfa("ab"), [b"a", b"b", b"x", None], eos_id=3)
    c = m.Constraint(index)
    try:
        c.advance(2)
    except ValueError:
        return "refused"
    return "accepted"


def _apply_mask_shape(m):
    logits = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    out = m.apply_mask(logits, np.array([True, False, True]))
    return (str(out.dtype), logits.tolist())


def _greedy_tie(m):
    index = m.TokenIndex(m.regex_to_dfa("[ab]c"), [b"a", b"b", b"c", None], eos_id=3)
    c = m.Constraint(index)
    token, logprob = m.constrained_sample(np.array([1.0, 1.0, 5.0, 9.0]), c, m.SamplingParams(temperature=0.0),
                                          [], np.random.default_rng(0))
    return token, round(float(logprob), 9)


def _unmasked_sampler(m):
    index = m.TokenIndex(m.regex_to_dfa("ab?"), [b"a", b"b", b"c", None], eos_id=3)
    c = m.Constraint(index)
    try:
        return m.constrained_sample(np.array([0.0, 1.0, 5.0, 2.0]), c, m.SamplingParams(temperature=0.0),
                                    [], np.random.default_rng(0))[0]
    except ValueError:
        return "raised"


def _vocab(tokens, specials=()):
    """``vocab_bytes`` the way the default tier calls it: one tokenizer object whose own
    special list marks the specials (``harness.sandbox.shapes.SpecTokenizer``)."""
    from harness.sandbox.shapes import SpecTokenizer

    return lambda m: m.vocab_bytes(SpecTokenizer(list(tokens), special_ids=sorted(specials)))


def _after_eos(m):
    index = m.TokenIndex(m.regex_to_dfa("a+"), [b"a", None], eos_id=1)
    c = m.Constraint(index)
    c.advance(0)
    c.advance(1)
    return np.flatnonzero(c.mask()).tolist()


def _float_enum(m):
    return m.json_schema_to_regex({"enum": [1.5e-05]})


OBJ_XY = {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}}
OBJ_BA = {"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}}, "required": ["b", "a"]}
OBJ_REQ = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a"]}
ARR = {"type": "array", "items": {"type": "integer"}, "maxItems": 2}
ENUM = {"enum": [2.5, "a\"b"]}

# --- edits that two mutants share (one definition, both ids keep their pitfall and killers) ---

MAX_ITEMS_OFF_BY_ONE = Anchor("schema.py", "array", 'more = f"{more_lo}," if hi is None else f"{more_lo},{hi - 1}"',
                              'more = f"{more_lo}," if hi is None else f"{more_lo},{hi}"')
"""s18 and l10_9:s05: maxItems 2 accepts three items."""
ENUM_UNESCAPED = Anchor("schema.py", "enum_or_const",
                        'return group("|".join(escape(t) for t in unique)) if len(unique) > 1 else escape(unique[0])',
                        'return group("|".join(unique)) if len(unique) > 1 else unique[0]')
"""s22 and l10_9:s04: enum and const values inserted into the regex as they are."""
SPECIALS_GIVEN_BYTES = Anchor("vocab.py", "_mark_specials", "vocab[i] = None", "pass")  # s27, l10_9:s17
ADVANCE_AFTER_EOS = Anchor("constraint.py", "Constraint.advance", "if self.done:\n    raise ...", "pass")
"""s07 (with a second edit) and l10_9:s10 (with the mask's half): advance accepts a token after EOS."""

# --- the table ---------------------------------------------------------------------------

MUTANTS: tuple[Mutant, ...] = (
    Mutant("s01", "parser", r"'.' matches '\n' (e.g. '.' accepts b'\n')", ("test_matches_python_re",),
           (Anchor("parser.py", "<module>", "DOT = FULL_MASK & ~NEWLINE", "DOT = FULL_MASK"),),
           _matches(".", b"\n")),
    Mutant("s02", "parser", "[^...] complemented over ASCII only (e.g. '[^a]' refuses b'\\xff')",
           ("test_matches_python_re",),
           (Anchor("parser.py", "parse_class", "FULL_MASK & ~mask if negate else mask",
                   "((1 << 128) - 1) & ~mask if negate else mask"),),
           _matches("[^a]", b"\xff")),
    Mutant("s03", "minimize", "no minimization (e.g. 'ab|cb' keeps two states after 'a' and 'c')",
           ("test_canonical_form", "test_hand_example"),
           (Anchor("compile.py", "regex_to_dfa", "block = minimal_partition(trans, accept)",
                   "block = __import__('numpy').arange(accept.shape[0])"),),
           _table("ab|cb")),
    Mutant("s04", "minimize", "numbering in another order (bytes descending: 'd' before 'c')",
           ("test_hand_example",),
           (Anchor("minimize.py", "number_breadth_first", "rows[representative[b]]", "reversed($NODE)"),),
           _table("(cat|car|dog)s?")),
    Mutant("s05", "index", "EOS allowed everywhere (e.g. in state 0 of the hand example)",
           ("test_hand_example_masks",),
           (Anchor("index.py", "TokenIndex._tables", "masks[:, self.eos_id] = accepting",
                   "masks[:, self.eos_id] = True"),),
           _hand_masks),
    Mutant("s06", "index", "the trie walk stops at the first dead byte instead of skipping that subtree",
           ("test_masks_match_brute_force",),
           (Anchor("index.py", "walk_trie", "node = child", "node = child if live.all() else child[:0]"),),
           _hand_masks),
    Mutant("s07", "constraint", "Constraint.advance accepts a token outside the mask (or after EOS)",
           ("test_constraint_lifecycle",),
           (Anchor("constraint.py", "Constraint.advance", "if target == DEAD:\n    raise ...",
                   "if target == DEAD:\n    return"),
            ADVANCE_AFTER_EOS),
           _advance_outside_mask),
    Mutant("s08", "parser", r"\w without '_' (e.g. '\w' refuses b'_')", ("test_matches_python_re",),
           (Anchor("parser.py", "<module>", 'WORD = DIGIT | _range_mask(0x41, 0x5A) | _range_mask(0x61, 0x7A) | _mask("_")',
                   "WORD = DIGIT | _range_mask(0x41, 0x5A) | _range_mask(0x61, 0x7A)"),),
           _matches(r"\w", b"_")),
    Mutant("s09", "nfa", "{2,3} with one optional copy too few (e.g. 'a{2,3}' refuses b'aaa')",
           ("test_matches_python_re",),
           (Anchor("nfa.py", "_Builder.repetition", "range(node.max - node.min)", "range(node.max - node.min - 1)"),),
           _matches("a{2,3}", b"aaa")),
    Mutant("s10", "parser", "'+' built as '*' (e.g. 'a+' accepts b'')", ("test_matches_python_re",),
           (Anchor("parser.py", "_quantifier", 'if ch == "+":\n    p.take()\n    return 1, None',
                   'if ch == "+":\n    p.take()\n    return 0, None'),),
           _matches("a+", b"")),
    Mutant("s11", "parser", "ranges missing their upper end (e.g. '[a-c]' refuses b'c')", ("test_matches_python_re",),
           (Anchor("parser.py", "parse_class", "mask |= _range_mask(lo, hi)",
                   "mask |= _range_mask(lo, hi) & ~(1 << hi) | (1 << lo)"),),
           _matches("[a-c]", b"c")),
    Mutant("s12", "minimize", "a dead sink kept as a state (e.g. 'ab' has a state with no way out)",
           ("test_every_state_is_live",),
           (Anchor("compile.py", "regex_to_dfa", "trans, accept = prune_dead(cdfa)",
                   "trans, accept = cdfa.trans, cdfa.accept"),),
           _table("ab")),
    Mutant("s13", "parser", "anchors read as literal characters (e.g. '^a' accepts b'^a')",
           ("test_unsupported_syntax_raises",),
           (Anchor("parser.py", "parse_atom", 'ch in "^$"', 'ch in ""'),),
           _refuses(lambda m: m.regex_to_dfa("^a"))),
    Mutant("s14", "index", "the trie records the wrong next state (the state before a token's last byte)",
           ("test_masks_match_brute_force",),
           (Anchor("index.py", "walk_trie", "live = target != DEAD", "live = target != DEAD\nbefore = state[live]"),
            Anchor("index.py", "walk_trie", "found.append((origin[ends], token[ends], state[ends]))",
                   "found.append((origin[ends], token[ends], before[ends]))")),
           _hand_next),
    Mutant("s15", "schema", "raw control bytes allowed in JSON strings (e.g. '\"a\\nb\"')",
           ("test_json_schema_documents", "test_constrained_generation_parses"),
           (Anchor("schema.py", "<module>", r'r"[ !#-\[\]-~]"', r'r"[\x00-!#-\[\]-~]"'),),
           _schema_matches({"type": "string"}, '"a\nb"')),
    Mutant("s16", "schema", "any high byte allowed in JSON strings (e.g. '\"\\xff\"')",
           ("test_json_schema_documents", "test_constrained_generation_parses"),
           (Anchor("schema.py", "<module>", "[...] + _UTF8_MULTIBYTE", r'$NODE + [r"[\x80-\xff]"]'),),
           lambda m: m.regex_to_dfa(m.json_schema_to_regex({"type": "string"})).matches(b'"\xff"')),
    Mutant("s17", "schema", "optional properties made required after the first member (e.g. '{\"a\":1}' refused)",
           ("test_json_schema_documents",),
           (Anchor("schema.py", "object_members",
                   'after = f",{member}{after}" if required else f"(?:,{member})?{after}"',
                   'after = f",{member}{after}"'),),
           _schema_matches(OBJ_REQ, '{"a":1}')),
    Mutant("s18", "schema", "maxItems off by one (e.g. maxItems 2 accepts '[1,2,3]')",
           ("test_json_schema_documents",),
           (MAX_ITEMS_OFF_BY_ONE,),
           _schema_matches(ARR, "[1,2,3]")),
    Mutant("s19", "sampling", "apply_mask edits its input in place or returns float32",
           ("test_apply_mask",),
           (Anchor("sampling.py", "apply_mask", "out = x.astype(np.float64, copy=True)", "out = x"),),
           _apply_mask_shape),
    Mutant("s20", "sampling", "greedy ties go to the highest id, or the logprob is not renormalized",
           ("test_greedy_takes_the_best_allowed_token",),
           (Anchor("sampling.py", "sample", "token = int(np.argmax(x))",
                   "token = int(x.size - 1 - np.argmax(x[::-1]))"),),
           _greedy_tie),
    Mutant("s21", "parser", "{m,} built as {m} (e.g. 'a{2,}' refuses b'aaa')", ("test_matches_python_re",),
           (Anchor("parser.py", "_repeat_bounds", "hi = _bound_value(hi_text) if hi_text else None",
                   "hi = _bound_value(hi_text) if hi_text else lo"),),
           _matches("a{2,}", b"aaa")),
    Mutant("s22", "schema", "enum and const values inserted unescaped (e.g. 2.5 matches '2x5')",
           ("test_json_schema_documents",),
           (ENUM_UNESCAPED,),
           _schema_matches(ENUM, "2x5")),
    Mutant("s23", "schema", "integers with leading zeros (e.g. '007')",
           ("test_json_schema_documents", "test_constrained_generation_parses"),
           (Anchor("schema.py", "<module>", 'INTEGER = r"-?(?:0|[1-9][0-9]*)"', 'INTEGER = r"-?[0-9]+"'),),
           _schema_matches({"type": "integer"}, "007")),
    Mutant("s24", "schema", "an exponent without digits (e.g. '1e')",
           ("test_json_schema_documents", "test_constrained_generation_parses"),
           (Anchor("schema.py", "<module>", r'NUMBER = INTEGER + r"(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"',
                   r'NUMBER = INTEGER + r"(?:\.[0-9]+)?(?:[eE][+-]?[0-9]*)?"'),),
           _schema_matches({"type": "number"}, "1e")),
    Mutant("s25", "schema", "unknown schema keywords ignored (e.g. 'pattern' silently dropped)",
           ("test_json_schema_rejects_keywords_outside_the_subset",),
           (Anchor("schema.py", "to_regex", 'for key in sorted(keys - {"type"} - TYPE_KEYWORDS[kind]):\n    ...',
                   "pass"),),
           _refuses(lambda m: m.json_schema_to_regex({"type": "string", "pattern": "a"}))),
    Mutant("s26", "vocab", "token strings encoded as UTF-8 without undoing the byte map ('\u0120a' is 3 bytes)",
           ("test_vocab_bytes",),
           (Anchor("vocab.py", "token_string_bytes", 'return decoded if decoded is not None else token.encode("utf-8")',
                   'return token.encode("utf-8")'),),
           _vocab(["\u0120a", "b"])),
    Mutant("s27", "vocab", "specials given bytes (e.g. '<|endoftext|>' has bytes)", ("test_vocab_bytes",),
           (SPECIALS_GIVEN_BYTES,),
           _vocab(["a", "<|endoftext|>"], specials=[1])),
    # --- the Rust port's mutants (002 section 5, its ids s01-s11 as l10_9:sNN), simulated
    # on the Python reference; each killed by the golden replay check the spec names
    # (l10_9:s12-s16, the tools surface, live in tools_mutants.py; l10_9:s17 below, the tokenizer rule)
    Mutant("l10_9:s01", "minimize", "one refinement of minimization only (a DFA needing two rounds keeps duplicates)",
           ("dfa_matches_python_l8_7",),
           (Anchor("minimize.py", "moore_partition", "new_count == n_blocks", "True"),),
           _table("(a|b)*abb"), kind=REPLAY),
    Mutant("l10_9:s02", "schema", "properties sorted by name (e.g. '{\"b\":1,\"a\":2}' refused)",
           ("dfa_matches_python_l8_7",),
           (Anchor("schema.py", "obj", "props.items()", "sorted(props.items())"),),
           _schema_matches(OBJ_BA, '{"b":1,"a":2}'), kind=REPLAY),
    Mutant("l10_9:s03", "schema", "no comma before a later optional member (e.g. '{\"x\":1\"y\":2}' accepted)",
           ("constrained_output_always_parses",),
           (Anchor("schema.py", "object_members", 'f"(?:,{member})?{after}"', 'f"(?:{member})?{after}"'),),
           _schema_matches(OBJ_XY, '{"x":1"y":2}'), kind=REPLAY),
    Mutant("l10_9:s04", "schema", "enum values unescaped (e.g. 2.5 matches '2x5'; quotes break the pattern)",
           ("dfa_matches_python_l8_7",),
           (ENUM_UNESCAPED,),
           _schema_matches({"enum": [2.5, 1]}, "2x5"), kind=REPLAY),
    Mutant("l10_9:s05", "schema", "maxItems off by one (e.g. maxItems 2 accepts '[1,2,3]')",
           ("constrained_output_always_parses",),
           (MAX_ITEMS_OFF_BY_ONE,),
           _schema_matches(ARR, "[1,2,3]"), kind=REPLAY),
    Mutant("l10_9:s06", "index", "a token's later bytes walked from the wrong state (the start state)",
           ("masks_match_python_l8_7",),
           (Anchor("index.py", "walk_trie", "flat_trans[state * 256 + trie.edge_byte[child]]",
                   "flat_trans[origin * 256 + trie.edge_byte[child]]"),),
           _hand_masks, kind=REPLAY),
    Mutant("l10_9:s07", "index", "EOS allowed before a whole string", ("token_index_rules",),
           (Anchor("index.py", "TokenIndex._tables", "masks[:, self.eos_id] = accepting",
                   "one_short = np.where(self.dfa.trans[states] >= 0, "
                   "self.dfa.accept[np.maximum(self.dfa.trans[states], 0)], False).any(axis=1)\n"
                   "masks[:, self.eos_id] = accepting | one_short"),),
           _hand_masks, kind=REPLAY),
    Mutant("l10_9:s08", "compile", "an empty language not refused (e.g. '[^\\s\\S]' compiles)",
           ("subset_errors_are_refused",),
           (Anchor("compile.py", "regex_to_dfa", "if accept.shape[0] == 0:\n    ...",
                   'if accept.shape[0] == 0:\n    return DFA(__import__("numpy").full((1, 256), -1), [False])'),),
           _refuses(lambda m: m.regex_to_dfa(r"[^\s\S]")), kind=REPLAY),
    Mutant("l10_9:s09", "schema", "floats printed unlike Python (1.5e-05 written 0.000015)", ("dumps_matches_python",),
           (Anchor("schema.py", "_value_text", "text = compact(value)",
                   "text = compact(value) if not isinstance(value, float) or 'e' not in repr(value) "
                   "else format(value, 'f').rstrip('0')"),),
           _float_enum, kind=REPLAY),
    Mutant("l10_9:s10", "constraint", "tokens allowed after EOS", ("masks_match_python_l8_7",),
           (Anchor("constraint.py", "Constraint.mask", "self.done", "False"),
            ADVANCE_AFTER_EOS),
           _after_eos, kind=REPLAY),
    Mutant("l10_9:s11", "sampling", "the sampler sees the unmasked logits (c wins in 'ab?' with logits [0,1,5,2])",
           ("constrained_sample_hand_example",),
           (Anchor("sampling.py", "constrained_sample", "sample(masked, p, history, rng, prompt)",
                   "sample(logits, p, history, rng, prompt)"),),
           _unmasked_sampler, kind=REPLAY),
    # not a row of the spec's pitfall table (it has none for its 20th test, vocab_bytes_marks_specials):
    # the port's tokenizer rule broken, killed by constrain_golden.json's vocab_bytes section
    Mutant("l10_9:s17", "vocab", "specials given bytes (cl100k_base's '<|endoftext|>' generated as text)",
           ("vocab_bytes_marks_specials",),
           (SPECIALS_GIVEN_BYTES,),
           _vocab(["a", "<|endoftext|>"], specials=[1]), kind=REPLAY),
)

PORT_NAMESPACE = "l10_9:"
"""The Rust port's (L10.9, spec ``002_...``) mutant ids: ``l10_9:s01``, never confused
with L8.7's ``s01`` (spec ``000_...``)."""
ALIASES = {f"p{i:02d}": f"{PORT_NAMESPACE}s{i:02d}" for i in range(1, 12)}
"""The port mutants' former ids (``p01``-``p11``), still accepted by ``resolve``."""


MUTANTS = MUTANTS + TOOLS_MUTANTS
"""Every mutant the runner knows: L8.7's, the port's replay mutants and (last) the port's
tool-surface mutants ``l10_9:s12``-``s16`` (``harness.mutants.tools_mutants``)."""

BY_ID = {m.id: m for m in MUTANTS}


def resolve(mutant_id: str) -> str:
    """The catalogue id for ``mutant_id``: itself, or the id an old alias names
    (``p03`` -> ``l10_9:s03``). Unknown ids come back unchanged (the caller reports them)."""
    return ALIASES.get(mutant_id, mutant_id)
