"""The report a course reads: a generated-mutant run as Markdown and as an offline HTML page.

Input: the results of ``run_all`` and the mutants by id (``generation.GeneratedMutant``).
Output (``to_markdown``, ``to_html``), in this order:

- the totals and the two kill rates, over the valid mutants not proven equivalent: a mutant
  no test executes ("not covered") and a survivor equal on the corpus without evidence
  ("unproven") count as **not killed**; an equivalent counts only with its evidence;
- beside them (``report.scope_sentence``), how many of the mutants not killed change only what
  the spec leaves open (``harness.mutants.scope``: its own size bounds, its own extensions, the
  wording of its refusals) and the rate over the spec's own mutants; the rates above are unchanged by it;
- the evidence domains (``harness.mutants.evidence.domain``), each stated once;
- the kill rates per reference module and per operator family (``report.kill_rates``);
- per module: (HTML) a chart, one inline-SVG stacked bar per operator family, no script and
  nothing fetched; its survivors and unproven survivors, each with its id, operator, source
  line and diff (``- before`` / ``+ after``), why it was not killed and, for a mutant outside the
  spec, that mark and its reason; its equivalents with their evidence (kind and size, or the
  reviewer's reason); its mutants not covered, those outside the spec apart.

Every string is escaped for its format (``harness.report.escape``): Markdown text and cells
with ``markdown``, code with ``markdown_block``, HTML text and attributes with ``html``.

Example::

    >>> to_markdown([], {}).splitlines()[0]
    '# Mutation report: constrain-harness'
"""

from __future__ import annotations

import dataclasses

from harness.mutants import report, scope
from harness.mutants.runner import MutantResult, Outcome
from harness.report import escape

TITLE = "Mutation report: constrain-harness"
RATE_NOTE = ("Rates are over the valid mutants not proven equivalent; a mutant no test executes (not covered) "
             "and a survivor equal on the corpus without evidence (unproven) count as not killed.")
SCOPE_NOTE = ("Outside the spec: not killed, and changing only what the spec leaves open (a size bound it does not "
              "set, or the reference's own extension: harness.mutants.scope); spec only: a tier's rate over the "
              "other mutants. Neither changes a verdict or the rates before them.")
SEGMENTS = (("default", "killed by the default tier", "#2e7d32"), ("deep", "killed by the deep pass", "#81c784"),
            ("survived", "survived", "#c62828"), ("unproven", "survived (unproven)", "#ef6c00"),
            ("not covered", "not covered", "#9e9e9e"), ("equivalent", "equivalent (with evidence)", "#1565c0"),
            ("invalid", "runner error", "#6a1b9a"))
"""The chart's segments: a ``report.RATE_COLUMNS`` bucket, its legend, its colour."""
NOT_KILLED = (Outcome.SURVIVED, Outcome.UNPROVEN)
COLUMNS = ("mutants", "equivalent", "default", "deep", "survived", "unproven", "not covered", "invalid")


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def _by_module(results: list[MutantResult], mutants) -> dict[str, list[MutantResult]]:
    grouped: dict[str, list[MutantResult]] = {}
    for r in results:
        grouped.setdefault(mutants[r.id].site.module, []).append(r)
    return dict(sorted(grouped.items()))


def _evidence_text(r: MutantResult) -> tuple[str, str]:
    """(kind, size or reason) of an equivalent's evidence."""
    found = r.evidence or {}
    if found.get("kind") in ("hand review", "no infection"):   # the reason, or the tests, keys and items it counts
        return found["kind"], found.get("domain", "")
    if found.get("size") is None and found:   # identical bytecode: no domain, the compiled module itself
        return found.get("kind", "none recorded"), "the compiled module"
    return found.get("kind", "none recorded"), f"{found.get('size', 0):,} items" if found else r.detail


def _kinds(results: list[MutantResult]) -> list[str]:
    return sorted({r.evidence["kind"] for r in results if r.evidence and r.evidence.get("kind") != "hand review"})


