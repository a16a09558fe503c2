"""The compile evidence's early stages reused from the reference (issue 52 item 4, ``stage_memo``):
the rule that decides when a stage may be reused, checked against what the stages run (coverage),
and the reuse's answers against the mutant's own computation (the oracle: the same items computed
without reuse, each stage in the mutant)."""

from __future__ import annotations

import importlib
import random

import pytest

from harness.mutants import evidence, generation, stage_memo
from harness.mutants.apply import REFERENCE_DIR, load, materialize, materialize_generated
from harness.mutants.equivalence import _clear_caches, covered_package
from harness.mutants.runner import NULL_MUTANT

SAMPLE = 400   # compile-domain items computed each way (seeded), of 5,190
PRUNE_START = "    if not live[0]:\n"                                                    # minimize.prune_dead
ACCEPT_ROWS = "    accept = np.array([_holds(sub, nfa.accept) for sub in subsets], dtype=np.bool_)\n"  # determinize
EOS_COLUMN = "            masks[:, self.eos_id] = accepting\n"                                 # index._tables
NEGATION = "    return FULL_MASK & ~mask if negate else mask\n"               # parser.parse_class: [^...]
STAR_LOOP = "            self.eps[x].append(loop)\n"                             # nfa: x*'s way back
CHAIN = "            return self.chain([node.items[i] for i in range(len(node.items))])\n"   # nfa: a Concat
MOORE_FIRST = "    block = moore_partition(trans, accept, max_rounds=MOORE_ROUNDS, max_work=MOORE_WORK)\n"


def _mutant(file: str, old: str, new: str, occurrence: int) -> generation.GeneratedMutant:
    """A hand-made mutant of ``file``: ``old`` (once in the reference) made ``new``."""
    text = (REFERENCE_DIR / file).read_text(encoding="utf-8")
    assert text.count(old) == 1, (file, old)
    line = text[:text.index(old)].count("\n") + 1
    site = generation.Site(file, "harness/HandMade", occurrence, (line, 4), (line, len(old.rstrip())))
    return generation.GeneratedMutant(site, text.replace(old, new), "(hand-made)", "(hand-made)")


@pytest.fixture(scope="module")
def memo(sample):
    """The memo of the patterns the sample's items hand ``regex_to_dfa`` (the warm grader fills it with
    the whole domain's 5,110, ~5 CPU s on 3.10 under load; the tests compute only the sample's items)."""
    stage_memo.clear()
    stage_memo.fill(sample[1])
    yield
    stage_memo.clear()


