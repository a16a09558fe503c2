"""Bar charts as inline SVG for the batch's HTML page: no dependency, no script, no network.

Two shapes, both pure functions returning one ``<svg>`` element as text:

- ``horizontal_bars(items, label)``: one bar per item, in the given order, a label on the
  left, the value at the bar's end (the failed tests, the pitfalls of a class);
- ``columns(items, label)``: one column per item, left to right (a score distribution).

``items`` are ``Bar(label, value, title)``: ``title`` becomes the bar's tooltip
(``<title>``); every text is escaped, so a student's name or a pitfall's words never
become markup. Values are non-negative ints; the longest bar is the largest value (all
zero: empty bars). Two charts do not need a plotting library: this is ~60 lines, and the
page stays one offline file.

Example::

    >>> svg = columns([Bar("0", 2), Bar("16", 5)], "students per score")
    >>> svg.startswith("<svg") and "aria-label" in svg
    True
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.report import escape

__all__ = ["Bar", "horizontal_bars", "columns"]

_FONT = 'font-family="sans-serif" font-size="12"'


@dataclass(frozen=True)
class Bar:
    label: str
    value: int
    title: str = ""
    color: str = "#c0392b"
    note: str = ""       # drawn after the value, in grey (horizontal bars: e.g. the pitfall a test catches)


def horizontal_bars(items: list[Bar], label: str, *, label_width: int = 380, bar_width: int = 360,
                    row_height: int = 22, note_width: int = 0) -> str:
    top = max([b.value for b in items] + [1])
    height = row_height * len(items) + 10
    parts = [_open(label_width + bar_width + 60 + note_width, height, label)]
    for i, bar in enumerate(items):
        y, width = 5 + i * row_height, round(bar_width * bar.value / top)
        parts.append(f'<g><title>{_e(bar.title or f"{bar.label}: {bar.value}")}</title>'
                     f'<text x="{label_width - 6}" y="{y + 15}" text-anchor="end" {_FONT}>{_e(bar.label)}</text>'
                     f'<rect x="{label_width}" y="{y + 3}" width="{width}" height="{row_height - 6}" '
                     f'fill="{_e(bar.color)}"/>'
                     f'<text x="{label_width + width + 4}" y="{y + 15}" {_FONT}>{bar.value}</text>'
                     + _note(label_width + bar_width + 40, y + 15, bar.note) + "</g>")
    return "\n".join(parts + ["</svg>"])


def columns(items: list[Bar], label: str, *, column_width: int = 28, plot_height: int = 160) -> str:
    top = max([b.value for b in items] + [1])
    width, height = column_width * len(items) + 20, plot_height + 44
    parts = [_open(width, height, label),
             f'<line x1="10" y1="{plot_height + 20}" x2="{width - 10}" y2="{plot_height + 20}" stroke="#888"/>']
    for i, bar in enumerate(items):
        x, tall = 10 + i * column_width, round(plot_height * bar.value / top)
        y = plot_height + 20 - tall
        parts.append(f'<g><title>{_e(bar.title or f"{bar.label}: {bar.value}")}</title>'
                     f'<rect x="{x + 3}" y="{y}" width="{column_width - 6}" height="{tall}" fill="{_e(bar.color)}"/>'
                     + (f'<text x="{x + column_width / 2}" y="{y - 4}" text-anchor="middle" {_FONT}>{bar.value}</text>'
                        if bar.value else "")
                     + f'<text x="{x + column_width / 2}" y="{plot_height + 36}" text-anchor="middle" {_FONT}>'
                       f'{_e(bar.label)}</text></g>')
    return "\n".join(parts + ["</svg>"])


def _note(x: int, y: int, note: str) -> str:
    return f'<text x="{x}" y="{y}" fill="#666" {_FONT}>{_e(note)}</text>' if note else ""


def _open(width: int, height: int, label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="{_e(label)}">')


def _e(text: object) -> str:
    return escape.html(text)
