"""What the spec leaves open (issue 52 items 3 and 5, ``harness.mutants.scope``): a generated mutant of
a size bound the spec does not set, or of the reference's own extension, is "outside the spec"; any
other is the spec's. The oracle is the contract (``harness/contract/constrain.pyi``: the spec's section
4 made precise, every name of the interface; it sets no ``MAX_*`` bound) and, for the reports, the
arithmetic done here. The scope changes no verdict."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

import harness
from harness.mutants import course, generation, report, runner, scope, scope_figures
from harness.mutants.runner import MutantResult, Outcome
from harness.mutants.state import MutantState
from harness.report import escape

CONTRACT_TEXT = (Path(harness.__file__).parent / "contract" / "constrain.pyi").read_text(encoding="utf-8")
CONTRACT = {node.name: node for node in ast.parse(CONTRACT_TEXT).body
            if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
"""The interface's classes and functions by name."""


def _site(module: str, wanted) -> generation.Site:
    return next(site for site in generation.enumerate_sites(modules=[module]) if wanted(site))


def _line_of(module: str, text: str) -> int:
    lines = (generation.REFERENCE_DIR / f"{module}.py").read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip() == text)


def _in_function(module: str, qualified: str):
    start, end, _ = next(f for f in scope.functions(f"{module}.py") if f[2] == qualified)
    return lambda site: start <= site.start[0] <= end


def _bound_site() -> generation.Site:
    """parser.py's nesting check (``_first_group_deeper_than(pattern, MAX_NESTING)``), ``>`` made ``>=``."""
    line = _line_of("parser", 'if ch == "(" and depth > limit:')
    return _site("parser", lambda s: s.start[0] == line and s.operator.endswith("Gt_GtE"))


def _spec_site() -> generation.Site:
    """parser.py's ``{m,n}`` check (the spec's "bad repeats": ``{3,2}``), ``<`` made ``<=``."""
    line = _line_of("parser", "if hi is not None and hi < lo:")
    return _site("parser", lambda s: s.start[0] == line and s.operator.endswith("Lt_LtE"))


def _members(name: str) -> set[str]:
    return {n.name if isinstance(n, ast.FunctionDef) else n.target.id for n in CONTRACT[name].body
            if isinstance(n, ast.FunctionDef) or (isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name))}


def test_the_interface_sets_no_size_bound_and_names_none_of_the_extensions():
    assert "MAX_" not in CONTRACT_TEXT   # a cap is "the implementation's documented" one: no number
    for entry in scope.EXTENSIONS:
        owner, _, name = entry.function.rpartition(".")
        if owner:   # a method: not one of its class's in the interface (a class the interface lacks: none are)
            assert name not in _members(owner) if owner in CONTRACT else owner not in CONTRACT_TEXT, entry
        else:       # a module's own helper: the interface names neither it nor what it reads
            assert name not in CONTRACT_TEXT, entry
    assert [a.arg for a in CONTRACT["vocab_bytes"].args.args] == ["tok"]   # no special_ids
    assert "_ranks" not in CONTRACT_TEXT and "mergeable" not in CONTRACT_TEXT
    assert _members("DFA") == {"n_states", "trans", "accept", "step", "matches"}


def test_every_extension_still_names_a_function_of_the_reference():
    for entry in scope.EXTENSIONS:
        names = [name for _, _, name in scope.functions(f"{entry.module}.py")]
        assert entry.function in names, f"{entry.module}.{entry.function} is gone: update scope.EXTENSIONS"
        assert entry.reason.strip() and "\n" not in entry.reason
    assert len({(e.module, e.function) for e in scope.EXTENSIONS}) == len(scope.EXTENSIONS)


