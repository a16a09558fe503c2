"""A generated run's ``--state`` file read for what the spec leaves open (issue 52 items 3 and 5).

    python -m harness.mutants.scope_figures STATE.jsonl

Input: the state of a generated run (``harness.mutants.state``), whole or still growing, and of a run
made before scopes were recorded too (its records have no ``scope``: each mutant is classified here,
``scope.of``, from its site in today's reference; a state naming a mutant the reference has no site
for is refused). Output (``summary``): per module and in all, the mutants, killed by a tier, not
killed (survived, unproven, not covered), of those the ones outside the spec (its own size bounds, its
own extensions), the kill rate as the report states it, and the rate over the spec's own mutants
(``report.kill_rates``), then ``report.scope_sentence``, then the mutants not killed of the spec's
behaviour, by id with their line: the catalogue's gaps, or code for a reviewer to triage.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from harness.mutants import generation, report, scope, state
from harness.mutants.runner import result_from_json


def state_figures(path: Path) -> tuple[list, dict, int]:
    """(the results a ``--state`` file holds, id -> a stand-in mutant with its ``site``, the number of
    mutants its plan names). ValueError naming the file when it is no generated run's state, or names
    a mutant the reference has no site for (a state of another reference version)."""
    path = Path(path)
    header, records = state.read(path, "scope_figures")
    options = header.get("options", {})
    if options.get("mode") != "generated":
        raise ValueError(f"scope_figures: {path} is not the state of a generated run (mode {options.get('mode')!r})")
    planned = options.get("mutants") or list(records)
    sites = {site.id: site for site in generation.enumerate_sites()}
    unknown = sorted(set(records) - set(sites))
    if unknown:
        raise ValueError(f"scope_figures: {path} holds {len(unknown)} mutant(s) the reference has no site for, e.g. "
                         f"{unknown[0]}: a state of another version of the reference")
    results = [result_from_json(record) for record in records.values()]
    return results, {key: SimpleNamespace(site=sites[key], kind="") for key in records}, len(planned)


def summary(path: Path) -> str:
    """The figures of a ``--state`` file as text: per module and in all, the mutants, killed (by a
    tier), not killed (survived, unproven, not covered), of those outside the spec (its size bounds,
    its extensions), the kill rate and the rate over the spec's own mutants."""
    results, mutants, planned = state_figures(path)
    rates = report.kill_rates(results, mutants)
    head = (f"{'module':<14}{'mutants':>8}{'killed':>8}{'not killed':>11}{'outside':>8}{'bounds':>7}"
            f"{'extens.':>8}{'a tier':>8}{'spec only':>10}")
    lines = [f"{path}: {len(results)} of the {planned} mutants of its plan", "", head]
    for key, row in [*sorted(rates["module"].items()), ("all", rates["total"].get("all"))]:
        if row is None:
            continue
        lines.append(f"{key:<14}{row['mutants']:>8}{row['default'] + row['deep']:>8}{row['not killed']:>11}"
                     f"{row['outside']:>8}{row['outside bound']:>7}{row['outside extension']:>8}"
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

    if len(sys.argv) != 2:
        sys.exit("usage: python -m harness.mutants.scope_figures STATE.jsonl")
    print(summary(Path(sys.argv[1])))
