"""The compile evidence's token masks taken from the reference when a DFA's tables are the
reference's (issue 52 item 4, ``stage_memo.MASKS``): the rule (the masks' footprint is
``TokenIndex``'s imports, checked against what the masks run: coverage), the memo's reach (every
DFA the domain indexes), and the reuse's answers against the mutant's own computation (the
oracle: the same items computed without the reuse, every mask walked in the mutant)."""

from __future__ import annotations

import importlib
import random

import numpy as np
import pytest

from harness.mutants import evidence, runner, stage_memo
from harness.mutants.apply import load, materialize, materialize_generated
from harness.mutants.equivalence import _clear_caches, covered_package
from harness.mutants.runner import NULL_MUTANT
from tests.mutants.test_mutants_stage_memo import EOS_COLUMN, PRUNE_START, _mutant

SAMPLE = 400   # compile-domain items with masks computed each way (seeded)
ONE_ITEM = "        return flat[0]\n    return Concat(tuple(flat))\n"          # ast.concat: one item is itself
NEGATION = "    return FULL_MASK & ~mask if negate else mask\n"               # parser.parse_class: [^...]


@pytest.fixture(scope="module")
def memo():
    stage_memo.clear()
    stage_memo.fill_masks()
    yield
    stage_memo.clear()


@pytest.fixture(scope="module")
def sampled():
    """The reference's hashes of a seeded sample of the compile domain's items that build a
    ``TokenIndex`` (None elsewhere: not computed)."""
    import oracles.automaton as reference

    items = list(evidence.items(reference, "compile"))
    masked = {f"pattern {p!r}" for p in stage_memo.mask_patterns()}
    with_index = [i for i, (label, _) in enumerate(items) if label in masked or label.startswith("TokenIndex")]
    chosen = set(random.Random(52).sample(with_index, SAMPLE))
    return [evidence._hash(evidence._attempt(thunk)) if i in chosen else None for i, (_, thunk) in enumerate(items)]


def test_the_masks_footprint_is_the_index_s_imports_and_decides_the_reuse(monkeypatch):
    assert stage_memo.footprint("masks") == {"index", "dfa", "errors", "vocab", "bytemap", "compile", "__init__"}
    found = {module: stage_memo.reuse_for(module) for module in sorted(evidence.COMPILE_MODULES)}
    assert found == {"ast": "after class DFA+masks", "bytemap": "DFA", "compile": None,
                     "determinize": "after class DFA+masks", "dfa": "class DFA", "index": "DFA",
                     "minimize": "class DFA+masks", "nfa": "after class DFA+masks", "parser": "after parse+masks"}
    assert stage_memo.reuses("class DFA+masks") == ("class DFA", "masks")
    for wrong in ("class DFA+DFA", "masks+masks", "NFA", "masks+"):
        with pytest.raises(ValueError, match="a reuse is one of"):
            stage_memo.reuses(wrong)
    monkeypatch.setenv(stage_memo.MASKS_OFF_VARIABLE, "1")
    assert stage_memo.reuse_for("minimize") == "class DFA" and stage_memo.reuse_for("ast") == "after class DFA"
    monkeypatch.delenv(stage_memo.MASKS_OFF_VARIABLE)
    monkeypatch.setenv(stage_memo.OFF_VARIABLE, "1")
    assert stage_memo.reuse_for("minimize") is None and stage_memo.reuse_for("parser") is None


def test_the_masks_run_no_line_outside_their_footprint(tmp_path):
    """Coverage of ``TokenIndex`` and every state's mask and ``next_state`` over a seeded sample of
    the DFAs the domain indexes: every line is in a module of the masks' footprint."""
    vocab, eos_id = evidence.evidence_vocabulary()
    chosen = random.Random(4).sample(stage_memo.mask_patterns(), 60)
    with covered_package(materialize(NULL_MUTANT, tmp_path)) as (cov, package):
        dfas = []
        for pattern in chosen:
            try:
                dfas.append(package.regex_to_dfa(pattern))
            except ValueError:
                pass
        for dfa in dfas:
            _clear_caches(package)
            cov.switch_context("masks")
            index = package.TokenIndex(dfa, list(vocab), eos_id)
            for state in range(dfa.n_states):
                index.mask(state)
                index.next_state(state, eos_id)
            cov.switch_context("")
    ran = set()
    data = cov.get_data()
    for path in data.measured_files():
        for contexts in data.contexts_by_lineno(path).values():
            if "masks" in contexts:
                ran.add(path.rsplit("/", 1)[1].removesuffix(".py"))
    assert "index" in ran and ran <= stage_memo.footprint("masks"), ran


