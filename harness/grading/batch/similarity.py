"""Identical and near-identical submissions: a normalized source hash and a k-gram overlap.

Input: each student's whole submission, as the texts of its files (every file of the
upload that is UTF-8 text, in path order: a classmate's code under ``helpers.py`` and a
``from helpers import *`` counts as much as the graded module), and optionally the course's
starter code (``--starter DIR``). Output: ``Similarity`` groups and pairs for the class
report.

**Packed code is unpacked first** (``unpacked``): a string or bytes literal of at least
``PACKED_MIN`` characters that decodes (base64, URL-safe base64, base32, base16/hex,
base85, ascii85, or none) and decompresses (zlib, gzip, bz2, lzma, or none) to Python
source (it parses, and holds a statement other than an expression) is compared as code
too, recursively up to ``UNPACK_DEPTH`` layers; e.g. ``exec(zlib.decompress(
base64.b64decode("eJy...")))`` is compared as the program it runs. Each decompression
stops at ``MAX_UNPACKED_BYTES``.

**The starter code is discounted**: its k-grams are taken out of every student's before
the overlap is measured, a student left with fewer than ``MIN_OWN`` k-grams of their own is
not compared, and a submission that is the starter's tokens is in no identical group, so
students who start from the same stub are not flagged for it.

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
shares (the spec's signatures and docstrings are dropped, but not a common skeleton's
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
import base64
import bisect
import bz2
import hashlib
import io
import keyword
import lzma
import re
import tokenize
import warnings
import zlib
from dataclasses import dataclass

__all__ = ["normalized_tokens", "fingerprint", "compare", "unpacked", "Similarity", "K", "NEAR", "MAX_TOKENS",
           "MAX_COMPARED", "PACKED_MIN", "UNPACK_DEPTH", "MAX_UNPACKED_BYTES", "MIN_OWN"]

K = 5
NEAR = 0.8
MAX_TOKENS = 200_000
MAX_COMPARED = 2_000
PACKED_MIN = 32                  # characters of a literal worth trying to unpack
UNPACK_DEPTH = 3                 # layers of packing undone (a pack inside a pack ...)
MAX_UNPACKED_BYTES = 4 << 20     # of one decompression
MIN_OWN = 20                     # k-grams a student must have beyond the starter's to be compared
Source = str | list[str] | tuple[str, ...]   # one module's text, or the texts of a submission's files
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


def compare(sources: dict[str, Source], starter: Source | None = None) -> Similarity:
    """Identical groups and near-identical pairs among ``sources`` (student -> the texts of
    their files, or one text), the ``starter``'s k-grams discounted (module docstring)."""
    seen: dict[tuple, _Tokens] = {}   # byte-identical submissions are normalized once
    both = {student: seen.setdefault(key, _submission(key)) if (key := _files(files)) not in seen else seen[key]
            for student, files in sources.items()}
    base = _shingles(_submission(_files(starter)).abstract) if starter is not None else frozenset()
    own = {s: _shingles(t.abstract) - base for s, t in both.items() if t.abstract is not None}
    by_hash: dict[str, list[str]] = {}
    for student, tokens in both.items():
        if starter is not None and tokens.abstract is not None and not own[student]:
            continue   # nothing of their own beyond the starter
        by_hash.setdefault(tokens.fingerprint, []).append(student)
    groups = sorted(tuple(sorted(g)) for g in by_hash.values() if len(g) > 1)
    same = {s: g for g in groups for s in g}
    least = MIN_OWN if starter is not None else 1
    shingles = {s: k for s, k in own.items() if len(k) >= least}
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


@dataclass(frozen=True)
class _Tokens:
    fingerprint: str                 # "kind/sha256" over the whole submission
    abstract: list[str] | None       # every bound name "v"; None when no file tokenizes


def _files(files) -> tuple[str, ...]:
    return (files,) if isinstance(files, str) else tuple(files)