def _headline(rates: dict) -> str:
    total = rates["total"].get("all", dict.fromkeys(COLUMNS, 0) | {"default_rate": None, "deep_rate": None})
    line = (f"{total['mutants']} mutants: {total['default']} killed by the default tier, {total['deep']} by the deep "
            f"pass, {total['survived']} survived, {total['unproven']} unproven, {total['not covered']} not covered, "
            f"{total['equivalent']} equivalent with evidence, {total['invalid']} runner errors. Killed by a tier: "
            f"{_percent(total['deep_rate'])}; by the default tier: {_percent(total['default_rate'])}.")
    beside = report.scope_sentence(total)
    return f"{line} {beside}" if beside else line


def _outside(r: MutantResult, mutants) -> str:
    """The mark of a mutant outside the spec (``scope``): its reason, or "" for one of the spec."""
    where = scope.of(r, mutants[r.id])
    return where if scope.kind(where) in scope.OUTSIDE_KINDS else ""


def _uncovered(rows: list[MutantResult], mutants) -> list[str]:
    """The module's "not covered" line(s): the spec's, then those outside it."""
    uncovered = [r for r in rows if r.outcome is Outcome.NOT_COVERED]
    inside = [r.id for r in uncovered if not _outside(r, mutants)]
    outside = [r.id for r in uncovered if _outside(r, mutants)]
    return ([f"Not covered ({len(inside)}): {', '.join(inside)}"] if inside else []) + \
        ([f"Not covered, outside the spec ({len(outside)}): {', '.join(outside)}"] if outside else [])


# --- Markdown -------------------------------------------------------------------------------

def to_markdown(results: list[MutantResult], mutants) -> str:
    """The whole report as Markdown (module docstring)."""
    rates = report.kill_rates(results, mutants) if results else {"total": {}, "module": {}, "operator": {}}
    lines = [f"# {TITLE}", "", escape.markdown(_headline(rates)), "", escape.markdown(_note(rates)), ""]
    kinds = _kinds(results)
    if kinds:
        lines += ["## Evidence domains", ""]
        lines += [f"- **{escape.markdown(k)}**: {escape.markdown(_domain(k), line_start=False)}" for k in kinds]
        lines.append("")
    for axis, title in (("module", "Per reference module"), ("operator", "Per operator family")):
        lines += [f"## {title}", "", *_markdown_rates(rates[axis], _scoped(rates)), ""]
    for module, rows in _by_module(results, mutants).items():
        lines += [f"## Module `{module}`", "", *_markdown_module(rows, mutants)]
    return "\n".join(lines).rstrip() + "\n"


def with_course_pages(results: list[MutantResult], mutants):
    """``report.to_report``'s report of generated mutants, with ``--md`` and ``--html`` writing this
    module's pages, the report a course reads (the ``mutants`` verb's ``--generated`` and ``--tools``)."""
    killed = report.to_report(results, mutants)
    return dataclasses.replace(killed, native={**killed.native,
                                               "markdown": lambda: to_markdown(results, mutants),
                                               "html": lambda: to_html(results, mutants)})


NO_INFECTION_DOMAIN = ("the mutated expression's value equals the reference's at every evaluation, in every "
                       "catalogue test, corpus key and evidence item that evaluates it (harness.mutants.infection; "
                       "each equivalent's counts in its row)")
"""The "no infection" evidence (``runner.infected_plan``), stated once like a domain."""


def _domain(kind: str) -> str:
    from harness.mutants import evidence, identical_bytecode
    from harness.mutants.runner import NO_INFECTION

    if kind == NO_INFECTION:
        return NO_INFECTION_DOMAIN
    return identical_bytecode.DOMAIN if kind == identical_bytecode.KIND else evidence.domain(kind)


def _markdown_rates(axis: dict, scoped: bool) -> list[str]:
    head = "| | " + " | ".join((*COLUMNS, *_rate_heads(scoped))) + " |"
    out = [head, "|" + "---|" * (len(COLUMNS) + 1 + len(_rate_heads(scoped)))]
    for key, row in sorted(axis.items()):
        cells = [escape.markdown_cell(key)] + [str(row[c]) for c in COLUMNS]
        out.append("| " + " | ".join(cells + _rate_cells(row, scoped)) + " |")
    return out


