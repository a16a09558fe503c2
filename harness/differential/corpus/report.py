"""The corpus report: terminal text, and JSON / Markdown / HTML through the report layer.

Rows (the generic formats): one per schema, ``passed`` (compiled, nothing found),
``skipped`` (refused by name, or an unreadable entry: the reason in the message),
``failed`` (a crash, an unsound walk, a valid instance rejected or an invalid one
accepted). The Markdown and HTML pages are the verb's own (``Report.native``): coverage by
source, refusal reasons ranked, soundness, completeness, compile times, the peers side by
side, the slowest schemas, the findings; the HTML page draws coverage by source as an
inline SVG bar chart (no script, every text escaped). ``summary`` (the JSON report's)
holds the same tables as data.
"""

from __future__ import annotations

import html
import re

from harness.differential.corpus.runner import CorpusResult
from harness.exitcodes import ExitCode
from harness.report.model import Report, Row

__all__ = ["to_report", "terminal", "markdown", "html_page", "svg_coverage"]

_MS = 1000.0


def _ms(seconds) -> str:
    return "-" if seconds is None else f"{seconds * _MS:.2f} ms"


def _summary(result: CorpusResult) -> dict:
    outcomes = result.outcomes()
    return {"path": result.path, "options": result.options, "problems": result.problems(),
            "unreadable": [{"id": i, "reason": why} for i, why in result.unreadable()],
            "peer_findings": [{"id": i, "finding": f} for i, f in result.peer_findings()],
            "peer_reproducers": [{"id": i, "peer": name, "reproducer": text}
                                 for i, name, text in result.peer_reproducers()],
            "schemas": len(result.records),
            "outcomes": dict(outcomes), "coverage": {s: dict(c) for s, c in result.coverage().items()},
            "refusal_reasons": result.reasons(), "keywords_outside": result.keywords_outside(),
            "soundness": result.soundness(),
            "completeness": dict(result.instances()), "compile_seconds": result.compile_times(),
            "peers": result.peers(),
            "slowest": [{"id": r["id"], "outcome": r["outcome"], "seconds": r["compile_seconds"], "states": r["states"]}
                        for r in result.slowest()],
            "findings": [{"id": i, "finding": f} for i, f in result.findings()]}


def headline(result: CorpusResult) -> str:
    o = result.outcomes()
    n = len(result.records)
    s = result.soundness()
    inst = result.instances()
    valid_in = inst["accepted"] + inst["rejected"]
    return (f"{n} schemas: {o['compiled']} compiled ({100 * o['compiled'] / max(n, 1):.1f}%), "
            f"{o['refused']} refused by name, {o['crash']} crashed, {o['unreadable']} unreadable; "
            f"soundness {s['walks'] - s['unsound walks']}/{s['walks']} walks valid; "
            f"completeness {inst['accepted']}/{valid_in} valid instances accepted "
            f"({inst['outside reading']} outside the reading, "
            f"{inst['integral float'] + inst['raw DEL'] + inst['enum spelling']} documented narrowings); "
            f"invalid instances {inst['invalid rejected']}/{inst['invalid rejected'] + inst['invalid accepted']} "
            f"rejected; {result.seconds:.1f} s")