def test_a_bound_mutant_and_an_extension_mutant_are_outside_the_spec_and_a_spec_mutant_is_not():
    bound = scope.classify(_bound_site())
    assert scope.kind(bound) == "bound" and bound == f"{scope.OUTSIDE}{scope.BOUND} (MAX_NESTING)"
    for module, function in (("dfa", "DFA.__eq__"), ("vocab", "_special_id_set"), ("vocab", "_from_ranks")):
        found = scope.classify(_site(module, _in_function(module, function)))
        assert scope.kind(found) == "extension" and f"{module}.{function}: " in found, found
    assert scope.classify(_spec_site()) == scope.SPEC
    scan = _line_of("parser", 'depth += (ch == "(") - (ch == ")" and depth > 0)')   # no MAX_ name, no alias
    assert scope.classify(_site("parser", lambda s: s.start[0] == scan)).endswith(
        "(MAX_NESTING: the nesting scan, there for that bound only)")
    deeper = _line_of("schema", "stack.extend((v, depth + 1) for v in item.values())")   # a value's depth
    assert "(MAX_DEPTH, MAX_VALUE_DEPTH: " in scope.classify(
        _site("schema", lambda s: s.start[0] == deeper and s.operator.endswith("Add_Sub")))
    items = _line_of("schema", "more_lo = max(lo - 1, 0)")   # minItems: the spec's
    assert scope.classify(_site("schema", lambda s: s.start[0] == items)) == scope.SPEC
    assert scope.classify(_site("dfa", _in_function("dfa", "DFA.step"))) == scope.SPEC   # the spec's DFA.step


def _messages_blanked(source: str) -> str:
    """``source``'s syntax tree with every refusal's message (a ``raise``'s first argument, when it is a
    string, an f-string or a ``+`` of them) made one empty string: two sources that differ only in those
    words give the same dump."""
    def text(node) -> bool:
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return True
        return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and text(node.left) and text(node.right)

    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args and text(node.exc.args[0]):
            node.exc.args[0] = ast.Constant("")
    return ast.dump(tree)


@pytest.mark.parametrize("module", ["vocab"])
def test_a_mutant_is_the_wording_of_a_refusal_exactly_when_only_a_message_changes(module):
    """The oracle: the mutant's syntax tree against the reference's, every refusal's words blanked
    (``_messages_blanked``); equal there and different in the source is wording, whatever ``scope``
    computes from positions (UTF-8 columns, messages over two lines, a slice inside an f-string)."""
    text = (generation.REFERENCE_DIR / f"{module}.py").read_text(encoding="utf-8")
    reference = _messages_blanked(text)
    raising = {line for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Raise)
               for line in range(node.lineno, node.end_lineno + 1)}   # a site elsewhere changes no refusal's words
    wording = 0
    for site in generation.enumerate_sites(modules=[module]):
        if site.start[0] not in raising:
            continue
        mutant, _ = generation.build(site)
        if mutant is None or scope.kind(scope.classify(site)) in ("bound", "extension"):
            continue
        only_words = _messages_blanked(mutant.source) == reference
        assert (scope.kind(scope.classify(site)) == "wording") is only_words, (site.id, mutant.before, mutant.after)
        wording += only_words
    assert wording >= 20   # vocab: _mark_specials' range, _from_transformers' count over two lines, token[:40] ...


def test_a_refusals_words_are_found_by_character_columns_and_its_other_arguments_are_not_words(tmp_path):
    """``ast`` counts a column in UTF-8 bytes, a site in characters: after an ``é`` the two differ."""
    (tmp_path / "m.py").write_text('def f(x):\n    raise ValueError(f"é {x - 1}", x + 1)\n', encoding="utf-8")
    line = '    raise ValueError(f"é {x - 1}", x + 1)'
    inner, other = line.index("x - 1"), line.index("x + 1")

    def at(column: int, width: int = 5):
        return SimpleNamespace(file="m.py", start=(2, column), end=(2, column + width))

    assert scope.wording_at(at(inner), tmp_path)
    assert scope.classify(at(inner), tmp_path) == scope.OUTSIDE + scope.WORDING
    assert not scope.wording_at(at(other), tmp_path)                 # the exception's second argument
    assert not scope.wording_at(at(4, len(line) - 4), tmp_path)      # the whole raise: removing it is no wording
    assert not scope.wording_at(at(inner + 2, 6), tmp_path)          # past the message's end


