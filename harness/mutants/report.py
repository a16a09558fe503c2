"""Mutation-score reports: a terminal table, JSON, Stryker's schema, and an offline HTML page.

- ``table(results)``: mutant, pitfall, killed by, expected, seconds; then a totals line.
- ``to_json(results)``: ``{"version": 1, "score": {...}, "mutants": [...]}`` with, per
  mutant, its id, kind, stage, pitfall, outcome, expected killers, actual killers,
  ``by_expected``, per-test outcomes and seconds.
- ``to_stryker(results)``: the mutation-testing-report-schema (schemaVersion "2"), so
  mutation-testing-elements and its dashboard render it: one entry per mutated file
  of ``oracles/automaton``, each mutant located at its first edit.
- ``to_html(results)``: a self-contained page (inline CSS, no scripts, no network)
  with the score and the kill matrix, mutants by tests.
- ``kill_rates(results, mutants)`` / ``rates_table``: generated mutants, per reference
  module and per operator: killed by the default tier, by ``--deep``, equivalent; and, beside
  the rates (never changing them), the mutants not killed that change only what the spec leaves
  open (``harness.mutants.scope``: its own size bounds, its own extensions, the wording of its
  refusals) and the kill rate over the spec's own mutants (``scope_sentence`` says both in one line).

``to_report(results, mutants)`` is the adapter to ``harness.report``: the JSON, Stryker
and HTML here are its native renderers; JUnit, CSV and Markdown come from there.

Every function takes ``mutants`` (id -> the mutant: a catalogue ``Mutant`` or a
``generation.GeneratedMutant``), by default the catalogue's ``BY_ID``.
"""

from __future__ import annotations

import collections
import html
import json

from harness.mutants import scope
from harness.mutants.anchors import locate
from harness.mutants.apply import REFERENCE_DIR, reference_dir
from harness.mutants.catalogue import BY_ID
from harness.mutants.runner import MutantResult, Outcome
from harness.report.model import Report, Row

STRYKER_STATUS = {
    Outcome.KILLED: "Killed", Outcome.SURVIVED: "Survived", Outcome.TIMEOUT: "Timeout",
    Outcome.ERROR: "RuntimeError", Outcome.STALE: "CompileError", Outcome.EQUIVALENT: "Ignored",
    Outcome.NOT_COVERED: "NoCoverage", Outcome.UNPROVEN: "Survived",
}


def score(results: list[MutantResult]) -> dict:
    killed = [r for r in results if r.outcome is Outcome.KILLED]
    return {
        "mutants": len(results),
        "killed": len(killed),
        "killed_by_expected": sum(1 for r in killed if r.by_expected),
        "survived": sum(1 for r in results if r.outcome is Outcome.SURVIVED),
        "other": sum(1 for r in results if r.outcome not in (Outcome.KILLED, Outcome.SURVIVED)),
        "seconds": round(sum(r.seconds for r in results), 1),
    }


def others(results: list[MutantResult]) -> str:
    """The outcomes other than killed and survived, each named with its count (``score``'s
    ``other``): "18 timeout, 5 error, 1482 equivalent, 1206 not covered", or "no other outcome"."""
    counts = collections.Counter(r.outcome for r in results if r.outcome not in (Outcome.KILLED, Outcome.SURVIVED))
    named = [f"{counts[o]} {'stale' if o is Outcome.STALE else o.value}" for o in Outcome if counts[o]]
    return ", ".join(named) or "no other outcome"


def _lookup(mutants):
    return BY_ID if mutants is None else mutants


