"""The innermost statement holding a line of a reference module (``statement_lines``): the unit a
mutant's coverage, evidence pick and size-bound check read. A leaf (the AST only), so that both
``coverage`` and ``bounds`` can use it without a circle through ``runner``."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

from harness.mutants.apply import REFERENCE_DIR


def statement_lines(file: str, line: int, reference: Path = REFERENCE_DIR) -> frozenset[int] | None:
    """The lines of the innermost statement holding ``line`` (a compound statement: its header only)."""
    best = None
    for start, end in _statement_spans(file, Path(reference)):
        if start <= line <= end and (best is None or end - start < best[1] - best[0]):
            best = (start, end)
    return None if best is None else frozenset(range(best[0], best[1] + 1))


@lru_cache(maxsize=64)
def _statement_spans(file: str, reference: Path) -> tuple[tuple[int, int], ...]:
    tree = ast.parse((reference / file).read_text(encoding="utf-8"))
    spans = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        body = [child for field in ("body", "orelse", "finalbody", "handlers") for child in getattr(node, field, [])
                if isinstance(child, (ast.stmt, ast.excepthandler))]
        end = min(child.lineno for child in body) - 1 if body else node.end_lineno
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        spans.append((start, max(start, end)))
    return tuple(spans)