def test_the_memo_holds_every_dfa_the_domain_indexes(memo, tmp_path):
    """Every ``TokenIndex`` the reference's compile domain builds over the evidence vocabulary is
    served from the memo, its caches as its own ``mask`` calls leave them. The items on the
    enumeration's largest size (tables only, 3,998 of 5,190: ``evidence._compile_items``) run with a
    one-state DFA standing for their pattern's, which is enough to show they build no index at all
    (whatever DFA they get); every other item is computed in full."""
    package = load(materialize(NULL_MUTANT, tmp_path))
    vocab, eos_id = evidence.evidence_vocabulary()
    hook, seen, built = stage_memo._masks_hook(package), [], []
    real = importlib.import_module(f"{package.__name__}.index").TokenIndex
    one_state = package.regex_to_dfa("a*")

    def counted(dfa, *args, **kwargs):
        index = hook(dfa, *args, **kwargs)
        if isinstance(dfa, type(one_state)) and list(args[:1]) == [list(vocab)] and index.eos_id == eos_id:
            seen.append(bool(index._masks))
        return index

    def stand_in(pattern):
        assert isinstance(pattern, str)
        return one_state

    def recorded(dfa, *args, **kwargs):
        built.append(dfa)
        return real(dfa, *args, **kwargs)
    size = evidence.EVIDENCE_MAX_SIZE
    largest = {f"pattern {p!r}" for p in evidence._enumerated(evidence.EVIDENCE_GRAMMAR, size)[size - 1]}
    tables_only = 0
    with stage_memo._replaced(package, {"TokenIndex": counted}):
        for label, thunk in evidence.items(package, "compile"):
            if label not in largest:
                evidence._attempt(thunk)
                continue
            tables_only += 1
            with stage_memo._replaced(package, {"regex_to_dfa": stand_in, "TokenIndex": recorded}):
                evidence._attempt(thunk)
    assert tables_only > 3000 and built == [], (tables_only, len(built))
    assert len(seen) > 900 and all(seen), (len(seen), seen.count(False))
    for pattern in ("(cat|car|dog)s?", "[ab]*", stage_memo.mask_patterns()[500]):   # served == computed
        dfa = package.regex_to_dfa(pattern)
        served, own = hook(dfa, list(vocab), eos_id), real(dfa, list(vocab), eos_id)
        assert served._masks and not own._masks
        for state in range(dfa.n_states):
            assert np.array_equal(served.mask(state), own.mask(state))
            assert [served.next_state(state, t) for t in range(len(vocab))] == \
                [own.next_state(state, t) for t in range(len(vocab))]
        assert served._masks.keys() == own._masks.keys()
        for state, (tokens, targets) in own._pairs.items():
            assert np.array_equal(served._pairs[state][0], tokens) and np.array_equal(served._pairs[state][1], targets)


def test_the_hook_leaves_other_calls_alone(memo, tmp_path):
    """Another vocabulary, no EOS, tables the memo lacks, bad arguments: the index's own answer."""
    package = load(materialize(NULL_MUTANT, tmp_path))
    vocab, eos_id = evidence.evidence_vocabulary()
    hook = stage_memo._masks_hook(package)
    dfa = package.regex_to_dfa("(cat|car|dog)s?")
    assert hook(dfa, list(vocab), eos_id)._masks                       # the recorded call: served
    assert not hook(dfa, list(vocab), None)._masks                     # no EOS
    assert not hook(dfa, list(vocab)[:-1] + [b"zz"], eos_id)._masks    # another vocabulary
    assert not hook(package.regex_to_dfa("x" * 40), list(vocab), eos_id)._masks   # tables not in the memo
    with pytest.raises(ValueError, match="eos_id 999 out of range"):
        hook(dfa, list(vocab), 999)


def _both_ways(mutant, sampled, tmp_path):
    """(first_difference without the masks reused, with them) on the mutant's own package."""
    package = load(materialize_generated(mutant, tmp_path))
    plain = evidence.first_difference(package, "compile", sampled)
    with stage_memo.reusing(package, stage_memo.MASKS):
        assert package.TokenIndex.__module__ == stage_memo.__name__
        reused = evidence.first_difference(package, "compile", sampled)
    assert package.TokenIndex.__module__ != stage_memo.__name__   # the hook is gone
    return plain, reused


def test_the_reused_masks_give_the_mutant_s_own_answers(memo, sampled, tmp_path):
    """Mutants outside the masks' footprint, differing and equivalent: the first difference and the
    items computed are the same with the reference's masks as with the mutant's own."""
    cases = [_mutant("minimize.py", PRUNE_START, "    if not live[-1]:\n", 11),
             _mutant("parser.py", NEGATION, "    return mask\n", 12),
             _mutant("ast.py", ONE_ITEM, "        return Concat((flat[0],))\n    return Concat(tuple(flat))\n", 13)]
    found = []
    for mutant in cases:
        assert stage_memo.MASKS in stage_memo.reuses(stage_memo.reuse_for(mutant.site.module))
        plain, reused = _both_ways(mutant, sampled, tmp_path / str(mutant.site.occurrence))
        assert plain == reused, mutant.site
        found.append(plain)
    assert found[1][0], found                   # [^a] read as [a] differs: the check has teeth
    assert found[2] == ([], SAMPLE), found      # a one-item Concat: the same language, the same DFA


def test_a_masks_reuse_inside_the_footprint_would_hide_a_difference(memo, sampled, tmp_path):
    """Why the rule matters: an index mutant whose masks differ on DFAs equal to the reference's
    would be called equal with the reference's masks; the rule never gives it them."""
    mutant = _mutant("index.py", EOS_COLUMN, "            masks[:, self.eos_id] = accepting & (states > 0)\n", 14)
    assert stage_memo.MASKS not in (stage_memo.reuse_for("index") or "")
    plain, reused = _both_ways(mutant, sampled, tmp_path)
    assert plain[0] and reused == ([], SAMPLE), (plain, reused)


def test_the_plan_asks_for_the_masks_and_the_child_reads_them(memo, tmp_path, capsys):
    chosen = runner.plan(runner.GeneratedOptions(), _mutant("parser.py", NEGATION, "    return mask\n", 15))
    assert chosen.reuse == "after parse+masks"
    package = materialize(NULL_MUTANT, tmp_path / "clean")
    against = tmp_path / "against.json"
    size = sum(1 for _ in evidence.items(load(package), "compile"))
    against.write_text("[" + ", ".join("null" for _ in range(size)) + "]", encoding="utf-8")   # nothing to compute
    assert stage_memo.main([str(package), "compile", "--against", str(against), "class DFA+masks"]) == 0
    assert capsys.readouterr().out.strip() == '{"differs": [], "computed": 0}'
    with pytest.raises(ValueError, match="a reuse is one of"):
        stage_memo.main([str(package), "compile", "--against", str(against), "masks+NFA"])