def table(results: list[MutantResult], mutants=None) -> str:
    w = max([7] + [len(r.id) for r in results])
    lines = [f"{'mutant':<{w}} {'outcome':<9} {'killed by':<44} {'expected?':<9} {'s':>5}  pitfall"]
    for r in results:
        killers = ", ".join(r.killed_by) or "-"
        expected = "yes" if r.by_expected else ("ONLY OTHERS" if r.killed_by and r.expected else "-")
        pitfall = _lookup(mutants)[r.id].pitfall if r.id in _lookup(mutants) else ""
        outcome = r.outcome.value if r.outcome is not Outcome.STALE else "stale"
        if r.tier:
            outcome = f"{outcome}:{r.tier}"
        lines.append(f"{r.id:<{w}} {outcome:<9} {killers[:44]:<44} {expected:<9} {r.seconds:>5.1f}  {pitfall[:70]}")
        if r.detail:
            lines.append(f"          {r.detail[:150]}")
    s = score(results)
    lines.append(f"{s['killed']}/{s['mutants']} killed ({s['killed_by_expected']} by an expected test), "
                 f"{s['survived']} survived, {others(results)}; {s['seconds']} s of mutant runs")
    return "\n".join(lines)


def to_json(results: list[MutantResult], mutants=None) -> dict:
    lookup, rows = _lookup(mutants), []
    for r in results:
        m = lookup.get(r.id)
        site = getattr(m, "site", None)
        extra = {"operator": site.operator, "module": site.module, "tier": r.tier,
                 "line": site.start[0], "before": m.before, "after": m.after} if site else {}
        where = scope.of(r, m) if site else ""
        if where:
            extra["scope"] = where
        rows.append({
            "id": r.id, "kind": m.kind if m else None, "stage": m.stage if m else None,
            "pitfall": m.pitfall if m else None, "outcome": r.outcome.value,
            "expected": list(r.expected), "killed_by": r.killed_by, "by_expected": r.by_expected,
            "tests": r.tests, "seconds": round(r.seconds, 2), "detail": r.detail, **extra,
        })
    doc = {"version": 1, "score": score(results), "mutants": rows}
    if any(getattr(lookup.get(r.id), "site", None) for r in results):
        doc["kill_rates"] = kill_rates(results, lookup)
    return doc


def _location(file_text: str, edit) -> dict:
    """Where a mutant's edit (an ``Anchor``, or an ad-hoc text ``Edit``) applies in ``file_text``."""
    (line, column), (end_line, end_column) = locate(file_text, edit)
    return {"start": {"line": line, "column": column}, "end": {"line": end_line, "column": end_column}}


def _generated_entry(r: MutantResult, m) -> tuple[str, dict]:
    site = m.site
    location = {"start": {"line": site.start[0], "column": site.start[1] + 1},
                "end": {"line": site.end[0], "column": site.end[1] + 1}}
    where = scope.of(r, m)
    description = f"{m.pitfall} [{where}]" if scope.kind(where) in scope.OUTSIDE_KINDS else m.pitfall
    return site.file, {
        "id": r.id, "mutatorName": site.operator.split("/", 1)[1], "description": description,
        "replacement": m.after, "location": location, "status": STRYKER_STATUS[r.outcome],
        "statusReason": _reason(r), "killedBy": r.killed_by, "coveredBy": sorted(r.tests),
        "duration": int(r.seconds * 1000),
    }


def _reason(r: MutantResult) -> str | None:
    """The Stryker ``statusReason``: the result's detail, and an equivalent's evidence domain."""
    domain = (r.evidence or {}).get("domain")
    reason = f"{r.detail} ({domain})" if domain and domain not in r.detail else r.detail
    return reason or None