def test_a_scope_no_run_decided_is_classified_from_the_mutant_and_a_tools_mutant_has_none():
    from types import SimpleNamespace

    site = _bound_site()
    empty = MutantResult(site.id, Outcome.SURVIVED, (), [], {}, 0.0)
    assert scope.of(empty, SimpleNamespace(site=site, kind="")) == scope.classify(site)
    recorded = MutantResult(site.id, Outcome.SURVIVED, (), [], {}, 0.0, scope=scope.SPEC)
    assert scope.of(recorded, SimpleNamespace(site=site, kind="")) == scope.SPEC   # the run's own word wins
    from harness.mutants.mutant import TOOLS_REPLAY

    assert scope.of(empty, SimpleNamespace(site=site, kind=TOOLS_REPLAY)) == ""
    with pytest.raises(ValueError, match="unknown mutant scope"):
        scope.kind("somewhere")


def _built(site: generation.Site) -> generation.GeneratedMutant:
    mutant, why = generation.build(site)
    assert mutant is not None, why
    return mutant


def test_the_scope_is_decided_in_the_plan_and_changes_no_verdict(tmp_path):
    mutants = [_built(_bound_site()), _built(_site("dfa", _in_function("dfa", "DFA.__eq__"))),
               _built(_spec_site())]
    verdicts = {m.id: (outcome, detail) for m, (outcome, detail) in zip(mutants, [
        (Outcome.UNPROVEN, "unproven: a size bound"), (Outcome.NOT_COVERED, "no catalogue test executes it"),
        (Outcome.SURVIVED, "every test passed")])}

    def fixed(mutant, root, timeout):   # what the run decides, whatever the scope
        outcome, detail = verdicts[mutant.id]
        return MutantResult(mutant.id, outcome, (), [], {}, 0.0, detail)

    assert [runner.plan(runner.GeneratedOptions(), m).scope for m in mutants] == \
        [scope.classify(m.site) for m in mutants]
    state = MutantState.open(tmp_path / "s.jsonl", {"mode": "generated"}, resume=False)
    results = runner.run_all(mutants, jobs=1, run=fixed, generated=runner.GeneratedOptions(), state=state)
    assert [(r.outcome, r.detail) for r in results] == [verdicts[m.id] for m in mutants]
    assert [scope.kind(r.scope) for r in results] == ["bound", "extension", "spec"]
    again = MutantState.open(tmp_path / "s.jsonl", {"mode": "generated"}, resume=True).results
    assert [again[m.id].scope for m in mutants] == [r.scope for r in results]   # carried by the state


# --- the reports: both rates from a hand-made result list ---------------------------------------

HAND = [  # (outcome, tier, scope kind) of eleven mutants
    (Outcome.KILLED, "default", "spec"), (Outcome.KILLED, "default", "spec"), (Outcome.KILLED, "deep", "spec"),
    (Outcome.KILLED, "deep", "bound"), (Outcome.SURVIVED, "", "bound"), (Outcome.UNPROVEN, "", "bound"),
    (Outcome.NOT_COVERED, "", "extension"), (Outcome.NOT_COVERED, "", "spec"), (Outcome.SURVIVED, "", "spec"),
    (Outcome.EQUIVALENT, "", "extension"), (Outcome.SURVIVED, "", "wording"),
]
SCOPES = {"spec": scope.SPEC, "bound": f"{scope.OUTSIDE}{scope.BOUND} (MAX_NESTING)",
          "extension": f"{scope.OUTSIDE}{scope.EXTENSION} dfa.DFA.__eq__: no equality",
          "wording": f"{scope.OUTSIDE}{scope.WORDING}"}


def _hand():
    mutants, _ = generation.pick(generation.enumerate_sites(modules=["nfa"]), len(HAND), seed=3)
    results = [MutantResult(m.id, outcome, (), ["t"] if outcome is Outcome.KILLED else [], {}, 1.0, "d", tier,
                            {"kind": "hand review", "domain": "r", "size": None} if outcome is Outcome.EQUIVALENT
                            else None, scope=SCOPES[kind]) for m, (outcome, tier, kind) in zip(mutants, HAND)]
    return results, {m.id: m for m in mutants}


