"""Identical and near-identical submissions: a normalized source hash and a k-gram overlap.

Input: each student's graded module (its source text: one ``.py``, or a package's ``.py``
files in name order). Output: ``Similarity`` groups and pairs for the class report.

The normalization (``normalized_tokens``), with Python's own ``tokenize`` and ``ast``:

- comments, blank lines, indentation and every other whitespace are dropped (only the
  tokens remain);
- docstrings and other string statements (an expression statement that is a string
  literal) are dropped;
- names bound in the module (assigned, parameters, ``def`` and ``class`` names, loop,
  ``with``, ``except`` and import aliases) are renamed ``v0, v1, ...`` in order of first
  appearance, so renaming a variable does not change the result; attribute names,
  builtins and imported modules' names are kept (``np.sum`` vs ``np.max`` differ).

e.g. ``x = 1  # one`` and ``total=1`` both give ``['v0', '=', '1']``.

- **identical**: the same normalized token sequence (its SHA-256): the same program up to
  comments, docstrings, whitespace and the names of its own variables;
- **near-identical**: the Jaccard similarity of the two sets of token ``K``-grams
  (``K = 5``, every bound name written ``v``: an inserted variable would otherwise
  renumber every later one) is at least ``NEAR``, 0.8; the sets are the shingles of Broder's
  resemblance measure (Broder 1997, "On the resemblance and containment of documents"),
  as MOSS (Schleimer, Wilkerson and Aiken 2003) compares fingerprints of k-grams.

A source that does not tokenize (a syntax error) is compared by its exact bytes only.

Known weak spots: a student who reorders functions or inserts dead code lowers the
k-gram overlap proportionally (MOSS's winnowing has the same limit); code every student
shares (the seed's signatures and docstrings are dropped, but not a common skeleton's
code) raises it; reformatting a string literal's contents changes tokens. It flags for a
human to look, never changes a grade.

Bounds: at most ``MAX_TOKENS`` tokens of a module are compared and at most
``MAX_COMPARED`` submissions are compared pairwise (past it, only identical groups are
found: hashing is linear); a pair is skipped at once when the sizes of its k-gram sets
already rule out ``NEAR`` (|A| / |B| < NEAR).

Example::

    >>> sim = compare({"ann": "def f(x):\\n    return x  # mine\\n",
    ...                "bob": "def f(y):\\n    '''doc'''\\n    return y\\n"})
    >>> sim.groups
    [('ann', 'bob')]
"""

from __future__ import annotations

import ast
import bisect
import hashlib
import io
import keyword
import tokenize
from dataclasses import dataclass

__all__ = ["normalized_tokens", "fingerprint", "compare", "Similarity", "K", "NEAR", "MAX_TOKENS", "MAX_COMPARED"]

K = 5
NEAR = 0.8
MAX_TOKENS = 200_000
MAX_COMPARED = 2_000
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
         tokenize.ENDMARKER}


def normalized_tokens(source: str, abstract: bool = False) -> list[str] | None:
    """The module's tokens after the normalization above, or None when it does not tokenize;
    ``abstract``: every bound name becomes ``v`` (for the k-grams: one inserted variable
    would otherwise renumber every later name)."""
    both = _normalized(source)
    return None if both is None else both[1 if abstract else 0]


def _normalized(source: str) -> tuple[list[str], list[str]] | None:
    """(renamed tokens, abstract tokens) in one parse and one tokenize, or None."""
    try:
        tree = ast.parse(source)
        tokens = tokenize.generate_tokens(io.StringIO(source).readline)
        bound, strings = _bound_names_and_strings(tree)
        renamed: dict[str, str] = {}
        named, abstract = [], []
        for tok in tokens:
            if tok.type in _SKIP or (tok.type == tokenize.STRING and _inside(tok.start, strings)):
                continue
            text = tok.string
            if tok.type == tokenize.NAME and text in bound and not keyword.iskeyword(text):
                named.append(renamed.setdefault(text, f"v{len(renamed)}"))
                abstract.append("v")
            else:
                named.append(text)
                abstract.append(text)
            if len(named) >= MAX_TOKENS:
                break
    except (SyntaxError, tokenize.TokenError, ValueError, RecursionError, MemoryError):
        return None
    return named, abstract