def _scoped(rates: dict) -> bool:
    return bool(rates["total"].get("all", {}).get("scoped"))


def _note(rates: dict) -> str:
    return f"{RATE_NOTE} {SCOPE_NOTE}" if _scoped(rates) else RATE_NOTE


def _rate_heads(scoped: bool) -> tuple[str, ...]:
    return ("default tier", "a tier", "outside the spec", "a tier, spec only") if scoped else ("default tier", "a tier")


def _rate_cells(row: dict, scoped: bool) -> list[str]:
    cells = [_percent(row["default_rate"]), _percent(row["deep_rate"])]
    return cells + [str(row["outside"]), _percent(row["spec_rate"])] if scoped else cells


def _markdown_module(rows: list[MutantResult], mutants) -> list[str]:
    out = []
    survivors = [r for r in rows if r.outcome in NOT_KILLED]
    if survivors:
        out += ["### Survivors", ""]
        for r in survivors:
            m = mutants[r.id]
            diff = "\n".join(escape.markdown_block(f"- {m.before}\n+ {m.after}")).splitlines()
            outside = _outside(r, mutants)
            mark = f" **{escape.markdown(outside, line_start=False)}**." if outside else ""
            out += [f"- `{r.id}` ({escape.markdown(r.outcome.value, line_start=False)}), "
                    f"{escape.markdown(m.file, line_start=False)} line {m.site.start[0]}: "
                    f"{escape.markdown(r.detail or 'every test it ran passed', line_start=False)}{mark}", "",
                    *["  " + line for line in diff], ""]
    equivalents = [r for r in rows if r.outcome is Outcome.EQUIVALENT]
    if equivalents:
        out += ["### Equivalents", "", "| mutant | line | evidence | size or reason |", "|---|---|---|---|"]
        for r in equivalents:
            kind, size = _evidence_text(r)
            out.append(f"| {escape.markdown_cell(r.id)} | {mutants[r.id].site.start[0]} | {escape.markdown_cell(kind)}"
                       f" | {escape.markdown_cell(size)} |")
        out.append("")
    for line in _uncovered(rows, mutants):
        out += [escape.markdown(line), ""]
    return out


# --- HTML -----------------------------------------------------------------------------------

CSS = """body{font:14px system-ui,sans-serif;margin:2em;color:#222;max-width:70em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:3px 6px}td.n{text-align:right}pre{background:#f5f5f5;padding:4px}
.legend span{display:inline-block;width:1em;height:1em;margin:0 .3em 0 1em;vertical-align:middle}"""
BAR_WIDTH = 400
ROW_HEIGHT = 18
LABEL_WIDTH = 190


def to_html(results: list[MutantResult], mutants) -> str:
    """The whole report as one self-contained page: inline CSS and SVG, no script, no link out."""
    rates = report.kill_rates(results, mutants) if results else {"total": {}, "module": {}, "operator": {}}
    parts = [f"<h1>{escape.html(TITLE)}</h1><p>{escape.html(_headline(rates))}</p><p>{escape.html(_note(rates))}</p>"]
    kinds = _kinds(results)
    if kinds:
        parts.append("<h2>Evidence domains</h2><ul>" + "".join(
            f"<li><b>{escape.html(k)}</b>: {escape.html(_domain(k))}</li>" for k in kinds) + "</ul>")
    for axis, title in (("module", "Per reference module"), ("operator", "Per operator family")):
        parts.append(f"<h2>{escape.html(title)}</h2>{_html_rates(rates[axis], _scoped(rates))}")
    parts.append("<p class=\"legend\">" + "".join(f"<span style=\"background:{colour}\"></span>{escape.html(label)}"
                                                  for _, label, colour in SEGMENTS) + "</p>")
    for module, rows in _by_module(results, mutants).items():
        parts.append(f"<h2>Module <code>{escape.html(module)}</code></h2>{chart(rows, mutants)}"
                     f"{_html_module(rows, mutants)}")
    return (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>{escape.html(TITLE)}</title>"
            f"<style>{CSS}</style></head><body>{''.join(parts)}</body></html>\n")