def _submission(files: tuple[str, ...]) -> _Tokens:
    """The whole submission's tokens: each file and what is packed in it, normalized; a
    file that does not tokenize adds its words; no file that tokenizes: its exact bytes."""
    named, abstract, parsed = [], [], False
    for text in files:
        for source in (text, *unpacked(text)):
            pair = _normalized(source)
            if pair is None:
                named += source.split()[:MAX_TOKENS]
                abstract += source.split()[:MAX_TOKENS]
                continue
            parsed = True
            named += pair[0]
            abstract += pair[1]
        if len(named) >= MAX_TOKENS:
            break
    if not parsed:
        return _Tokens("/".join(fingerprint("\0".join(files), None)), None)
    digest = hashlib.sha256("\0".join(named).encode("utf-8", "surrogateescape")).hexdigest()
    return _Tokens(f"normalized/{digest}", abstract)


# --------------------------------------------------------------------------- packed code


def unpacked(source: str, depth: int = 0) -> list[str]:
    """The Python sources packed in ``source``'s string and bytes literals (module
    docstring), outermost first; [] when it does not parse."""
    tree = _parse(source) if depth < UNPACK_DEPTH else None
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) and len(node.value) >= PACKED_MIN:
            text = next((t for t in _decodings(node.value) if _is_code(t)), None)
            if text is not None:
                found += [text, *unpacked(text, depth + 1)]
    return found


_ENCODINGS = (lambda b: b, lambda b: base64.b64decode(b, validate=True), base64.urlsafe_b64decode,
              base64.b32decode, lambda b: base64.b16decode(b, casefold=True), base64.b85decode, base64.a85decode)


_CODE_WORDS = re.compile(r"\b(?:def|class|import|lambda|return|for|while|if)\b|=")


def _decodings(value: str | bytes):
    """Every text ``value`` may hold: itself when it reads like code, then each decoding
    and decompression (bounded). Prose is skipped at once: a text with more than one
    blank per 40 characters is no encoding (base64 is wrapped at 76), e.g. a docstring."""
    if isinstance(value, str):
        if _CODE_WORDS.search(value):
            yield value
        if sum(ch.isspace() for ch in value) * 40 > len(value):
            return
        try:
            raw = "".join(value.split()).encode("ascii")
        except UnicodeEncodeError:
            return
    else:
        raw = value
    for decode in _ENCODINGS[1:] if isinstance(value, str) else _ENCODINGS:   # a str as it is: yielded above
        try:
            data = decode(raw)
        except (ValueError, TypeError):
            continue
        for inflate in (None, _zlib, _bz2, _lzma):
            try:
                plain = data if inflate is None else inflate(data)
                yield plain.decode("utf-8")
            except (ValueError, OSError, EOFError, LookupError, zlib.error, lzma.LZMAError):
                continue


def _zlib(data: bytes) -> bytes:
    inflater = zlib.decompressobj(wbits=47)   # zlib or gzip, told apart by the header
    out = inflater.decompress(data, MAX_UNPACKED_BYTES)
    if inflater.unconsumed_tail:
        raise ValueError("past MAX_UNPACKED_BYTES")
    return out


def _bz2(data: bytes) -> bytes:
    return bz2.BZ2Decompressor().decompress(data, max_length=MAX_UNPACKED_BYTES)


def _lzma(data: bytes) -> bytes:
    return lzma.LZMADecompressor().decompress(data, max_length=MAX_UNPACKED_BYTES)


def _is_code(text: str) -> bool:
    """Return True if and only if ``text`` parses as Python holding a definition, an import,
    an assignment or a compound statement (prose and data rarely do; "note: x" parses, as an
    annotation, so an annotation alone does not count)."""
    tree = _parse(text)
    return tree is not None and any(isinstance(node, _CODE) for node in tree.body)


_CODE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Assign, ast.AugAssign,
         ast.For, ast.While, ast.If, ast.With, ast.Try, ast.Return)


def _parse(text: str) -> ast.Module | None:
    """``ast.parse(text)``, or None; silent (a decoding tried is often not Python: no
    SyntaxWarning for it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


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
