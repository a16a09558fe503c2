"""A horizontal bar chart as SVG, written by hand (no plotting dependency).

``bar_chart_svg(bars, title)`` takes ``(group, label, seconds, ratio)`` tuples in
order and draws one bar per tuple on a log-10 time axis, groups separated by their
name; ours in blue, peers in orange, and a ``ours/peer`` label after a peer's bar
when ``ratio`` is not None (green when ours is faster, red when slower).

Example::

    svg = bar_chart_svg([("compile seed", "ours", 2e-4, None),
                         ("compile seed", "interegular", 3e-3, 0.067)], title="demo")
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

from harness.report.units import format_seconds

ROW_H = 18
GROUP_H = 22
LEFT = 230
BAR_W = 460
RIGHT = 190


def bar_chart_svg(bars, title: str = "") -> str:
    """The SVG text; ValueError when no bar has a positive time."""
    times = [s for _, _, s, _ in bars if s > 0]
    if not times:
        raise ValueError("bar_chart_svg: no bar with a positive time")
    lo = 10 ** math.floor(math.log10(min(times)))
    hi = 10 ** math.ceil(math.log10(max(times)))
    hi = hi * 10 if hi == lo else hi
    body, y, group = [], 40, None
    for name, label, seconds, ratio in bars:
        if name != group:
            group = name
            y += 6
            body.append(_text(8, y + 12, name, weight="bold"))
            y += GROUP_H
        body.append(_bar(y, label, seconds, ratio, lo, hi))
        y += ROW_H
    axis = _axis(lo, hi, y + 8)
    width, height = LEFT + BAR_W + RIGHT, y + 40
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="monospace" font-size="11">')
    return "\n".join([head, f'<rect width="{width}" height="{height}" fill="white"/>',
                      _text(8, 20, title, weight="bold", size=13), *body, *axis, "</svg>"]) + "\n"


def _x(seconds: float, lo: float, hi: float) -> float:
    seconds = max(seconds, lo)
    return LEFT + BAR_W * (math.log10(seconds) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))


def _bar(y: int, label: str, seconds: float, ratio, lo: float, hi: float) -> str:
    ours = label.startswith("ours")
    x1 = _x(seconds, lo, hi)
    colour = "#3b73b9" if ours else "#e08a2c"
    parts = [_text(LEFT - 6, y + 12, label, anchor="end"),
             f'<rect x="{LEFT}" y="{y + 3}" width="{max(1.0, x1 - LEFT):.1f}" height="{ROW_H - 6}" fill="{colour}"/>',
             _text(x1 + 4, y + 12, format_seconds(seconds))]
    if ratio is not None:
        tint = "#2a8a3a" if ratio <= 1 else "#c0392b"
        parts.append(_text(LEFT + BAR_W + RIGHT - 6, y + 12, f"ours/peer {ratio:.3g}", anchor="end", fill=tint))
    return "\n".join(parts)


def _axis(lo: float, hi: float, y: int) -> list[str]:
    out = [f'<line x1="{LEFT}" y1="{y}" x2="{LEFT + BAR_W}" y2="{y}" stroke="#444"/>']
    decade = lo
    while decade <= hi * 1.0001:
        x = _x(decade, lo, hi)
        out.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 4}" stroke="#444"/>')
        out.append(_text(x, y + 16, format_seconds(decade), anchor="middle"))
        decade *= 10
    return out


def _text(x, y, text: str, *, anchor: str = "start", weight: str = "normal", size: int = 11,
          fill: str = "#222") -> str:
    return (f'<text x="{x:.1f}" y="{y}" text-anchor="{anchor}" font-weight="{weight}" '
            f'font-size="{size}" fill="{fill}">{escape(text)}</text>')