def _html_rates(axis: dict, scoped: bool) -> str:
    head = "".join(f"<th>{escape.html(c)}</th>" for c in (*COLUMNS, *_rate_heads(scoped)))
    body = []
    for key, row in sorted(axis.items()):
        cells = [str(row[c]) for c in COLUMNS] + _rate_cells(row, scoped)
        body.append(f"<tr><td>{escape.html(key)}</td>" + "".join(f"<td class=\"n\">{escape.html(c)}</td>"
                                                                  for c in cells) + "</tr>")
    return f"<table><tr><th></th>{head}</tr>{''.join(body)}</table>"


def chart(rows: list[MutantResult], mutants) -> str:
    """One module's chart: an inline SVG, a stacked bar per operator family (its mutants by
    bucket, scaled to the family with the most mutants), each segment titled with its count."""
    families: dict[str, dict[str, int]] = {}
    for r in rows:
        counts = families.setdefault(mutants[r.id].site.family, {})
        bucket = report._bucket(r)
        counts[bucket] = counts.get(bucket, 0) + 1
    widest = max((sum(c.values()) for c in families.values()), default=1)
    height = ROW_HEIGHT * len(families) + 4
    bars = []
    for i, (family, counts) in enumerate(sorted(families.items())):
        y, x = i * ROW_HEIGHT + 2, LABEL_WIDTH
        bars.append(f"<text x=\"{LABEL_WIDTH - 6}\" y=\"{y + 12}\" text-anchor=\"end\">{escape.html(family)}</text>")
        for bucket, label, colour in SEGMENTS:
            n = counts.get(bucket, 0)
            if n:
                width = BAR_WIDTH * n / widest
                bars.append(f"<rect x=\"{x:.1f}\" y=\"{y}\" width=\"{width:.1f}\" height=\"{ROW_HEIGHT - 4}\" "
                            f"fill=\"{colour}\"><title>{escape.html(f'{family}: {n} {label}')}</title></rect>")
                x += width
        bars.append(f"<text x=\"{x + 4:.1f}\" y=\"{y + 12}\">{sum(counts.values())}</text>")
    return (f"<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"{LABEL_WIDTH + BAR_WIDTH + 50}\" "
            f"height=\"{height}\" font-size=\"12\">{''.join(bars)}</svg>")


def _html_module(rows: list[MutantResult], mutants) -> str:
    out = []
    survivors = [r for r in rows if r.outcome in NOT_KILLED]
    if survivors:
        out.append("<h3>Survivors</h3>")
        for r in survivors:
            m = mutants[r.id]
            outside = _outside(r, mutants)
            mark = f" <b>{escape.html(outside)}</b>." if outside else ""
            out.append(f"<p><code>{escape.html(r.id)}</code> ({escape.html(r.outcome.value)}), "
                       f"{escape.html(m.file)} line {m.site.start[0]}: "
                       f"{escape.html(r.detail or 'every test it ran passed')}{mark}</p>"
                       f"<pre>{escape.html(f'- {m.before}')}\n{escape.html(f'+ {m.after}')}</pre>")
    equivalents = [r for r in rows if r.outcome is Outcome.EQUIVALENT]
    if equivalents:
        body = "".join(f"<tr><td><code>{escape.html(r.id)}</code></td><td class=\"n\">{mutants[r.id].site.start[0]}"
                       f"</td><td>{escape.html(_evidence_text(r)[0])}</td><td>{escape.html(_evidence_text(r)[1])}</td>"
                       f"</tr>" for r in equivalents)
        out.append(f"<h3>Equivalents</h3><table><tr><th>mutant</th><th>line</th><th>evidence</th>"
                   f"<th>size or reason</th></tr>{body}</table>")
    out += [f"<p>{escape.html(line)}</p>" for line in _uncovered(rows, mutants)]
    return "".join(out)
