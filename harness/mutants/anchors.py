"""How a mutant's edits are written and applied: anchored on syntax (``Anchor``), a function and the node in it.

A text patch at exact columns goes stale as soon as the reference is reformatted; an
``Anchor`` names the scope (``"<module>"``, ``"parse_class"``, ``"Constraint.advance"``)
and the node by its *syntax*: ``node`` is Python source (one statement or one
expression) compared with the scope's nodes as ``ast`` trees, so whitespace, comments,
quotes, parentheses and line breaks do not matter. ``...`` in ``node`` matches any one
subtree (``raise ...`` any raise without ``from``, whatever its error class), and a body
or argument list that is only ``...`` matches any list. The anchor must match exactly
one node of its scope (``EditDoesNotApply`` otherwise). ``new`` is the replacement
source; ``$NODE`` in it stands for the matched node's own text.

``Anchor.file`` is a module of the package the mutant copies (``apply.reference_dir``:
``oracles/automaton``, or ``oracles/tools`` for the tool-surface mutants), so one
anchor can be shared by two mutants of the same package (``catalogue``: s18 and
l10_9:s05 are one edit). Every mutant of the catalogue is written with anchors only;
``Edit`` (``old`` text, exactly once) remains for the ad-hoc variants that tests and
the runner's self-check build on the fly, where a one-off text is the plainest.

Example::

    >>> source = "def f(x):\\n    # a comment\\n    return  x+1\\n"
    >>> print(apply_edit(source, Anchor("m.py", "f", "return x + 1", "return x - 1")), end="")
    def f(x):
        # a comment
        return x - 1

Invariant: ``tests/mutants/test_mutants_anchors.py`` reformats copies of ``oracles/automaton``
and ``oracles/tools`` (``ast.unparse``, blank lines and comments added) and checks that
every mutant's anchors still apply there, make the same program and change its example
the same way.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import threading


@dataclasses.dataclass(frozen=True)
class Anchor:
    file: str        # a module of the mutant's package, e.g. "parser.py" (oracles/automaton or oracles/tools)
    function: str    # the scope: "<module>", "name" or "Class.method"
    node: str        # the node, as source (one statement or one expression)
    new: str         # its replacement; "$NODE" is the matched node's text


@dataclasses.dataclass(frozen=True)
class Edit:
    """A text edit: ``old`` must occur exactly once in ``file``; for ad-hoc variants only."""

    file: str
    old: str
    new: str


class EditDoesNotApply(ValueError):
    """The anchor's scope is missing or its node does not occur exactly once in it (or a
    text ``Edit``'s ``old`` does not occur exactly once)."""


def apply_edit(source: str, edit: Anchor | Edit) -> str:
    """``source`` with ``edit`` applied (``EditDoesNotApply`` when it no longer applies)."""
    if isinstance(edit, Anchor):
        return apply_anchor(source, edit)
    count = source.count(edit.old)
    if count != 1:
        raise EditDoesNotApply(f"{edit.file}: the text to replace occurs {count} times (expected once): "
                               f"{edit.old[:60]!r}")
    return source.replace(edit.old, edit.new)


def locate(source: str, edit: Anchor | Edit) -> tuple[tuple[int, int], tuple[int, int]]:
    """Where ``edit`` applies in ``source``: ((line, column), (end line, end column)),
    1-based, the end column just past the last character (a report's location). A text
    ``Edit`` whose ``old`` is missing points at (1, 1); so does a stale anchor."""
    if isinstance(edit, Anchor):
        try:
            node = find(source, edit)
        except (EditDoesNotApply, SyntaxError):
            return (1, 1), (1, 1)
        lines = _lines(source)
        return ((node.lineno, _column(lines, node.lineno, node.col_offset)),
                (node.end_lineno, _column(lines, node.end_lineno, node.end_col_offset)))
    start = max(source.find(edit.old), 0)
    end = start + len(edit.old) if edit.old in source else start
    return _line_column(source, start), _line_column(source, end)


def _column(lines: list[str], lineno: int, col_bytes: int) -> int:
    return len(lines[lineno - 1].encode("utf-8")[:col_bytes].decode("utf-8")) + 1


def _line_column(source: str, offset: int) -> tuple[int, int]:
    return source.count("\n", 0, offset) + 1, offset - (source.rfind("\n", 0, offset) + 1) + 1