def to_stryker(results: list[MutantResult], mutants=None) -> dict:
    files: dict[str, dict] = {}
    tests: set[str] = set()
    for r in results:
        m = _lookup(mutants)[r.id]
        if getattr(m, "site", None) is not None:
            name, mutant_entry = _generated_entry(r, m)
            path = reference_dir(m) / name   # oracles/tools for a generated mutant of the tool surface
            source = path.read_text(encoding="utf-8") if path.exists() else ""
            files.setdefault(f"oracles/{path.parent.name}/{name}", {"language": "python", "source": source,
                                                                    "mutants": []})["mutants"].append(mutant_entry)
            tests.update(r.tests)
            continue
        edit = m.edits[0] if m.edits else None
        name = edit.file if edit else f"{m.stage}.py"
        path = reference_dir(m) / name
        source = path.read_text(encoding="utf-8") if path.exists() else ""
        entry = files.setdefault(f"oracles/{path.parent.name}/{name}",
                                 {"language": "python", "source": source, "mutants": []})
        location = _location(source, edit) if edit else {"start": {"line": 1, "column": 1},
                                                              "end": {"line": 1, "column": 1}}
        tests.update(r.tests)
        entry["mutants"].append({
            "id": r.id, "mutatorName": f"{r.id} ({m.stage})", "description": m.pitfall,
            "replacement": edit.new if edit else "", "location": location,
            "status": STRYKER_STATUS[r.outcome], "statusReason": r.detail or None,
            "killedBy": r.killed_by, "coveredBy": sorted(r.tests), "duration": int(r.seconds * 1000),
        })
    for entry in files.values():
        for mutant in entry["mutants"]:
            if mutant["statusReason"] is None:
                del mutant["statusReason"]
    return {
        "$schema": "https://git.io/mutation-testing-schema",
        "schemaVersion": "2",
        "thresholds": {"high": 100, "low": 90},
        "projectRoot": str(REFERENCE_DIR.parents[1]),
        "files": files,
        "testFiles": {"harness/suite": {"tests": [{"id": t, "name": t} for t in sorted(tests)]}},
        "framework": {"name": "constrain-harness mutants", "version": _version()},
    }


def _version() -> str:
    from harness import __version__

    return __version__


CSS = """body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:center}th.t{writing-mode:vertical-rl;transform:rotate(180deg)}
td.k{background:#c8e6c9}td.e{background:#81c784;font-weight:bold}td.s{background:#ffcdd2}td.p{background:#f5f5f5}
td.l{text-align:left}.survived{color:#b71c1c;font-weight:bold}"""


def to_html(results: list[MutantResult], mutants=None) -> str:
    s = score(results)
    tests = sorted({t for r in results for t in r.tests})
    head = "".join(f'<th class="t">{html.escape(t)}</th>' for t in tests)
    rows = []
    for r in results:
        m = _lookup(mutants)[r.id]
        cells = []
        for t in tests:
            outcome = r.tests.get(t)
            if outcome in ("failed", "error"):
                cls, mark = ("e", "K") if t in r.expected else ("k", "k")
            elif outcome == "passed":
                cls, mark = "s" if t in r.expected else "p", "."
            else:
                cls, mark = "", ""
            cells.append(f'<td class="{cls}">{mark}</td>')
        outcome_cls = "survived" if r.outcome is not Outcome.KILLED else ""
        rows.append(f'<tr><td class="l">{r.id}</td><td class="l {outcome_cls}">{html.escape(r.outcome.value)}</td>'
                    f'<td class="l">{html.escape(m.pitfall)}</td>{"".join(cells)}</tr>')
    return (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>constrain-harness mutants</title>"
            f"<style>{CSS}</style></head><body><h1>Mutation score: {s['killed']}/{s['mutants']}</h1>"
            f"<p>{s['killed_by_expected']} killed by an expected test; {s['survived']} survived; "
            f"{html.escape(others(results))}. K: killed by an expected test, k: by another test, "
            f".: the test passed (red when it was expected to kill).</p>"
            f"{_html_rates(results, mutants)}"
            f"<table><tr><th>mutant</th><th>outcome</th><th>pitfall</th>{head}</tr>{''.join(rows)}</table>"
            f"</body></html>\n")


def _html_rates(results: list[MutantResult], mutants) -> str:
    lookup = _lookup(mutants)
    if not any(getattr(lookup.get(r.id), "site", None) for r in results):
        return ""
    return f"<h2>Kill rates</h2><pre>{html.escape(rates_table(results, lookup))}</pre>"


