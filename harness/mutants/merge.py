"""Runs of one generated-mutant plan on several Pythons, merged into one report.

    constrain-harness mutants --generated --merge py310.jsonl py311.jsonl [--json/--md/--html F]

The reference reads a pattern as the running Python's ``re`` reads it, so some of its code runs
only on 3.10 (or only on 3.12+): on 3.11 no test executes it and its mutants are "not covered".
The generated ids are the same on every Python, so each mutant can be run on a Python that
executes it (``--state`` on each, ``--only`` the ids wanted there) and the runs merged here.

**Which files merge** (``read_runs``; else a ValueError naming the file): each is a
``--state`` file of a generated run (``harness.mutants.state``) recording its Python and its
plan; all have the same options but the mutants each ran (the plan: ``--module``,
``--operators``, ``--sample``, ``--seed``; the timeout, the tiers, the build digest of the harness
and the reference); no two were run on the same Python; every mutant id a file holds is one of
the plan's (``plan_ids``).

**The rule, per mutant id** (``merge_one``; the Pythons whose file holds a result for it):

- **killed** if killed (or timed out: a kill of its tier) on any Python; the result is that
  Python's (its tier and killers), the first by tier (default before deep), then by Python;
- else **not covered** only if no Python's run executes it (every result "not covered");
- else **equivalent** only if it is equivalent with evidence on every Python whose run
  executes it; the evidence shown is the first such Python's;
- otherwise **survived**: the result of a Python on which it survived (or, when its only
  other verdicts are "survived (unproven)", that one; a runner error with no verdict beside
  it stays a runner error, never called equivalent or not covered).

Each merged result names in its ``detail`` the Python(s) its verdict was reached on;
``Merged.pythons`` holds them, and the report (``to_report``: the course pages of
``harness.mutants.course`` and the JSON of ``harness.mutants.report``) says which Pythons ran,
from which file and how many mutants each, and per mutant on which Python its verdict was
reached.

Example::

    >>> runs = read_runs([Path("py310.jsonl"), Path("py311.jsonl")])
    >>> merged = merge(runs)
    >>> merged["parser.RemoveStatement.301"].pythons
    ('3.10',)
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from harness.mutants import state
from harness.mutants.runner import MutantResult, Outcome, result_from_json

KILLS = (Outcome.KILLED, Outcome.TIMEOUT)
TIER_ORDER = {"default": 0, "deep": 1}
"""Which kill a merged result shows when several Pythons killed it: the default tier's first."""


@dataclasses.dataclass(frozen=True)
class Run:
    """One ``--state`` file: its path, the Python it ran on, its options and its results by id."""

    path: Path
    python: str
    options: dict
    results: dict[str, MutantResult]


@dataclasses.dataclass(frozen=True)
class Merged:
    """A mutant's merged verdict: the result shown and the Pythons it was reached on."""

    result: MutantResult
    pythons: tuple[str, ...]


def read_run(path: Path) -> Run:
    """The run in a ``--state`` file; a ValueError naming it when it is not a generated run's
    state recording its Python and its plan."""
    path = Path(path)
    header, records = state.read(path, "--merge")
    options, python = header.get("options"), header.get("python")
    if not isinstance(options, dict) or options.get("mode") != "generated":
        raise ValueError(f"--merge: {path} is not the state of a --generated run")
    if not isinstance(python, str) or not isinstance(options.get("plan"), dict):
        raise ValueError(f"--merge: {path} records no Python or no plan (written before runs could be merged); "
                         f"run it again")
    try:
        results = {key: result_from_json(record) for key, record in records.items()}
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"--merge: {path} holds a record that is not a mutant result ({exc})") from None
    return Run(path, python, {k: v for k, v in options.items() if k != "mutants"}, results)


def read_runs(paths: list[Path], plan_ids=None) -> list[Run]:
    """The runs of ``paths``, checked to merge (module docstring); ``plan_ids``: the plan's ids
    from its options (default ``_plan_ids``), a callable for the tests."""
    if len(paths) < 2:
        raise ValueError(f"--merge: give two or more --state files of one plan run on different Pythons "
                         f"(got {len(paths)})")
    runs = [read_run(path) for path in paths]
    first = runs[0]
    seen: dict[str, Path] = {}
    for run in runs:
        if run.python in seen:
            raise ValueError(f"--merge: {run.path} and {seen[run.python]} were both run on Python {run.python}; "
                             f"merge runs of different Pythons (one run per Python, its --only every id wanted there)")
        seen[run.python] = run.path
        differ = sorted(k for k in set(run.options) | set(first.options)
                        if run.options.get(k) != first.options.get(k))
        if differ:
            raise ValueError(f"--merge: {run.path} is not a run of the same plan as {first.path}: other "
                             f"{', '.join(differ)} (the build is the harness's and the reference's digest)")
    known = set((plan_ids or _plan_ids)(first.options["plan"]))
    for run in runs:
        stray = sorted(set(run.results) - known)
        if stray:
            raise ValueError(f"--merge: {run.path} holds {len(stray)} mutant id(s) the plan does not: "
                             f"{', '.join(stray[:5])}{' ...' if len(stray) > 5 else ''}")
    return runs


def _plan_ids(plan: dict) -> list[str]:
    """The ids of a plan's mutants: every site of its modules and operators, or its sample's."""
    from harness.mutants import generation

    sites = generation.enumerate_sites(modules=plan.get("module") or None, operators=plan.get("operators") or None)
    if plan.get("sample") is None:
        return [site.id for site in sites]
    return [m.id for m in generation.pick(sites, plan["sample"], plan.get("seed", 1), jobs=2)[0]]