def _bound_names_and_strings(tree: ast.AST) -> tuple[set[str], list]:
    """The names bound in the module, and the sorted (start, end) positions of every
    statement that is a string literal (docstrings), in one walk of the tree."""
    names: set[str] = set()
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias) and node.asname:
            names.add(node.asname)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            spans.append(((node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0)))
    return names, sorted(spans)


def _inside(position: tuple[int, int], spans) -> bool:
    """Return True if and only if ``position`` is inside one of ``spans`` (sorted, never nested:
    statements do not overlap)."""
    i = bisect.bisect_right(spans, (position, (float("inf"), 0))) - 1
    return i >= 0 and spans[i][0] <= position < spans[i][1]


def fingerprint(source: str, tokens: list[str] | None = None) -> tuple[str, str]:
    """(kind, SHA-256): ``normalized`` over the normalized tokens, else ``exact`` over the text."""
    tokens = normalized_tokens(source) if tokens is None else tokens
    if tokens is None:
        return "exact", hashlib.sha256(source.encode("utf-8", "surrogateescape")).hexdigest()
    return "normalized", hashlib.sha256("\0".join(tokens).encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True)
class Similarity:
    groups: list[tuple[str, ...]]               # students with identical (normalized) sources, 2 or more each
    pairs: list[tuple[str, str, float]]         # near-identical pairs not in one group, most similar first
    compared: int                               # submissions compared pairwise (<= MAX_COMPARED)

    def flags(self) -> dict[str, str]:
        """student -> one line for the report, e.g. ``identical to bob; near-identical to carol (0.91)``."""
        out: dict[str, list[str]] = {}
        for group in self.groups:
            for student in group:
                out.setdefault(student, []).append("identical to " + ", ".join(s for s in group if s != student))
        for a, b, score in self.pairs:
            out.setdefault(a, []).append(f"near-identical to {b} ({score:.2f})")
            out.setdefault(b, []).append(f"near-identical to {a} ({score:.2f})")
        return {student: "; ".join(lines) for student, lines in out.items()}


def compare(sources: dict[str, str]) -> Similarity:
    """Identical groups and near-identical pairs among ``sources`` (student -> source text)."""
    seen: dict[str, tuple | None] = {}   # byte-identical sources are normalized once
    both = {student: seen.setdefault(text, _normalized(text)) if text not in seen else seen[text]
            for student, text in sources.items()}
    by_hash: dict[str, list[str]] = {}
    for student, text in sources.items():
        pair = both[student]
        kind_hash = fingerprint(text, pair[0]) if pair is not None else fingerprint(text, None)
        by_hash.setdefault("/".join(kind_hash), []).append(student)
    groups = sorted(tuple(sorted(g)) for g in by_hash.values() if len(g) > 1)
    same = {s: g for g in groups for s in g}
    shingles = {s: _shingles(pair[1]) for s, pair in both.items() if pair is not None and len(pair[1]) >= K}
    students = sorted(shingles)[:MAX_COMPARED]
    pairs = []
    for i, a in enumerate(students):
        for b in students[i + 1:]:
            if same.get(a) is not None and same.get(a) == same.get(b):
                continue
            score = _jaccard(shingles[a], shingles[b])
            if score >= NEAR:
                pairs.append((a, b, round(score, 4)))
    pairs.sort(key=lambda p: (-p[2], p[0], p[1]))
    return Similarity(groups, pairs, len(students))


def _shingles(tokens: list[str]) -> frozenset[bytes]:
    """The module's K-grams, each as 8 bytes of BLAKE2b (stable across runs, unlike ``hash``)."""
    return frozenset(hashlib.blake2b("\0".join(tokens[i:i + K]).encode("utf-8", "surrogateescape"),
                                     digest_size=8).digest() for i in range(len(tokens) - K + 1))


def _jaccard(a: frozenset[bytes], b: frozenset[bytes]) -> float:
    small, large = sorted((len(a), len(b)))
    if not large or small / large < NEAR:   # |A & B| / |A | B| <= small / large: cannot reach NEAR
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)
