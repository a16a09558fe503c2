"""The sweep's report: the terminal table, and the common ``Report`` every format renders.

Rows: one per size (schemas: per depth), passed when none of its items disagreed, then
one failed row per disagreement, its witness in the message. ``summary`` (the JSON
report's) holds the options, the sums per level, items per second and every
disagreement and peer difference in full.
"""

from __future__ import annotations

from harness.differential.sweep.runner import Level, SweepResult
from harness.exitcodes import ExitCode
from harness.report.model import Report, Row

__all__ = ["to_report", "terminal"]


def _what(result: SweepResult) -> tuple[str, str]:
    return ("depth", "schemas") if result.options.schemas else ("size", "patterns")


def _level_line(result: SweepResult, level: Level) -> str:
    outcomes = ", ".join(f"{n} {k}" for k, n in sorted(level.outcomes.items()))
    line = f"{level.items:>8} {_what(result)[1]}: {outcomes}"
    if level.third_opinion:
        line += "; third opinion " + ", ".join(f"{k} {n}" for k, n in sorted(level.third_opinion.items()))
    if level.timeouts:
        line += f" ({level.timeouts} pattern(s) where regex ran past its backstop: no third opinion)"
    if level.instances:
        line += "; instances " + ", ".join(f"{n} {k}" for k, n in sorted(level.instances.items()))
        line += f"; {level.walks} walks"
    return line + f"; {len(level.disagreements)} disagreement(s), {level.cpu_seconds:.1f} CPU s"


def _show(d: dict) -> str:
    subject = d.get("pattern", d.get("schema"))
    answers = ", ".join(f"{k} {v}" for k, v in d["answers"].items())
    witness = f" on {d['witness']}" if d["witness"] is not None else ""
    detail = f" ({d['detail']})" if d["detail"] else ""
    return f"{d['check']}: {subject!r}{witness}: {answers}{detail}"


def _show_peer(d: dict) -> str:
    judge = "re" if "re" in d else "jsonschema"
    said = f"peer {d['peer_says']}, {judge} {d[judge]}" if "peer_says" in d else d.get("detail", "")
    subject = d.get("pattern", d.get("schema"))
    version = f" {d['version']}" if d.get("version") else ""
    return f"peer {d['peer']}{version} differs (not a failure of ours): {subject!r} on {d['witness']}: {said}"


def peer_finding(d: dict):
    """A listed peer difference as a ``harness.peers.findings.Finding``."""
    import ast

    from harness.peers.base import Source
    from harness.peers.findings import KINDS, WRONG_ANSWER, Finding

    source = Source.regex(d["pattern"]) if "pattern" in d else Source.schema(d["schema"])
    witness = ast.literal_eval(d["witness"]) if d.get("witness") else None
    if "peer_says" in d:
        judge = "re" if "re" in d else "jsonschema"
        return Finding(d["peer"], d.get("version", "?"), WRONG_ANSWER, source, "accepts",
                       "accepts" if d["peer_says"] else "rejects", witness, {judge: d[judge]})
    kind = next((k for k in KINDS if d.get("detail", "").startswith(k)), "raised")
    op = "compile" if witness is None else "accepts"
    return Finding(d["peer"], d.get("version", "?"), kind, source, op, d.get("detail", ""), witness)


def peer_reproducer(d: dict) -> str:
    from harness.peers.reproduce import reproducer
    return reproducer(peer_finding(d))


def headline(result: SweepResult) -> str:
    unit, items = _what(result)
    top = max(result.levels, default=0)
    options = result.options
    over = (f"over {{{','.join(chr(b) for b in options.grammar.alphabet)}}}, strings up to {options.max_len}"
            if not options.schemas else "of the schema grammar")
    verdict = "agree" if result.ok else f"{len(result.disagreements)} disagreement(s)"
    rate = result.items / result.seconds if result.seconds > 0 else 0.0
    return (f"all {result.items} {items} of {unit} <= {top} {over}: {verdict}, in {result.seconds:.1f} s "
            f"({rate:.0f} {items}/s)")


def terminal(result: SweepResult) -> str:
    unit, _ = _what(result)
    lines = [f"{unit} {level.level:>2}: {_level_line(result, level)}" for level in result.levels.values()]
    if result.resumed:
        lines.append(f"({result.resumed} chunk(s) taken from the results file)")
    lines += [f"DISAGREE {_show(d)}" for d in result.disagreements]
    for level in result.levels.values():
        for d in level.peer_differences:
            lines.append(_show_peer(d))
            lines += ["  " + line for line in peer_reproducer(d).splitlines()]
    lines.append(headline(result))
    return "\n".join(lines)


def to_report(result: SweepResult) -> Report:
    unit, items = _what(result)
    rows = [Row(f"{unit} {level.level}", "failed" if level.disagreements else "passed",
                message=_level_line(result, level).strip(), seconds=level.cpu_seconds, group="sweep")
            for level in result.levels.values()]
    rows += [Row(f"disagreement {i}", "failed", outcome=d["check"], message=_show(d), group="sweep")
             for i, d in enumerate(result.disagreements, 1)]
    code = ExitCode.OK if result.ok else ExitCode.FAILED
    summary = {"options": result.options.as_dict(), "items": result.items,
               "items_per_second": round(result.items / result.seconds, 2) if result.seconds > 0 else None,
               "levels": {str(k): {"items": v.items, "outcomes": v.outcomes, "third_opinion": v.third_opinion,
                                   "instances": v.instances, "walks": v.walks, "regex_timeouts": v.timeouts,
                                   "cpu_seconds": round(v.cpu_seconds, 3), "disagreements": len(v.disagreements)}
                          for k, v in result.levels.items()},
               "disagreements": result.disagreements,
               "peer_differences": [d for v in result.levels.values() for d in v.peer_differences],
               "headline": headline(result)}
    return Report("sweep", f"sweep: {headline(result)}", frozenset({"tests"}), tuple(rows),
                  code.verdict, int(code), result.seconds, terminal=terminal(result), summary=summary)
