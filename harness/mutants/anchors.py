"""The catalogue's own mutants s01-s27 as edits anchored on syntax: a function and the node in it.

A text patch at exact columns goes stale as soon as the reference is reformatted; an
``Anchor`` names the scope (``"<module>"``, ``"parse_class"``, ``"Constraint.advance"``)
and the node by its *syntax*: ``node`` is Python source (one statement or one
expression) compared with the scope's nodes as ``ast`` trees, so whitespace, comments,
quotes, parentheses and line breaks do not matter. ``...`` in ``node`` matches any one
subtree, and a body or argument list that is only ``...`` matches any list. The anchor
must match exactly one node of its scope (``AnchorDoesNotApply`` otherwise). ``new`` is
the replacement source; ``$NODE`` in it stands for the matched node's own text.

The pitfall, the example and the expected killers of each mutant stay in
``harness.mutants.catalogue`` (``MUTANTS``); ``apply.materialize`` applies a mutant's
anchors when it has them (``ANCHORS``), its text edits otherwise (the port's p01-p11).

Example::

    >>> source = "def f(x):\\n    # a comment\\n    return  x+1\\n"
    >>> print(apply_anchor(source, Anchor("m.py", "f", "return x + 1", "return x - 1")), end="")
    def f(x):
        # a comment
        return x - 1

Invariant: ``tests/test_mutants_anchors.py`` checks that each mutant's anchors change
its example exactly as its text edits do, and that every anchor still applies, to the
same program, after every reference module is reformatted (``ast.unparse``, blank lines
and comments added).
"""

from __future__ import annotations

import ast
import dataclasses


@dataclasses.dataclass(frozen=True)
class Anchor:
    file: str        # a module of oracles/automaton, e.g. "parser.py"
    function: str    # the scope: "<module>", "name" or "Class.method"
    node: str        # the node, as source (one statement or one expression)
    new: str         # its replacement; "$NODE" is the matched node's text


class AnchorDoesNotApply(ValueError):
    """The anchor's scope is missing, or its node does not occur exactly once in it."""


ANCHORS: dict[str, tuple[Anchor, ...]] = {
    "s01": (Anchor("parser.py", "<module>", "DOT = FULL_MASK & ~NEWLINE", "DOT = FULL_MASK"),),
    "s02": (Anchor("parser.py", "parse_class", "FULL_MASK & ~mask if negate else mask",
                   "((1 << 128) - 1) & ~mask if negate else mask"),),
    "s03": (Anchor("compile.py", "regex_to_dfa", "block = minimal_partition(trans, accept)",
                   "block = __import__('numpy').arange(accept.shape[0])"),),
    "s04": (Anchor("minimize.py", "number_breadth_first", "rows[representative[b]]", "reversed($NODE)"),),
    "s05": (Anchor("index.py", "TokenIndex._tables", "masks[:, self.eos_id] = accepting",
                   "masks[:, self.eos_id] = True"),),
    "s06": (Anchor("index.py", "walk_trie", "node = child", "node = child if live.all() else child[:0]"),),
    "s07": (Anchor("constraint.py", "Constraint.advance", "if target == DEAD:\n    raise InvalidArgument(...)",
                   "if target == DEAD:\n    return"),
            Anchor("constraint.py", "Constraint.advance", "if self.done:\n    raise InvalidArgument(...)", "pass")),
    "s08": (Anchor("parser.py", "<module>", 'WORD = DIGIT | _range_mask(0x41, 0x5A) | _range_mask(0x61, 0x7A) | _mask("_")',
                   "WORD = DIGIT | _range_mask(0x41, 0x5A) | _range_mask(0x61, 0x7A)"),),
    "s09": (Anchor("nfa.py", "_Builder.repetition", "range(node.max - node.min)", "range(node.max - node.min - 1)"),),
    "s10": (Anchor("parser.py", "_quantifier", 'if ch == "+":\n    p.take()\n    return 1, None',
                   'if ch == "+":\n    p.take()\n    return 0, None'),),
    "s11": (Anchor("parser.py", "parse_class", "mask |= _range_mask(lo, hi)",
                   "mask |= _range_mask(lo, hi) & ~(1 << hi) | (1 << lo)"),),
    "s12": (Anchor("compile.py", "regex_to_dfa", "trans, accept = prune_dead(cdfa)",
                   "trans, accept = cdfa.trans, cdfa.accept"),),
    "s13": (Anchor("parser.py", "parse_atom", 'ch in "^$"', 'ch in ""'),),
    "s14": (Anchor("index.py", "walk_trie", "live = target != DEAD", "live = target != DEAD\nbefore = state[live]"),
            Anchor("index.py", "walk_trie", "found.append((origin[ends], token[ends], state[ends]))",
                   "found.append((origin[ends], token[ends], before[ends]))")),
    "s15": (Anchor("schema.py", "<module>", r'r"[ !#-\[\]-~]"', r'r"[\x00-!#-\[\]-~]"'),),
    "s16": (Anchor("schema.py", "<module>", "[...] + _UTF8_MULTIBYTE", r'$NODE + [r"[\x80-\xff]"]'),),
    "s17": (Anchor("schema.py", "object_members", 'after = f",{member}{after}" if required else f"(?:,{member})?{after}"',
                   'after = f",{member}{after}"'),),
    "s18": (Anchor("schema.py", "array", 'more = f"{more_lo}," if hi is None else f"{more_lo},{hi - 1}"',
                   'more = f"{more_lo}," if hi is None else f"{more_lo},{hi}"'),),
    "s19": (Anchor("sampling.py", "apply_mask", "out = x.astype(np.float64, copy=True)", "out = x"),),
    "s20": (Anchor("sampling.py", "sample", "token = int(np.argmax(x))",
                   "token = int(x.size - 1 - np.argmax(x[::-1]))"),),
    "s21": (Anchor("parser.py", "_repeat_bounds", "hi = _bound_value(hi_text) if hi_text else None",
                   "hi = _bound_value(hi_text) if hi_text else lo"),),
    "s22": (Anchor("schema.py", "enum_or_const",
                   'return group("|".join(escape(t) for t in unique)) if len(unique) > 1 else escape(unique[0])',
                   'return group("|".join(unique)) if len(unique) > 1 else unique[0]'),),
    "s23": (Anchor("schema.py", "<module>", 'INTEGER = r"-?(?:0|[1-9][0-9]*)"', 'INTEGER = r"-?[0-9]+"'),),
    "s24": (Anchor("schema.py", "<module>", r'NUMBER = INTEGER + r"(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"',
                   r'NUMBER = INTEGER + r"(?:\.[0-9]+)?(?:[eE][+-]?[0-9]*)?"'),),
    "s25": (Anchor("schema.py", "to_regex", 'for key in sorted(keys - {"type"} - TYPE_KEYWORDS[kind]):\n    ...',
                   "pass"),),
    "s26": (Anchor("vocab.py", "token_string_bytes",
                   'return decoded if decoded is not None else token.encode("utf-8")',
                   'return token.encode("utf-8")'),),
    "s27": (Anchor("vocab.py", "_mark_specials", "vocab[i] = None", "pass"),),
}