def test_the_reports_state_the_rate_as_before_and_beside_it_what_the_spec_leaves_open():
    results, lookup = _hand()
    # by hand: 10 valid non-equivalent mutants, 4 killed; 6 not killed, 4 of them outside the spec (2 bounds,
    # 1 extension, 1 wording); over the spec's own 5 (the 10 less the 4 not killed outside and the killed
    # bound) 3 killed
    total = report.kill_rates(results, lookup)["total"]["all"]
    assert total["deep_rate"] == round(4 / 10, 4) and total["default_rate"] == round(2 / 10, 4)   # as before
    assert (total["not killed"], total["outside"], total["outside bound"], total["outside extension"],
            total["outside wording"]) == (6, 4, 2, 1, 1)
    assert (total["spec scored"], total["spec killed"], total["spec_rate"]) == (5, 3, round(3 / 5, 4))
    sentence = ("Of the 6 not killed, 4 change only what the spec leaves open (its own size bounds: 2, its own "
                "extensions: 1, the wording of its refusals: 1); over the other 5 valid, non-equivalent mutants "
                "(the spec's own behaviour) the catalogue kills 60.0% by a tier.")
    assert report.scope_sentence(total) == sentence
    text = course.to_markdown(results, lookup)
    assert "Killed by a tier: 40.0%; by the default tier: 20.0%. " + escape.markdown(sentence) in text
    assert escape.html(sentence) in course.to_html(results, lookup)
    assert sentence in report.rates_table(results, lookup)
    doc = json.loads(report.dumps(report.to_json(results, lookup)))
    assert doc["kill_rates"]["total"]["all"]["spec_rate"] == 0.6
    assert [m["scope"] for m in doc["mutants"]] == [SCOPES[kind] for _, _, kind in HAND]


def test_a_survivor_outside_the_spec_is_marked_in_the_survivors_and_in_stryker():
    results, lookup = _hand()
    text = course.to_markdown(results, lookup)
    for r in results:
        if r.outcome in (Outcome.SURVIVED, Outcome.UNPROVEN):
            line = next(x for x in text.splitlines() if x.startswith(f"- `{r.id}`"))
            assert (escape.markdown(r.scope, line_start=False) in line) is (r.scope != scope.SPEC)
    assert f"Not covered, outside the spec (1): {results[6].id}" in text
    assert f"Not covered (1): {results[7].id}" in text
    page = course.to_html(results, lookup)
    assert page.count("<b>outside the spec: ") == 3   # the three survivors outside it
    stryker = {m["id"]: m for f in report.to_stryker(results, lookup)["files"].values() for m in f["mutants"]}
    assert stryker[results[4].id]["description"].endswith(f"[{SCOPES['bound']}]")
    assert "[outside the spec" not in stryker[results[8].id]["description"]


def test_a_run_with_no_scope_states_no_second_rate():
    from harness.mutants.mutant import TOOLS_REPLAY

    results, lookup = _hand()
    tools = {key: type("ToolsLike", (), {"site": m.site, "kind": TOOLS_REPLAY, "before": m.before,
                                         "after": m.after, "file": m.file, "pitfall": m.pitfall})()
             for key, m in lookup.items()}
    bare = [MutantResult(r.id, r.outcome, (), r.killed_by, {}, 1.0, "d", r.tier, r.evidence) for r in results]
    assert report.scope_sentence(report.kill_rates(bare, tools)["total"]["all"]) == ""
    page = course.to_markdown(bare, tools)
    assert "change only what the spec leaves open" not in page and "outside the spec" not in page


