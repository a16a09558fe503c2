"""Size bounds: no "equivalent" on a bound the evidence never reaches (issue 52 item 2).

The reference refuses inputs past its size bounds (the ``MAX_*`` constants of ``parser``, ``nfa``,
``determinize``, ``minimize``, ``schema``, ``index`` and ``vocab``). The spec sets none, so the
catalogue may not kill a mutant of one (``> MAX_NESTING`` made ``>= MAX_NESTING``); and equal
outputs on an evidence domain that never reaches the bound say nothing about it, nor does "no
infection" there (the mutated comparison's value differs only at the bound).

A mutant is a **bound mutant** (``bounds_read``) when its mutated statement reads a bound: names a
``MAX_*`` constant (its assignment, a comparison against it, a call given it; string literals aside)
or a parameter that carries one into a function (``ALIASES``: ``_first_group_deeper_than``'s
``limit`` is ``MAX_NESTING``). Such a mutant is equivalent with evidence (either kind: the domain's
items, or "no infection") only when, for every bound it reads, its module's evidence domain holds
the bound's **edge** (``EDGES``: items at the bound and one past it) and one of those items executes
the mutated statement (the mutant's ``evidence.Pick``; no pick: the whole domain runs). Otherwise it
is "survived (unproven)" with the reason "a size bound the evidence does not reach"
(``unreached``). The edges held (2026-12-07): ``MAX_NESTING`` (400 and 401 groups nested),
``MAX_REPEAT`` (``a{1000}``, ``a{1001}``, and ``a{10000}``: the digit count's edge),
``MAX_PATTERN_LENGTH`` (a class of 200,000 and
200,001 characters), in the compile domain (``evidence.EDGE_PATTERNS``); ``MAX_DEPTH``,
``MAX_VALUE_DEPTH``, ``MAX_REGEX_LENGTH``, ``MAX_ENUM_VALUES``, ``MAX_ITEMS_BOUND`` in the schema
domain (``evidence.bound_schemas``); ``MAX_VOCAB_SIZE`` in the vocab domain (``evidence_vocab``).
The work bounds (``MAX_NFA_STATES``, ``MAX_DFA_STATES``, ``MAX_CLOSURE_WORK``,
``MAX_MINIMIZE_WORK``, ``MAX_TRIE_BYTES``, ``MAX_TABLE_CELLS``, and ``MAX_VOCAB_SIZE`` as
``index`` checks it) have no edge item (each costs seconds to minutes to reach): their mutants are
never equivalent.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from functools import lru_cache
from pathlib import Path

from harness.mutants import evidence
from harness.mutants.apply import REFERENCE_DIR
from harness.mutants.statements import statement_lines

BOUND_NAME = re.compile(r"\bMAX_[A-Z_]+\b")

ALIASES = {("parser.py", "_first_group_deeper_than"): {"limit": "MAX_NESTING"},
           ("parser.py", "_bound_value"): {},
           ("nfa.py", "build_nfa"): {"max_states": "MAX_NFA_STATES"},
           ("nfa.py", "__init__"): {"limit": "MAX_NFA_STATES"},
           ("nfa.py", "new_state"): {"limit": "MAX_NFA_STATES"},
           ("determinize.py", "__init__"): {"max_work": "MAX_CLOSURE_WORK"},
           ("determinize.py", "subset_construction"): {"max_states": "MAX_DFA_STATES", "max_work": "MAX_CLOSURE_WORK"},
           ("determinize.py", "closure"): {"max_work": "MAX_CLOSURE_WORK"},
           ("minimize.py", "hopcroft_partition"): {"max_work": "MAX_MINIMIZE_WORK"},
           ("compile.py", "regex_to_dfa"): {"max_states": "MAX_DFA_STATES"}}
"""(file, enclosing function) -> {parameter or attribute name: the bound it carries}. A name read as
``self.NAME`` counts too (``_Builder.limit``, ``_Closures.max_work``)."""

EDGES = evidence.EDGES
"""(evidence kind, bound) -> the names of its edge items (held by ``evidence``, which computes them)."""

UNREACHED = "a size bound the evidence does not reach"


def bounds_read(file: str, span: frozenset[int] | None, reference: Path = REFERENCE_DIR,
                site: tuple[tuple[int, int], tuple[int, int]] | None = None) -> frozenset[str]:
    """The bounds the statement at lines ``span`` of ``file`` reads (empty: no bound mutant). A
    function's header (``def f(x, *, limit=MAX_N)``) reads its defaults once, at import: there only
    the mutated node's own text (``site``: its (line, column) start and end) counts, so ``*`` made
    ``/`` in such a header is no bound mutant, a mutant of the default itself is."""
    if not span:
        return frozenset()
    names = names_read(file, span, reference, site)
    found = {n for n in names if BOUND_NAME.fullmatch(n)}
    aliases = ALIASES.get((file, _function_at(file, min(span), Path(reference))), {})
    found |= {bound for name, bound in aliases.items() if name in names}
    return frozenset(found)


def names_read(file: str, span: frozenset[int], reference: Path = REFERENCE_DIR,
               site: tuple[tuple[int, int], tuple[int, int]] | None = None) -> set[str]:
    """The names the statement at lines ``span`` of ``file`` reads (a function's header: only the
    mutated node's own text, ``site``), as ``bounds_read`` reads them (``scope`` asks it too)."""
    lines = (Path(reference) / file).read_text(encoding="utf-8").splitlines()
    text = "\n".join(lines[n - 1] for n in sorted(span) if 0 < n <= len(lines))
    if site is not None and text.lstrip().startswith(("def ", "async def ")):
        text = _site_text(lines, *site)
    return _names(text)


def _names(text: str) -> set[str]:
    """The NAME tokens of ``text`` (a statement, or a compound statement's header): string literals
    (messages, docstrings) left out; an f-string's fields read their names, so they count."""
    found: set[str] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(_dedent(text) + "\n").readline):
            if token.type == tokenize.NAME:
                found.add(token.string)
            elif token.type == tokenize.STRING and token.string.lstrip("rbuRBU").startswith(("f", "F")):
                found |= set(re.findall(r"\{([A-Za-z_][A-Za-z_0-9.]*)", token.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        found |= set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text))   # unreadable: every word counts
    found |= {part for name in list(found) for part in name.split(".")}
    return found