# --- finding the node ----------------------------------------------------------------------

_IGNORED_FIELDS = {"ctx", "type_comment", "kind"}


_PARSE_LOCK = threading.Lock()


def parse(source: str, mode: str = "exec") -> ast.AST:
    """``ast.parse``, one call at a time in this process. The mutant runner applies edits
    from a thread pool, and CPython's AST constructor is not thread-safe: two parses at once
    can raise ``SystemError: AST constructor recursion depth mismatch`` (seen on 3.12/3.13)."""
    with _PARSE_LOCK:
        return ast.parse(source, mode=mode)


def _pattern(source: str) -> ast.AST:
    """The anchor's node as a tree: an expression if it parses as one, else one statement."""
    try:
        return parse(source.strip(), mode="eval").body
    except SyntaxError:
        body = parse(source.strip()).body
        if len(body) != 1:
            raise ValueError(f"an anchor's node must be one statement or expression: {source!r}") from None
        return body[0]


def _is_wildcard(node) -> bool:
    return (isinstance(node, ast.Constant) and node.value is Ellipsis) or (
        isinstance(node, ast.Expr) and _is_wildcard(node.value))


def same(pattern, node) -> bool:
    """``node`` has the syntax of ``pattern`` (``...`` matches any subtree or any list)."""
    if isinstance(pattern, ast.AST):
        if _is_wildcard(pattern):
            return True
        if type(pattern) is not type(node):
            return False
        return all(same(getattr(pattern, f), getattr(node, f, None))
                   for f in pattern._fields if f not in _IGNORED_FIELDS)
    if isinstance(pattern, list):
        if len(pattern) == 1 and _is_wildcard(pattern[0]):
            return isinstance(node, list)
        return isinstance(node, list) and len(pattern) == len(node) and all(map(same, pattern, node))
    return type(pattern) is type(node) and pattern == node  # e.g. the constant 1 is not True, nor 1.0


def _scope(tree: ast.Module, name: str) -> ast.AST:
    if name == "<module>":
        return tree
    node: ast.AST = tree
    for part in name.split("."):
        found = [n for n in ast.iter_child_nodes(node)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part]
        if len(found) != 1:
            raise EditDoesNotApply(f"scope {name!r}: {part!r} found {len(found)} times")
        node = found[0]
    return node


def _candidates(scope: ast.AST, module_level: bool):
    """Nodes of the scope; at module level, not inside functions or classes (their own scopes)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if module_level and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def find(source: str, anchor: Anchor) -> ast.AST:
    """The one node of ``source`` that ``anchor`` names (``EditDoesNotApply`` otherwise)."""
    pattern = _pattern(anchor.node)
    scope = _scope(parse(source), anchor.function)
    found = [n for n in _candidates(scope, anchor.function == "<module>") if same(pattern, n)]
    if len(found) != 1:
        raise EditDoesNotApply(f"{anchor.file}: {anchor.function}: {anchor.node.splitlines()[0]!r} "
                               f"matches {len(found)} nodes (expected one)")
    return found[0]


# --- replacing it --------------------------------------------------------------------------

def _lines(source: str) -> list[str]:
    """The lines as ``ast`` counts them (``\\n``, ``\\r\\n`` or ``\\r``; not ``str.splitlines``' others)."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z", source)


def _offset(lines: list[str], lineno: int, col_bytes: int) -> int:
    """Character offset in the joined text of (1-based line, UTF-8 byte column)."""
    before = sum(len(line) for line in lines[:lineno - 1])
    return before + len(lines[lineno - 1].encode("utf-8")[:col_bytes].decode("utf-8"))


def apply_anchor(source: str, anchor: Anchor) -> str:
    """``source`` with the anchored node replaced by ``anchor.new`` (indented like the node)."""
    node = find(source, anchor)
    lines = _lines(source)
    start = _offset(lines, node.lineno, node.col_offset)
    end = _offset(lines, node.end_lineno, node.end_col_offset)
    indent = lines[node.lineno - 1][:start - sum(len(x) for x in lines[:node.lineno - 1])]
    indent = indent if isinstance(node, ast.stmt) and not indent.strip() else ""
    new = anchor.new.replace("$NODE", source[start:end])
    new = "\n".join([new.splitlines()[0]] + [indent + line for line in new.splitlines()[1:]])
    return source[:start] + new + source[end:]