def test_an_old_state_without_the_field_loads_and_is_classified_when_read(tmp_path):
    bound, spec = _bound_site(), _spec_site()
    path, options = tmp_path / "old.jsonl", {"mode": "generated", "mutants": [bound.id, spec.id, "x.NumberReplacer.0"]}
    state = MutantState.open(path, options, resume=False)
    for site in (bound, spec):   # written before scopes were: no "scope"
        state.save({"id": site.id, "outcome": "survived", "expected": [], "killed_by": [], "tests": {},
                    "seconds": 1.0, "detail": "", "tier": ""})
    loaded = MutantState.open(path, options, resume=True).results[bound.id]
    assert loaded.scope == "" and loaded.outcome is Outcome.SURVIVED
    results, mutants, planned = scope_figures.state_figures(path)
    assert planned == 3 and scope.of(results[0], mutants[bound.id]) == scope.classify(bound)
    text = scope_figures.summary(path)
    assert f"{path}: 2 of the 3 mutants of its plan" in text
    assert re.search(r"^all +2 +0 +2 +1 +1 +0 +0 +0\.0 +0\.0 *$", text, re.M), text
    assert "Of the 2 not killed, 1 changes only what the spec leaves open" in text
    gaps = text.split("of the spec's behaviour (1)", 1)[1].splitlines()[1:]
    assert gaps == [f"  {spec.id} (survived) parser.py:{spec.start[0]}"]   # the bound's survivor is no gap


def test_a_state_of_another_kind_or_reference_is_refused_naming_it(tmp_path):
    path = tmp_path / "cat.jsonl"
    MutantState.open(path, {"mode": "catalogue"}, resume=False)
    with pytest.raises(ValueError, match="not the state of a generated run"):
        scope_figures.state_figures(path)
    other = tmp_path / "other.jsonl"
    MutantState.open(other, {"mode": "generated"}, resume=False).save(
        {"id": "parser.NumberReplacer.99999", "outcome": "killed", "expected": [], "killed_by": [], "tests": {},
         "seconds": 0.0, "detail": "", "tier": "default"})
    with pytest.raises(ValueError, match=r"no site for, e.g. parser.NumberReplacer.99999"):
        scope_figures.state_figures(other)


def test_scope_figures_reclassifies_on_request_and_merges_the_runs_of_several_pythons(tmp_path):
    """``--reclassify``: the scope a run recorded gives way to today's rules; several states of one plan:
    merged by ``--merge``'s rule (a mutant killed on one Python is killed), refused when they do not merge."""
    from harness.mutants import state as state_file

    bound, spec = _bound_site(), _spec_site()
    plan = {"module": ["parser"], "operators": None, "sample": None, "seed": 1}
    paths = []
    for python, spec_outcome in (("3.10", "killed"), ("3.11", "survived")):   # each run recorded both as "spec"
        header = {"format": state_file.FORMAT, "format_version": state_file.FORMAT_VERSION, "python": python,
                  "options": {"mode": "generated", "plan": plan, "mutants": [bound.id, spec.id], "build": "b"}}
        records = [{"id": site.id, "outcome": outcome, "expected": [],
                    "killed_by": ["t"] if outcome == "killed" else [], "tests": {}, "seconds": 1.0, "detail": "",
                    "tier": "deep" if outcome == "killed" else "", "scope": scope.SPEC}
                   for site, outcome in ((bound, "survived"), (spec, spec_outcome))]
        path = tmp_path / f"py{python}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in [header, *records]), encoding="utf-8")
        paths.append(path)
    recorded = scope_figures.summary(paths[1])
    assert "of the spec's behaviour (2)" in recorded   # as its run said: both the spec's
    again = scope_figures.summary(paths[1], reclassify=True)
    assert "of the spec's behaviour (1)" in again and "its own size bounds: 1" in again
    both = scope_figures.summary(paths, reclassify=True)
    assert "(merged): 2 of the 2 mutants of its plan" in both
    assert re.search(r"^all +2 +1 +1 +1 +1 +0 +0 +50\.0 +100\.0 *$", both, re.M), both
    assert "of the spec's behaviour" not in both   # the spec mutant was killed on 3.10
    with pytest.raises(ValueError, match="both run on Python 3.11"):
        scope_figures.summary([paths[1], paths[1]])