# --- kill rates of generated mutants ------------------------------------------------------

RATE_COLUMNS = ("mutants", "equivalent", "invalid", "default", "deep", "survived", "unproven", "not covered")
NOT_KILLED = ("survived", "unproven", "not covered")
SCOPE_COLUMNS = ("not killed", "outside", "outside bound", "outside extension", "outside wording", "spec scored",
                 "spec killed")
"""Beside the rates (``kill_rates``): the mutants not killed; of them, those outside the spec
(``scope.kind``: a size bound of its own, an extension of its own, a refusal's wording); the valid,
non-equivalent mutants of the spec's own behaviour and how many of them a tier killed (``spec_rate``)."""


def _bucket(r: MutantResult) -> str:
    """Where a result counts: equivalent (with evidence), invalid (runner error), default, deep,
    survived, unproven (equal on the corpus without evidence) or not covered (no test executes
    it); the last three are not killed."""
    if r.outcome is Outcome.EQUIVALENT:
        return "equivalent"
    if r.outcome is Outcome.NOT_COVERED:
        return "not covered"
    if r.outcome is Outcome.UNPROVEN:   # equal on the corpus, no evidence: not killed, never equivalent
        return "unproven"
    if r.outcome in (Outcome.ERROR, Outcome.STALE):
        return "invalid"
    if r.outcome in (Outcome.KILLED, Outcome.TIMEOUT):
        return "deep" if r.tier == "deep" else "default"
    return "survived"


def kill_rates(results: list[MutantResult], mutants) -> dict:
    """Per module and per operator family: counts, and the default / deep kill rates over
    the non-equivalent, valid mutants (a timeout counts as killed by the tier it hit).

    Beside them (``SCOPE_COLUMNS``; ``scope.of`` each result, which changes no outcome): the mutants
    not killed, those of them outside the spec, and ``spec_rate``, the rate over the spec's own
    mutants (a tier's kills among the valid, non-equivalent mutants whose scope is the spec's, or
    undecided, over their number: the killed mutants outside the spec are set aside too)."""
    out: dict[str, dict[str, dict]] = {"total": {}, "module": {}, "operator": {}}
    for r in results:
        m = mutants[r.id]
        site, bucket, where = m.site, _bucket(r), scope.kind(scope.of(r, m))
        outside = where in scope.OUTSIDE_KINDS
        for axis, key in (("total", "all"), ("module", site.module), ("operator", site.family)):
            row = out[axis].setdefault(key, dict.fromkeys(RATE_COLUMNS + SCOPE_COLUMNS, 0) | {"scoped": False})
            row["mutants"] += 1
            row[bucket] += 1
            row["scoped"] = row["scoped"] or where is not None
            if bucket in NOT_KILLED:
                row["not killed"] += 1
                if outside:
                    row["outside"] += 1
                    row[f"outside {where}"] += 1
            if bucket not in ("equivalent", "invalid") and not outside:
                row["spec scored"] += 1
                row["spec killed"] += bucket in ("default", "deep")
    for axis in out.values():
        for row in axis.values():
            scored = row["mutants"] - row["equivalent"] - row["invalid"]
            row["default_rate"] = round(row["default"] / scored, 4) if scored else None
            row["deep_rate"] = round((row["default"] + row["deep"]) / scored, 4) if scored else None
            row["spec_rate"] = round(row["spec killed"] / row["spec scored"], 4) if row["spec scored"] else None
    return out


