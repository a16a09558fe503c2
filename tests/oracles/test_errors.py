"""One error vocabulary: every raise of both oracles derives from its package's base, the two
oracles name the same kinds the same (sharing no code), and a schema error says whether the
schema is malformed or merely outside the subset, as JSON Schema's own meta-schema decides.

- ``test_every_raise_site_derives_from_the_base``: each ``raise`` statement of
  ``oracles.automaton`` and ``oracles.derivatives`` is read with ``ast`` and the class it
  raises is resolved (a class, a function or method by its return annotation, a local
  name by its assignments); it must be its package's ``ConstrainError``, a plain
  ``TypeError`` (a wrong Python type), or ``AttributeError`` in a module ``__getattr__``.
- ``test_the_two_oracles_name_the_same_kinds``: by name only, with the same parents.
- the schema tests: a document ``jsonschema``'s meta-schema rejects is ``SchemaMalformed``,
  a valid one outside the subset ``SchemaUnsupported`` (``SchemaTooLarge`` over a bound),
  and a Python value that is no JSON at all (``json`` cannot write it back) is malformed.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import json
import typing
from pathlib import Path

import jsonschema
import pytest

import oracles.automaton.errors as reference_errors
import oracles.derivatives.errors as derivative_errors
from oracles.automaton import json_schema_to_regex
from oracles.automaton.errors import SchemaError, SchemaMalformed, SchemaTooLarge, SchemaUnsupported

PACKAGES = {"oracles.automaton": reference_errors.ConstrainError,
            "oracles.derivatives": derivative_errors.ConstrainError}
MIN_SITES = {"oracles.automaton": 120, "oracles.derivatives": 30}
"""Fewer raise sites than this means the walk missed files (today: 129 and 33)."""


# --- every raise site derives from its package's base --------------------------------

def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _enclosing_function(node: ast.AST, parents: dict) -> ast.AST | None:
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    return None


def _classes_of(obj) -> set[type]:
    """A class itself; for a function or method, the classes of its return annotation."""
    if isinstance(obj, type):
        return {obj}
    if callable(obj):
        returned = typing.get_type_hints(obj).get("return")
        options = typing.get_args(returned) or (returned,)
        return {t for t in options if isinstance(t, type) and t is not type(None)}
    return set()


def raised_classes(expr: ast.expr, module, function: ast.AST | None) -> set[type]:
    """The classes ``raise <expr>`` can raise, resolved statically; empty if unknown."""
    if isinstance(expr, ast.IfExp):  # error = A if valid else B
        return raised_classes(expr.body, module, function) | raised_classes(expr.orelse, module, function)
    target = expr.func if isinstance(expr, ast.Call) else expr
    if isinstance(target, ast.Name):
        if hasattr(module, target.id) or hasattr(builtins, target.id):
            return _classes_of(getattr(module, target.id, None) or getattr(builtins, target.id))
        assigned = [node.value for node in ast.walk(function or ast.Module(body=[], type_ignores=[]))
                    if isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == target.id for t in node.targets)]
        return set().union(*(raised_classes(value, module, function) for value in assigned))
    if isinstance(target, ast.Attribute):  # p.syntax(...): a method of a class of this module
        owners = [cls for cls in vars(module).values()
                  if isinstance(cls, type) and cls.__module__ == module.__name__ and hasattr(cls, target.attr)]
        return set().union(*(_classes_of(getattr(cls, target.attr)) for cls in owners))
    return set()


def site_problems(source: str, module, base: type) -> tuple[int, list[str]]:
    """(number of raise sites, one line per site that raises something other than
    ``base``, a plain TypeError, or AttributeError in ``__getattr__``)."""
    tree = ast.parse(source)
    parents = _parents(tree)
    sites, problems = 0, []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Raise) or node.exc is None:  # a bare raise re-raises
            continue
        sites += 1
        function = _enclosing_function(node, parents)
        classes = raised_classes(node.exc, module, function)
        name = getattr(function, "name", "<module>")
        allowed = {TypeError} | ({AttributeError} if name == "__getattr__" else set())
        bad = sorted(c.__name__ for c in classes if c not in allowed and not issubclass(c, base))
        if not classes or bad:
            problems.append(f"{module.__name__}:{node.lineno} in {name}: raises {bad or 'an unresolved class'}")
    return sites, problems


@pytest.mark.boundary
@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_every_raise_site_derives_from_the_base(package):
    base = PACKAGES[package]
    folder = Path(importlib.import_module(package).__file__).parent
    total, problems = 0, []
    for path in sorted(folder.glob("*.py")):
        name = package if path.stem == "__init__" else f"{package}.{path.stem}"
        sites, found = site_problems(path.read_text(encoding="utf-8"), importlib.import_module(name), base)
        total += sites
        problems += found
    assert not problems, "\n".join(problems)
    assert total >= MIN_SITES[package], f"{package}: only {total} raise sites found; the walk is broken"


@pytest.mark.unit
def test_the_walk_finds_a_bare_value_error_and_an_unresolved_name():
    """The walker itself can fail: a bare ValueError and an unknown class are reported."""
    module = importlib.import_module("oracles.automaton.parser")
    source = ("def f(x):\n    if x:\n        raise ValueError('bad')\n    raise Mystery('?')\n"
              "def g(x):\n    error = PatternSyntaxError if x else UnsupportedSyntax\n    raise error('ok')\n"
              "def h(x):\n    raise TypeError('a type')\n")
    sites, problems = site_problems(source, module, reference_errors.ConstrainError)
    assert sites == 4
    assert sorted(p.split(" in ")[1] for p in problems) == ["f: raises ['ValueError']", "f: raises an unresolved class"]


# --- the same names in both oracles, no shared code ---------------------------------------

def _error_classes(module) -> dict[str, type]:
    return {name: cls for name, cls in vars(module).items()
            if isinstance(cls, type) and issubclass(cls, Exception) and cls.__module__ == module.__name__}


@pytest.mark.unit
def test_the_two_oracles_name_the_same_kinds():
    reference, derivative = _error_classes(reference_errors), _error_classes(derivative_errors)
    schema_kinds = {name for name, cls in reference.items() if issubclass(cls, SchemaError)}
    assert schema_kinds == {"SchemaError", "SchemaMalformed", "SchemaUnsupported", "SchemaTooLarge"}
    # the derivative oracle has no schema front end, hence no schema kinds; otherwise the same names
    assert set(derivative) == set(reference) - schema_kinds
    for name, cls in derivative.items():
        parents = [b.__name__ for b in cls.__bases__]
        assert parents == [b.__name__ for b in reference[name].__bases__], name
        assert not issubclass(cls, reference_errors.ConstrainError), f"{name} shares code with the reference"
        assert not issubclass(reference[name], derivative_errors.ConstrainError), name
    for module, classes in ((reference_errors, reference), (derivative_errors, derivative)):
        assert all(issubclass(cls, module.ConstrainError) for cls in classes.values())
        assert issubclass(module.ConstrainError, ValueError) and not issubclass(module.ConstrainError, TypeError)


# --- schema errors: malformed or unsupported, as the meta-schema says ----------------

MALFORMED = [  # JSON documents that JSON Schema's meta-schema rejects
    {"type": 3},
    {"type": "date"},
    {"type": []},
    {"type": ["string", "date"]},
    {"type": "array", "items": 3},
    {"type": "array", "items": {"type": "strin"}},
    {"type": "array", "items": {"type": "integer"}, "minItems": -1},
    {"type": "array", "items": {"type": "integer"}, "maxItems": 2.5},
    {"type": "array", "items": {"type": "integer"}, "minItems": True},
    {"anyOf": []},
    {"anyOf": {"type": "integer"}},
    {"anyOf": [{"type": "integer"}, 7]},
    {"enum": "abc"},
    {"type": "object", "properties": []},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": "a"},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": [1]},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": 3},
    {"type": "object", "properties": {"a": {"type": 5}}},
]
UNSUPPORTED = [  # valid JSON Schema outside the subset
    True,
    False,
    {},
    {"minLength": 1},
    {"type": "string", "minLength": 1},
    {"type": "string", "pattern": "^a"},
    {"$ref": "#/$defs/a", "$defs": {"a": {"type": "integer"}}},
    {"allOf": [{"type": "integer"}]},
    {"type": ["string", "null"]},
    {"enum": []},
    {"enum": [1], "const": 1},
    {"enum": [1, 2], "minimum": 0},
    {"type": "integer", "enum": ["a"]},
    {"anyOf": [{"type": "integer"}], "title": "t", "minimum": 0},
    {"type": "array"},
    {"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 2},
    {"type": "array", "items": {"type": "integer"}, "minItems": 2.0},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": True},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
    {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["b"]},
    {"type": "object", "properties": {"a": {"type": "string", "format": "email"}}},
    {"type": "array", "items": True},
]
TOO_LARGE = [  # valid JSON Schema over one of the subset's documented bounds
    {"type": "array", "items": {"type": "integer"}, "maxItems": 1001},
    {"enum": list(range(10_001))},
    json.loads('{"type":"array","items":' * 40 + '{"type":"integer"}' + "}" * 40),
    {"const": json.loads("[" * 70 + "]" * 70)},
]
NOT_JSON = [  # Python values with no JSON document: malformed, json is the oracle
    {"enum": [float("nan")]},
    {"const": float("inf")},
    {"const": {1, 2}},
    {"enum": [{1: "a"}]},
    {"enum": ["\ud800"]},
    {"type": "integer", 1: "x"},
    {"type": "object", "properties": {1: {"type": "integer"}}},
    {"type": "object", "properties": {"\udc00": {"type": "integer"}}},
]


def _metaschema_accepts(schema) -> bool:
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return False
    return True


def _is_json(value) -> bool:
    """True iff ``json`` writes ``value`` as UTF-8 text that reads back as ``value``."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
    except (TypeError, ValueError):
        return False
    return json.loads(text) == value