def merge(runs: list[Run]) -> dict[str, Merged]:
    """Every mutant id any run holds -> its merged verdict (``merge_one``), in the order the runs
    hold them (the first file's first)."""
    ids = list(dict.fromkeys(key for run in runs for key in run.results))
    return {key: merge_one({run.python: run.results[key] for run in runs if key in run.results}) for key in ids}


def merge_one(by_python: dict[str, MutantResult]) -> Merged:
    """One mutant's verdict from its results on each Python that ran it (the module's rule)."""
    if not by_python:
        raise ValueError("merge_one: no result to merge")
    order = sorted(by_python, key=_version_key)
    killed = [p for p in order if by_python[p].outcome in KILLS]
    if killed:
        best = min(killed, key=lambda p: (by_python[p].outcome is not Outcome.KILLED,
                                          TIER_ORDER.get(by_python[p].tier, 2), _version_key(p)))
        return _named(by_python[best], (best,), "killed")
    executed = [p for p in order if by_python[p].outcome is not Outcome.NOT_COVERED]
    if not executed:
        return _named(by_python[order[0]], tuple(order), "no test executes it")
    if all(by_python[p].outcome is Outcome.EQUIVALENT for p in executed):
        return _named(by_python[executed[0]], tuple(executed), "equivalent with evidence")
    for outcome in (Outcome.SURVIVED, Outcome.UNPROVEN):
        found = tuple(p for p in executed if by_python[p].outcome is outcome)
        if found:
            return _named(by_python[found[0]], found, outcome.value)
    errors = tuple(p for p in executed if by_python[p].outcome is not Outcome.EQUIVALENT)
    return _named(by_python[errors[0]], errors, "no verdict")


def _version_key(python: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in python.split("."))


def _named(result: MutantResult, pythons: tuple[str, ...], what: str) -> Merged:
    where = f"on Python {', '.join(pythons)}: {what}"
    detail = f"{where}; {result.detail}" if result.detail else where
    return Merged(dataclasses.replace(result, detail=detail), pythons)


# --- the report -------------------------------------------------------------------------------

def lookup_for(runs: list[Run], jobs: int = 2) -> dict:
    """id -> ``generation.GeneratedMutant`` for every id the runs hold (built again from the reference)."""
    from harness.mutants import generation

    plan = runs[0].options["plan"]
    ids = list(dict.fromkeys(key for run in runs for key in run.results))
    sites = generation.only(generation.enumerate_sites(modules=plan.get("module") or None,
                                                       operators=plan.get("operators") or None), ids)
    built = {m.id: m for m in generation.pick(sites, None, plan.get("seed", 1), jobs=jobs)[0]}
    for site in sites:
        if site.id not in built:   # dropped as a duplicate of another id here; its run built it
            mutant, _ = generation.build(site)
            if mutant is not None:
                built[site.id] = mutant
    return built


def runs_text(runs: list[Run]) -> str:
    """Which Pythons ran, from which file, and how many mutants each."""
    return "Merged runs: " + "; ".join(f"Python {run.python} ({run.path.name}, {len(run.results)} mutants)"
                                       for run in sorted(runs, key=lambda r: _version_key(r.python))) + "."


def to_report(runs: list[Run], merged: dict[str, Merged], mutants):
    """The merged results as the ``mutants`` verb's report: the course pages (``--md``, ``--html``)
    and the JSON, each saying which Pythons ran and per mutant where its verdict was reached."""
    from harness.mutants import course, report
    from harness.report import escape

    results = [m.result for m in merged.values()]
    base = course.with_course_pages(results, mutants)
    head = runs_text(runs)

    def as_json() -> str:
        doc = report.to_json(results, mutants)
        doc["runs"] = [{"python": run.python, "file": str(run.path), "mutants": len(run.results)} for run in runs]
        for row in doc["mutants"]:
            row["python"] = list(merged[row["id"]].pythons)
        return report.dumps(doc)

    def as_markdown() -> str:
        title, rest = course.to_markdown(results, mutants).split("\n", 1)
        table = ["## Where each verdict was reached", "", "| mutant | verdict | on Python |", "|---|---|---|"]
        table += [f"| {escape.markdown_cell(key)} | {escape.markdown_cell(_verdict(m.result))} | "
                  f"{escape.markdown_cell(', '.join(m.pythons))} |" for key, m in merged.items()]
        return f"{title}\n\n{escape.markdown(head)}\n{rest.rstrip()}\n\n" + "\n".join(table) + "\n"

    def as_html() -> str:
        page = course.to_html(results, mutants)
        rows = "".join(f"<tr><td><code>{escape.html(key)}</code></td><td>{escape.html(_verdict(m.result))}</td>"
                       f"<td>{escape.html(', '.join(m.pythons))}</td></tr>" for key, m in merged.items())
        page = page.replace("</h1>", f"</h1><p>{escape.html(head)}</p>", 1)
        return page.replace("</body>", "<h2>Where each verdict was reached</h2><table><tr><th>mutant</th>"
                                       f"<th>verdict</th><th>on Python</th></tr>{rows}</table></body>", 1)

    native = {**base.native, "json": as_json, "markdown": as_markdown, "html": as_html}
    return dataclasses.replace(base, title=f"{base.title} (merged: {head[len('Merged runs: '):-1]})",
                               terminal=f"{head}\n{base.terminal}", native=native)


def _verdict(result: MutantResult) -> str:
    return result.outcome.value + (f":{result.tier}" if result.tier else "")

