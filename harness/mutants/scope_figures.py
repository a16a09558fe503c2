"""A generated run's ``--state`` file read for what the spec leaves open (issue 52 items 3 and 5).

    python -m harness.mutants.scope_figures [--reclassify] STATE.jsonl [STATE.jsonl ...]

Input: the state of a generated run (``harness.mutants.state``), whole or still growing, and of a run
made before scopes were recorded too (its records have no ``scope``: each mutant is classified here,
``scope.of``, from its site in today's reference; a state naming a mutant the reference has no site
for is refused). Several states of one plan run on different Pythons are merged first, by
``--merge``'s rule (``harness.mutants.merge``: the same checks, the same verdict per mutant).
``--reclassify`` classifies every mutant by today's rules (``scope.classify``) instead of the scope
its run recorded: for a state written before a rule was added, when the reference has not changed
since (its sites are today's: a mutant with no site today is refused).

Output (``summary``): per module and in all, the mutants, killed by a tier, not
killed (survived, unproven, not covered), of those the ones outside the spec (its own size bounds, its
own extensions, the wording of its refusals), the kill rate as the report states it, and the rate over
the spec's own mutants (``report.kill_rates``), then ``report.scope_sentence``, then the mutants not
killed of the spec's behaviour, by id with their line: the catalogue's gaps, or code for a reviewer to
triage.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

from harness.mutants import generation, merge, report, scope, state
from harness.mutants.runner import result_from_json


def state_figures(path: Path, reclassify: bool = False) -> tuple[list, dict, int]:
    """(the results a ``--state`` file holds, id -> a stand-in mutant with its ``site``, the number of
    mutants its plan names). ValueError naming the file when it is no generated run's state, or names
    a mutant the reference has no site for (a state of another reference version). ``reclassify``: each
    result's recorded scope is dropped, so ``scope.of`` classifies it by today's rules."""
    path = Path(path)
    header, records = state.read(path, "scope_figures")
    options = header.get("options", {})
    if options.get("mode") != "generated":
        raise ValueError(f"scope_figures: {path} is not the state of a generated run (mode {options.get('mode')!r})")
    planned = options.get("mutants") or list(records)
    return _with_sites({key: result_from_json(record) for key, record in records.items()}, f"{path} holds",
                       reclassify) + (len(planned),)


def merged_figures(paths: list[Path], reclassify: bool = False) -> tuple[list, dict, int]:
    """``state_figures`` of several states of one plan on different Pythons, merged by ``--merge``'s rule
    (``merge.read_runs``: a ValueError naming the file that does not merge)."""
    paths = [Path(p) for p in paths]
    merged = merge.merge(merge.read_runs(paths))
    header, _ = state.read(paths[0], "scope_figures")
    planned = header.get("options", {}).get("mutants") or list(merged)
    return _with_sites({key: m.result for key, m in merged.items()}, f"{paths[0]} and the others hold",
                       reclassify) + (len(planned),)


def _with_sites(results: dict, holder: str, reclassify: bool) -> tuple[list, dict]:
    """(the results, each without its recorded scope when ``reclassify``; id -> a stand-in mutant with its
    ``site`` in today's reference). ValueError when an id has no site today (another reference version)."""
    sites = {site.id: site for site in generation.enumerate_sites()}
    unknown = sorted(set(results) - set(sites))
    if unknown:
        raise ValueError(f"scope_figures: {holder} {len(unknown)} mutant(s) the reference has no site for, e.g. "
                         f"{unknown[0]}: a state of another version of the reference")
    listed = [dataclasses.replace(r, scope="") if reclassify else r for r in results.values()]
    return listed, {key: SimpleNamespace(site=sites[key], kind="") for key in results}


def summary(path, reclassify: bool = False) -> str:
    """The figures of a ``--state`` file as text: per module and in all, the mutants, killed (by a
    tier), not killed (survived, unproven, not covered), of those outside the spec (its size bounds,
    its extensions, its refusals' wording), the kill rate and the rate over the spec's own mutants. ``path``:
    one state, or a list of states of one plan on different Pythons (merged: ``merged_figures``)."""
    paths = [Path(p) for p in path] if isinstance(path, (list, tuple)) else [Path(path)]
    if len(paths) > 1:
        results, mutants, planned = merged_figures(paths, reclassify)
    else:
        results, mutants, planned = state_figures(paths[0], reclassify)
    rates = report.kill_rates(results, mutants)
    head = (f"{'module':<14}{'mutants':>8}{'killed':>8}{'not killed':>11}{'outside':>8}{'bounds':>7}"
            f"{'extens.':>8}{'wording':>8}{'a tier':>8}{'spec only':>10}")
    name = " + ".join(str(p) for p in paths) + (" (merged)" if len(paths) > 1 else "")
    lines = [f"{name}: {len(results)} of the {planned} mutants of its plan", "", head]
    for key, row in [*sorted(rates["module"].items()), ("all", rates["total"].get("all"))]:
        if row is None:
            continue
        lines.append(f"{key:<14}{row['mutants']:>8}{row['default'] + row['deep']:>8}{row['not killed']:>11}"
                     f"{row['outside']:>8}{row['outside bound']:>7}{row['outside extension']:>8}"
                     f"{row['outside wording']:>8}"
                     f"{report._percent(row['deep_rate']):>8}{report._percent(row['spec_rate']):>10}")
    total = rates["total"].get("all")
    if total is not None:
        lines += ["", report.scope_sentence(total)]
    gaps = [r for r in results if report._bucket(r) in report.NOT_KILLED
            and scope.kind(scope.of(r, mutants[r.id])) in ("spec", None)]
    if gaps:
        lines += ["", f"not killed, of the spec's behaviour ({len(gaps)}): the catalogue's gaps, or code to triage"]
        lines += [f"  {r.id} ({r.outcome.value}) {mutants[r.id].site.file}:{mutants[r.id].site.start[0]}"
                  for r in sorted(gaps, key=lambda r: r.id)]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    arguments = sys.argv[1:]
    again = "--reclassify" in arguments
    files = [a for a in arguments if a != "--reclassify"]
    if not files or any(a.startswith("-") for a in files):
        sys.exit("usage: python -m harness.mutants.scope_figures [--reclassify] STATE.jsonl [STATE.jsonl ...]")
    try:
        print(summary(files, reclassify=again))
    except ValueError as exc:
        sys.exit(f"scope_figures: {exc}")