@pytest.fixture(scope="module")
def sample():
    """The reference's hashes of a seeded sample of the compile domain's items (None elsewhere:
    ``first_difference`` computes only the others), and the patterns those items hand ``regex_to_dfa``."""
    import oracles.automaton as reference

    items = list(evidence.items(reference, "compile"))
    chosen = set(random.Random(52).sample(range(len(items)), SAMPLE))
    asked, real = [], reference.regex_to_dfa

    def recording(pattern, *args, **kwargs):
        asked.append(pattern)
        return real(pattern, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(reference, "regex_to_dfa", recording)
        hashes = [evidence._hash(evidence._attempt(thunk)) if i in chosen else None
                  for i, (_, thunk) in enumerate(items)]
    assert len(set(asked)) >= SAMPLE // 2, len(set(asked))
    return hashes, list(dict.fromkeys(asked))


@pytest.fixture(scope="module")
def sampled(sample):
    return sample[0]


def _both_ways(mutant, stage: str, sampled, tmp_path):
    """(first_difference without reuse, with ``stage`` reused) on the mutant's own package."""
    package = load(materialize_generated(mutant, tmp_path))
    plain = evidence.first_difference(package, "compile", sampled)
    with stage_memo.reusing(package, stage):
        reused = evidence.first_difference(package, "compile", sampled)
    return plain, reused


def test_the_footprints_are_the_stages_imports_and_decide_the_stage():
    assert stage_memo.footprint("class DFA") == {"parser", "ast", "nfa", "determinize", "errors", "compile", "__init__"}
    assert stage_memo.footprint("DFA") == stage_memo.footprint("class DFA") | {"minimize", "dfa"}
    assert stage_memo.footprint("after parse") == {"nfa", "ast", "determinize", "minimize", "dfa", "errors",
                                                   "compile", "__init__"}
    assert stage_memo.footprint("after class DFA") == {"minimize", "dfa", "errors", "compile", "__init__"}
    found = {module: stage_memo.stage_for(module) for module in sorted(evidence.COMPILE_MODULES)}
    assert found == {"ast": "after class DFA", "bytemap": "DFA", "compile": None, "determinize": "after class DFA",
                     "dfa": "class DFA", "index": "DFA", "minimize": "class DFA", "nfa": "after class DFA",
                     "parser": "after parse"}
    with pytest.raises(ValueError, match="stage must be one of"):
        stage_memo.footprint("NFA")


def test_the_switch_turns_it_off(monkeypatch):
    monkeypatch.setenv(stage_memo.OFF_VARIABLE, "1")
    assert stage_memo.stage_for("minimize") is None and stage_memo.stage_for("index") is None


def test_the_stages_run_no_line_outside_their_footprint(tmp_path):
    """Coverage of the reference's stages over a seeded sample of the domain's patterns: every line
    each runs is in a module of its footprint (the static rule misses no module the code reaches)."""
    patterns = evidence.compile_domain_patterns()
    chosen = random.Random(3).sample(patterns, 150) + list(evidence.EDGE_PATTERNS.values())[:2]
    with covered_package(materialize(NULL_MUTANT, tmp_path)) as (cov, package):
        compile_module = importlib.import_module(f"{package.__name__}.compile")
        for pattern in chosen:
            _clear_caches(package)
            cov.switch_context("class DFA")
            try:
                with compile_module._recursion_room(compile_module.RECURSION_ROOM):
                    nfa = compile_module.build_nfa(compile_module.parse(pattern))
                compile_module.subset_construction(nfa)
            except ValueError:
                pass
            _clear_caches(package)
            cov.switch_context("DFA")
            try:
                package.regex_to_dfa(pattern)
            except ValueError:
                pass
            cov.switch_context("")
            try:
                with compile_module._recursion_room(compile_module.RECURSION_ROOM):
                    tree = compile_module.parse(pattern)
                    nfa = compile_module.build_nfa(tree)
                cdfa = compile_module.subset_construction(nfa)
            except ValueError:
                continue
            for stage, given in (("after parse", {"parse": lambda _, tree=tree: tree}),   # what follows each value
                                 ("after NFA", {"parse": lambda _: None, "build_nfa": lambda _, nfa=nfa: nfa}),
                                 ("after class DFA", {"parse": lambda _: None, "build_nfa": lambda _: None,
                                                      "subset_construction": lambda *_, cdfa=cdfa, **k: cdfa})):
                # "after NFA" is no stage: what follows it reads the NFA's n_states, code of nfa.py (below)
                _clear_caches(package)
                cov.switch_context(stage)
                try:
                    with stage_memo._replaced(compile_module, given):
                        package.regex_to_dfa(pattern)
                except ValueError:
                    pass
                cov.switch_context("")
    data = cov.get_data()
    ran: dict[str, set[str]] = {stage: set() for stage in (*stage_memo.STAGES, "after NFA")}
    for path in data.measured_files():
        for contexts in data.contexts_by_lineno(path).values():
            for context in contexts:
                if context in ran:
                    ran[context].add(path.rsplit("/", 1)[1].removesuffix(".py"))
    assert ran["class DFA"] and ran["class DFA"] <= stage_memo.footprint("class DFA"), ran["class DFA"]
    assert {"minimize", "dfa"} <= ran["DFA"] <= stage_memo.footprint("DFA"), ran["DFA"]
    assert {"nfa", "determinize", "minimize"} <= ran["after parse"] <= stage_memo.footprint("after parse"), \
        ran["after parse"]
    assert "nfa" in ran["after NFA"]   # why no stage is reused after an equal NFA: the NFA's own code runs after it
    assert {"minimize"} <= ran["after class DFA"] <= stage_memo.footprint("after class DFA"), ran["after class DFA"]
    assert "parser" not in ran["after parse"]
    assert "determinize" not in ran["after class DFA"]


def test_a_reused_stage_gives_the_mutant_s_own_answers(memo, sampled, tmp_path):
    """Mutants outside the stage's footprint, differing and equivalent: the first difference (its
    item) and the items computed are the same with the reference's stage as with the mutant's own."""
    cases = [(_mutant("minimize.py", PRUNE_START, "    if not live[-1]:\n", 1), "class DFA"),
             (_mutant("minimize.py", MOORE_FIRST, "    block = None\n", 2), "class DFA"),   # always Hopcroft
             (_mutant("index.py", EOS_COLUMN, "            masks[:, self.eos_id] = accepting & (states > 0)\n", 3),
              "DFA"),
             (_mutant("parser.py", NEGATION, "    return mask\n", 6), "after parse"),   # [^a] read as [a]
             (_mutant("parser.py", NEGATION, "    return FULL_MASK & ~mask if negate else mask | 0\n", 7),
              "after parse"),
             (_mutant("determinize.py", ACCEPT_ROWS, ACCEPT_ROWS.replace(
                 "for sub in subsets]", "for sub in subsets[:-1]] + [False]"), 8), "after class DFA"),
             (_mutant("nfa.py", STAR_LOOP, "", 9), "after class DFA"),                   # x* does not loop
             (_mutant("nfa.py", CHAIN, "            return self.chain(list(node.items))\n", 10), "after class DFA")]
    found = []
    for mutant, stage in cases:
        assert stage_memo.stage_for(mutant.site.module) == stage
        plain, reused = _both_ways(mutant, stage, sampled, tmp_path / str(mutant.site.occurrence))
        assert plain == reused, mutant.site
        found.append(plain)
    assert found[0][0] and found[2][0] and found[3][0], found    # these differ: the check has teeth
    assert found[1] == ([], SAMPLE)              # Hopcroft alone gives Moore's partition
    assert found[4] == ([], SAMPLE)              # the same tree
    assert found[5][0] and found[6][0], found    # an accepting state lost, a star that does not loop: differ
    assert found[7] == ([], SAMPLE)              # the same NFA


def test_the_clean_reference_reuses_every_stage_to_its_own_answers(memo, sampled, tmp_path):
    package = load(materialize(NULL_MUTANT, tmp_path))
    for stage in stage_memo.STAGES:
        with stage_memo.reusing(package, stage):
            assert evidence.first_difference(package, "compile", sampled) == ([], SAMPLE)
    assert package.regex_to_dfa is importlib.import_module(f"{package.__name__}.compile").regex_to_dfa  # hooks gone


def test_a_reuse_inside_the_footprint_would_hide_a_difference(memo, sampled, tmp_path):
    """Why the rule matters: a determinize mutant that differs, given the reference's class DFA,
    would be called equal; the rule never gives it one."""
    mutant = _mutant("determinize.py", ACCEPT_ROWS, ACCEPT_ROWS.replace(
        "for sub in subsets]", "for sub in subsets[:-1]] + [False]"), 4)
    assert "determinize" in stage_memo.footprint("class DFA") and stage_memo.stage_for("determinize") != "class DFA"
    plain, reused = _both_ways(mutant, "class DFA", sampled, tmp_path)
    assert plain[0] and reused == ([], SAMPLE), (plain, reused)
    for stage in ("after parse",):   # its parser's trees: the reference's
        assert _both_ways(mutant, stage, sampled, tmp_path / stage)[1] == ([], SAMPLE), stage


def test_a_cold_process_or_another_argument_computes_as_before(tmp_path):
    kept = dict(stage_memo._MEMO)
    stage_memo.clear()
    package = load(materialize(NULL_MUTANT, tmp_path))
    compile_module = importlib.import_module(f"{package.__name__}.compile")
    with stage_memo.reusing(package, "class DFA"):   # no memo: nothing replaced
        assert compile_module.parse.__module__ == f"{package.__name__}.parser"
    stage_memo.fill(["(cat|car|dog)s?", "a"])
    try:
        with stage_memo.reusing(package, "class DFA"):
            assert compile_module.parse.__module__ == stage_memo.__name__
            dfa = package.regex_to_dfa("(cat|car|dog)s?")
            other = package.regex_to_dfa("(cat|car|dog)s?", max_states=1000)   # not the recorded call
            with pytest.raises(ValueError, match="MAX_DFA_STATES=2"):
                package.regex_to_dfa("(cat|car|dog)s?", max_states=2)
        assert dfa.n_states == other.n_states == 7
        with pytest.raises(ValueError, match="stage must be one of"):
            with stage_memo.reusing(package, "NFA"):
                pass
    finally:
        stage_memo.clear()
        stage_memo._MEMO.update(kept)


def test_the_plan_decides_the_stage_and_the_task_carries_it(monkeypatch):
    """Decided before the run fans out (``plan`` parses the reference's imports), sent as data, read
    by the task: a worker parses nothing."""
    from harness.mutants import runner, tasks

    mutant = _mutant("minimize.py", PRUNE_START, "    if not live[-1]:\n", 1)
    chosen = runner.plan(runner.GeneratedOptions(), mutant)
    assert chosen.reuse == "class DFA+masks"
    payload = runner.mutant_task(mutant, timeout=30.0, reuse=chosen.reuse).payload
    assert payload["reuse"] == "class DFA+masks"
    seen = {}
    monkeypatch.setattr(runner, "run_generated", lambda *a, **k: seen.update(k) or runner.MutantResult(
        mutant.id, runner.Outcome.KILLED, (), ["load"], {}, 0.0, "", "load"))
    tasks.run_task(payload)
    assert seen["reuse"] == "class DFA+masks"
    parser = _mutant("parser.py", "from . import ast\n", "from . import ast  # \n", 5)
    assert runner.plan(runner.GeneratedOptions(), parser).reuse == "after parse+masks"