def _site_text(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    """The text of ``lines`` from ``start`` to ``end`` ((line 1-based, column 0-based), end exclusive)."""
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1]:end[1]]
    middle = lines[start[0]:end[0] - 1]
    return "\n".join([lines[start[0] - 1][start[1]:], *middle, lines[end[0] - 1][:end[1]]])


def _dedent(text: str) -> str:
    lines = text.splitlines()
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return "\n".join(line[indent:] for line in lines)


@lru_cache(maxsize=64)
def _functions(file: str, reference: Path) -> tuple[tuple[int, int, str], ...]:
    tree = ast.parse((reference / file).read_text(encoding="utf-8"))
    return tuple((node.lineno, node.end_lineno or node.lineno, node.name) for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _function_at(file: str, line: int, reference: Path) -> str | None:
    """The innermost function of ``file`` holding ``line``, or None (module level)."""
    best = None
    for start, end, name in _functions(file, reference):
        if start <= line <= end and (best is None or end - start < best[1] - best[0]):
            best = (start, end, name)
    return None if best is None else best[2]


def unreached(kind: str | None, bounds: frozenset[str], pick) -> str | None:
    """None when every bound of ``bounds`` has its edge in the ``kind`` domain and an edge item
    executes the statement (``pick``: an ``evidence.Pick``, or None: the whole domain runs); else
    the reason the mutant stays unproven."""
    for bound in sorted(bounds):
        if kind is None or (kind, bound) not in EDGES:
            return f"{UNREACHED} ({bound}: no item of the {kind} domain at its edge)"
        edge = evidence.edge_indices(kind, bound)
        if not edge:
            return f"{UNREACHED} ({bound}: no item of the {kind} domain at its edge)"
        if pick is not None and not set(edge) & set(pick.chosen):
            return f"{UNREACHED} ({bound}: no item at its edge executes {pick.statement})"
    return None


def read_at(site, reference: Path = REFERENCE_DIR) -> frozenset[str]:
    """``bounds_read`` of a generated mutant's ``site`` (a ``generation.Site``): the bounds its mutated
    statement reads (empty: no bound mutant). ``reason_for`` and ``scope.classify`` both ask this."""
    span = statement_lines(site.file, site.start[0], reference)
    return bounds_read(site.file, span, reference, site=(site.start, site.end))


def reason_for(mutant, kind: str | None, pick) -> str | None:
    """``unreached`` for a generated mutant: None unless its mutated statement reads a bound whose
    edge the ``kind`` domain (``pick``'s items, or the whole domain) does not reach."""
    read = read_at(mutant.site)
    return unreached(kind, read, pick) if read else None