def _refusal(schema) -> SchemaError:
    with pytest.raises(SchemaError) as info:
        json_schema_to_regex(schema)
    return info.value


@pytest.mark.boundary
@pytest.mark.parametrize("schema", MALFORMED, ids=lambda s: json.dumps(s)[:50])
def test_a_schema_the_metaschema_rejects_is_malformed(schema):
    assert _is_json(schema) and not _metaschema_accepts(schema), "the example is not malformed JSON Schema"
    error = _refusal(schema)
    assert isinstance(error, SchemaMalformed) and not isinstance(error, SchemaUnsupported), repr(error)


@pytest.mark.boundary
@pytest.mark.parametrize("schema", UNSUPPORTED, ids=lambda s: json.dumps(s)[:50])
def test_a_valid_schema_outside_the_subset_is_unsupported(schema):
    assert _is_json(schema) and _metaschema_accepts(schema), "the example is not valid JSON Schema"
    error = _refusal(schema)
    assert isinstance(error, SchemaUnsupported) and not isinstance(error, SchemaMalformed), repr(error)


@pytest.mark.boundary
@pytest.mark.parametrize("schema", TOO_LARGE, ids=lambda s: json.dumps(s)[:50])
def test_a_valid_schema_over_a_bound_is_too_large(schema):
    assert _is_json(schema) and _metaschema_accepts(schema), "the example is not valid JSON Schema"
    error = _refusal(schema)
    assert isinstance(error, SchemaTooLarge) and isinstance(error, reference_errors.LimitExceeded), repr(error)


@pytest.mark.boundary
@pytest.mark.parametrize("schema", NOT_JSON, ids=repr)
def test_a_value_with_no_json_is_malformed(schema):
    assert not _is_json(schema), "the example is JSON"
    assert isinstance(_refusal(schema), SchemaMalformed)