def _tables(result: CorpusResult) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of every table the report shows."""
    coverage = [[src, str(sum(c.values())), str(c["compiled"]), str(c["refused"]), str(c["crash"]),
                 str(c["unreadable"]), f"{100 * c['compiled'] / max(sum(c.values()), 1):.1f}%"]
                for src, c in result.coverage().items()]
    reasons = [[str(i), reason, str(n)] for i, (reason, n) in enumerate(result.reasons()[:30], 1)]
    outside = [[str(i), k, str(n), str(alone)] for i, (k, n, alone) in enumerate(result.keywords_outside()[:30], 1)]
    sound = [[k, str(v)] for k, v in result.soundness().items()]
    complete = [[k, str(v)] for k, v in sorted(result.instances().items())]
    times = [[k, str(v) if k == "n" else _ms(v)] for k, v in result.compile_times().items()]
    peers = []
    for name, p in sorted(result.peers().items()):
        peers.append([name, str(p["compiled"]), str(p["refused"]), str(p["unavailable"]),
                      _ms(p["first_mask"]["p50"]), _ms(p["masks"]["p50"]), _ms(p["masks"]["p75"]),
                      f"{p['differences']} ({p['schemas_differing']} schemas)",
                      ", ".join(f"{k} {n}" for k, n in p["failures"].items()) or "-"])
    slowest = [[r["id"], r["outcome"], f"{r['compile_seconds']:.3f}", str(r["states"])] for r in result.slowest()]
    findings = [[i, f] for i, f in result.findings()[:200]]
    return [("Coverage by source", ["source", "schemas", "compiled", "refused", "crash", "unreadable", "compiled %"],
             coverage),
            ("Refusal reasons (ranked)", ["#", "reason", "schemas"], reasons),
            ("Keywords outside the subset (ranked: what the subset would have to grow to cover)",
             ["#", "keyword", "schemas holding it", "refused, the only keyword outside"], outside),
            ("Soundness (random walks of the DFA, validated by jsonschema)", ["", "count"], sound),
            ("Completeness (the records' instances, in the spec's reading)", ["verdict", "instances"], complete),
            ("Compile time (CPU s, compiled schemas)", ["", "value"], times),
            ("Peers (same schemas, same instances)", ["peer", "compiled", "refused", "absent", "first mask p50",
                                                      "mask p50", "mask p75", "differences from ours",
                                                      "failures (crash, hang, limit, failed on valid, unsupported)"],
             peers),
            ("Slowest schemas", ["schema", "outcome", "CPU s", "states"], slowest),
            ("Findings", ["schema", "finding"], findings)]


def terminal(result: CorpusResult) -> str:
    lines = [f"corpus: FAILED: {problem}" for problem in result.problems()]
    for title, header, rows in _tables(result):
        if not rows:
            continue
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
        lines += ["", title]
        lines += ["  " + "  ".join(str(x).ljust(w) for x, w in zip(row, widths)) for row in [header, *rows]]
    if result.resumed:
        lines.append(f"({result.resumed} schema(s) taken from the results file)")
    lines += [f"peer finding: {i}: {f}" for i, f in result.peer_findings()[:50]]
    for i, _name, text in result.peer_reproducers()[:50]:
        lines += [f"reproducer ({i}):"] + [f"  {line}" for line in text.splitlines()]
    lines.append(headline(result))
    return "\n".join(lines)


def _md_cell(text) -> str:
    return " ".join(str(text).split()).replace("\\", "\\\\").replace("|", "\\|")


def markdown(result: CorpusResult) -> str:
    lines = [f"## corpus: {_md_cell(result.path)}", ""] + [f"**FAILED: {_md_cell(p)}**" for p in result.problems()]
    lines += ["", headline(result), ""]
    for title, header, rows in _tables(result):
        lines += [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(_md_cell(x) for x in row) + " |" for row in rows] or ["| (none) |"]
        lines.append("")
    reproducers = result.peer_reproducers()
    if reproducers:
        lines += [f"### Peer findings, each with its reproducer: {len(reproducers)}", ""]
        for i, _name, text in reproducers[:200]:
            fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", text)), default=0))
            lines += [f"- {_md_cell(i)}", "", fence + "text", text, fence, ""]
    return "\n".join(lines)


def svg_coverage(result: CorpusResult, width: int = 640) -> str:
    """A horizontal stacked bar per source: compiled (green), refused (grey), crash (red)."""
    coverage = result.coverage()
    bar_h, label_w, gap = 16, 170, 4
    height = (bar_h + gap) * len(coverage) + 30
    most = max((sum(c.values()) for c in coverage.values()), default=1)
    scale = (width - label_w - 60) / max(most, 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="coverage by source">']
    y = 0
    for source, c in coverage.items():
        x = label_w
        parts.append(f'<text x="0" y="{y + 12}" font-size="11">{html.escape(source[:28])}</text>')
        for outcome, colour in (("compiled", "#4caf50"), ("refused", "#bdbdbd"), ("crash", "#e53935"),
                                ("unreadable", "#ffb300")):
            w = c[outcome] * scale
            if w > 0:
                parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{colour}">'
                             f"<title>{html.escape(source)}: {c[outcome]} {outcome}</title></rect>")
                x += w
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 12}" font-size="11">{c["compiled"]}/{sum(c.values())}</text>')
        y += bar_h + gap
    parts.append(f'<text x="0" y="{y + 16}" font-size="11">green compiled, grey refused by name, red crash, '
                 f"amber unreadable</text></svg>")
    return "".join(parts)


def html_page(result: CorpusResult) -> str:
    e = html.escape
    body = [f"<h1>corpus: {e(result.path)}</h1>", f"<p>{e(headline(result))}</p>", "<h2>Coverage by source</h2>",
            svg_coverage(result)]
    for title, header, rows in _tables(result):
        body.append(f"<h2>{e(title)}</h2><table><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>")
        body += ["<tr>" + "".join(f"<td>{e(str(x))}</td>" for x in row) + "</tr>" for row in rows]
        body.append("</table>")
    css = ("body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}")
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>corpus: {e(result.path)}</title>'
            f"<style>{css}</style></head><body>{''.join(body)}</body></html>\n")


def _row(record: dict) -> Row:
    if record["findings"]:
        return Row(record["id"], "failed", outcome=record["outcome"], message="; ".join(record["findings"])[:400],
                   seconds=record["compile_seconds"], group=record["source"])
    if record["outcome"] == "compiled":
        return Row(record["id"], "passed", outcome="compiled", seconds=record["compile_seconds"],
                   group=record["source"])
    return Row(record["id"], "skipped", outcome=record["outcome"], message=record["reason"],
               seconds=record["compile_seconds"], group=record["source"])


def to_report(result: CorpusResult) -> Report:
    code = ExitCode.OK if result.ok else ExitCode.FAILED
    title = "; ".join(["FAILED: " + p for p in result.problems()] + [headline(result)])
    return Report("corpus", f"corpus: {title}", frozenset({"tests"}),
                  tuple(_row(r) for r in result.records), code.verdict, int(code), result.seconds,
                  terminal=terminal(result), summary=_summary(result),
                  native={"markdown": lambda: markdown(result), "html": lambda: html_page(result)})