# --- finding the node ----------------------------------------------------------------------

_IGNORED_FIELDS = {"ctx", "type_comment", "kind"}


def _pattern(source: str) -> ast.AST:
    """The anchor's node as a tree: an expression if it parses as one, else one statement."""
    try:
        return ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        body = ast.parse(source.strip()).body
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
    return pattern == node


def _scope(tree: ast.Module, name: str) -> ast.AST:
    if name == "<module>":
        return tree
    node: ast.AST = tree
    for part in name.split("."):
        found = [n for n in ast.iter_child_nodes(node)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part]
        if len(found) != 1:
            raise AnchorDoesNotApply(f"scope {name!r}: {part!r} found {len(found)} times")
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
    """The one node of ``source`` that ``anchor`` names (``AnchorDoesNotApply`` otherwise)."""
    pattern = _pattern(anchor.node)
    scope = _scope(ast.parse(source), anchor.function)
    found = [n for n in _candidates(scope, anchor.function == "<module>") if same(pattern, n)]
    if len(found) != 1:
        raise AnchorDoesNotApply(f"{anchor.file}: {anchor.function}: {anchor.node.splitlines()[0]!r} "
                                 f"matches {len(found)} nodes (expected one)")
    return found[0]


# --- replacing it --------------------------------------------------------------------------

def _offset(lines: list[str], lineno: int, col_bytes: int) -> int:
    """Character offset in the joined text of (1-based line, UTF-8 byte column)."""
    before = sum(len(line) for line in lines[:lineno - 1])
    return before + len(lines[lineno - 1].encode("utf-8")[:col_bytes].decode("utf-8"))


def apply_anchor(source: str, anchor: Anchor) -> str:
    """``source`` with the anchored node replaced by ``anchor.new`` (indented like the node)."""
    node = find(source, anchor)
    lines = source.splitlines(keepends=True)
    start = _offset(lines, node.lineno, node.col_offset)
    end = _offset(lines, node.end_lineno, node.end_col_offset)
    indent = lines[node.lineno - 1][:start - sum(len(x) for x in lines[:node.lineno - 1])]
    indent = indent if isinstance(node, ast.stmt) and not indent.strip() else ""
    new = anchor.new.replace("$NODE", source[start:end])
    new = "\n".join([new.splitlines()[0]] + [indent + line for line in new.splitlines()[1:]])
    return source[:start] + new + source[end:]