def scope_sentence(row: dict) -> str:
    """One line beside a row's rates (``kill_rates``): of the mutants not killed, how many change only
    what the spec leaves open, and the kill rate over the rest; "" when no result has a scope (the
    tools mutants, or no generated mutant)."""
    if not row.get("scoped"):
        return ""
    rate = "no mutant is left" if row["spec_rate"] is None else f"the catalogue kills {_percent(row['spec_rate'])}%"
    verb = "changes" if row["outside"] == 1 else "change"
    return (f"Of the {row['not killed']} not killed, {row['outside']} {verb} only what the spec leaves open (its "
            f"own size bounds: {row['outside bound']}, its own extensions: {row['outside extension']}, the wording "
            f"of its refusals: {row['outside wording']}); over the "
            f"other {row['spec scored']} valid, non-equivalent mutants (the spec's own behaviour) {rate} by a tier.")


def rates_table(results: list[MutantResult], mutants) -> str:
    """The rates as text; ``outside``: not killed, outside the spec; ``spec %``: a tier's rate over the
    spec's own mutants (``kill_rates``), and the total's ``scope_sentence`` last."""
    rates = kill_rates(results, mutants)
    head = (f"{'':<28}" + "".join(f"{c:>12}" for c in RATE_COLUMNS) + f"{'default %':>11}{'deep %':>9}"
            f"{'outside':>9}{'spec %':>8}")
    lines = []
    for axis, title in (("module", "per reference module"), ("operator", "per operator"), ("total", "all")):
        lines += ["", title, head]
        for key, row in sorted(rates[axis].items()):
            lines.append(f"{key:<28}" + "".join(f"{row[c]:>12}" for c in RATE_COLUMNS)
                         + f"{_percent(row['default_rate']):>11}{_percent(row['deep_rate']):>9}"
                         + f"{row['outside']:>9}{_percent(row['spec_rate']):>8}")
    sentence = scope_sentence(rates["total"].get("all", {}))
    return "\n".join(lines[1:] + ([sentence] if sentence else []))


def dumps(obj: dict) -> str:
    return json.dumps(obj, indent=1, sort_keys=False) + "\n"


def to_report(results: list[MutantResult], mutants=None) -> Report:
    """The results as ``harness.report``'s model (kind ``mutants``): a row per mutant,
    passed when the tests did their job (killed; for generated mutants also a timeout),
    skipped when equivalent, failed when it survived, an error otherwise (runner error,
    stale patch, a catalogue mutant's timeout). JSON, Stryker and HTML above are the
    native renderers; ``--junit-xml``, ``--csv``, ``--md`` the generic ones."""
    lookup = _lookup(mutants)
    generated = mutants is not None
    rows = tuple(_row(r, lookup.get(r.id), generated) for r in results)
    s = score(results)
    bad = sum(row.status in ("failed", "error") for row in rows)
    return Report("mutants", f"constrain-harness mutants: {s['killed']}/{s['mutants']} killed", frozenset({"mutants"}),
                  rows, "failed" if bad else "passed", 1 if bad else 0, sum(r.seconds for r in results),
                  terminal=table(results, mutants),
                  native={"json": lambda: dumps(to_json(results, mutants)),
                          "stryker": lambda: dumps(to_stryker(results, mutants)),
                          "html": lambda: to_html(results, mutants)})


def _row(r: MutantResult, m, generated: bool) -> Row:
    if r.outcome is Outcome.KILLED or (generated and r.outcome is Outcome.TIMEOUT):
        status = "passed"
    else:
        status = {Outcome.EQUIVALENT: "skipped", Outcome.SURVIVED: "failed",
                  Outcome.NOT_COVERED: "failed", Outcome.UNPROVEN: "failed"}.get(r.outcome, "error")
    why = f"killed by {', '.join(r.killed_by)}" if r.killed_by else r.detail.splitlines()[0] if r.detail else ""
    group = (m.site.module if getattr(m, "site", None) else m.stage) if m is not None else "mutants"
    outcome = r.outcome.value + (f":{r.tier}" if r.tier else "")
    return Row(r.id, status, outcome, why if status != "passed" or r.killed_by else "", r.detail, r.seconds,
               f"mutants.{group}")


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}"
