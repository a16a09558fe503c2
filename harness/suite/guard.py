"""Tamper detection: notice when the candidate rebinds what the tests trust, and undo it.

The candidate is untrusted code running in the same interpreter as the catalogue, so it
could make a wrong answer look right by patching the oracles, e.g.
``re.fullmatch = lambda *a: True`` or ``oracles.derivatives.mask = candidate_mask``.
``Snapshot.take()`` (called before the candidate is imported) records, for every
protected module, the identity of each global, the code and defaults of each function
defined there, and the attribute table of each class defined there. ``Snapshot.diff()``
lists every change since; ``Snapshot.restore()`` puts the originals back.

The plugin diffs after loading the candidate and after every test: a test during which
anything changed fails with the names that changed, whatever its assertions said.

Guarantees and limits (the threat model): this catches rebinding of module globals,
function code and class attributes in the protected modules (``re``, ``regex``,
``json``, ``jsonschema``, ``numpy``'s top level, ``builtins``, pytest's runner and
reports, and every module of ``harness``, ``oracles`` (the reference ``oracles.automaton``
excepted: it is never trusted) ``strategies`` and ``golden``). New names are allowed
(lazy imports add submodules and cached exports) unless they shadow a builtin, and a
rebound plain value (a flag, a number) is not reported, since libraries set their own
flags (it is still restored). It does
not stop code that mutates the internals of objects in place (a compiled pattern's
cache, say; the plugin clears ``re``'s cache after every test) or that forges the result
file through the plugin's private objects: in-process Python cannot be fully sandboxed,
and the parent's checksums of the harness's files are the second line.

Example::

    >>> snap = Snapshot.take()
    >>> import re; original = re.fullmatch; re.fullmatch = len
    >>> snap.diff()
    ['re.fullmatch rebound']
    >>> snap.restore(); re.fullmatch is original
    True
"""

from __future__ import annotations

import builtins
import sys
from dataclasses import dataclass, field
from types import FunctionType, ModuleType

# Modules the tests rely on; prefixes protect a package and all of its submodules.
PROTECTED_EXACT = ("re", "re._parser", "re._compiler", "re._casefix", "regex", "regex.regex", "regex._regex_core",
                   "json", "json.decoder", "json.encoder", "json.scanner", "numpy", "builtins",
                   "math", "functools", "itertools", "collections", "os", "os.path", "io",
                   "pytest", "_pytest.runner", "_pytest.reports", "_pytest.python", "_pytest.main",
                   "_pytest.outcomes", "pluggy", "hypothesis", "hypothesis.core", "tokenizers")
PROTECTED_PREFIXES = ("harness", "oracles", "strategies", "golden", "jsonschema")
UNTRUSTED_PREFIXES = ("oracles.automaton",)  # the reference: the tests never trust it


def protected_modules() -> dict[str, ModuleType]:
    """The protected modules currently imported, by name."""
    chosen = {}
    for name, module in list(sys.modules.items()):
        if not isinstance(module, ModuleType):
            continue
        if any(name == p or name.startswith(p + ".") for p in UNTRUSTED_PREFIXES):
            continue
        if name in PROTECTED_EXACT or any(name == p or name.startswith(p + ".") for p in PROTECTED_PREFIXES):
            chosen[name] = module
    return chosen


@dataclass
class _ModuleState:
    module: ModuleType
    globals: dict
    functions: dict = field(default_factory=dict)  # qualname -> (func, code, defaults, kwdefaults)
    classes: dict = field(default_factory=dict)  # qualname -> (cls, dict copy)


def _capture_function(func: FunctionType):
    return (func, func.__code__, func.__defaults__, func.__kwdefaults__)


def _capture(module: ModuleType) -> _ModuleState:
    namespace = dict(vars(module))
    state = _ModuleState(module, namespace)
    for key, value in namespace.items():
        if isinstance(value, FunctionType) and value.__module__ == module.__name__:
            state.functions[key] = _capture_function(value)
        elif isinstance(value, type) and value.__module__ == module.__name__:
            try:
                attrs = dict(vars(value))
            except TypeError:  # pragma: no cover - exotic metaclass
                continue
            state.classes[key] = (value, attrs)
            for attr, member in attrs.items():
                if isinstance(member, FunctionType):
                    state.functions[f"{key}.{attr}"] = _capture_function(member)
    return state


@dataclass
class Snapshot:
    """The captured state of the protected modules (see the module docstring)."""

    states: dict[str, _ModuleState]

    @classmethod
    def take(cls) -> "Snapshot":
        return cls({name: _capture(module) for name, module in protected_modules().items()})

    def diff(self) -> list[str]:
        """One line per change since ``take()``, e.g. ``'re.fullmatch rebound'``."""
        changes = []
        builtin_names = set(self.states["builtins"].globals) if "builtins" in self.states else set(vars(builtins))
        for name, state in self.states.items():
            now = vars(state.module)
            if sys.modules.get(name) is not state.module:
                changes.append(f"sys.modules[{name!r}] replaced")
            for key, value in state.globals.items():
                if key not in now:
                    changes.append(f"{name}.{key} deleted")
                elif now[key] is not value and not key.startswith("__") and _behaviour(value, now[key]):
                    changes.append(f"{name}.{key} rebound")
            if name != "builtins":
                changes += [f"{name}.{k} shadows a builtin" for k in now if k not in state.globals
                            and k in builtin_names and not k.startswith("__")]
            changes += self._function_changes(name, state)
            changes += self._class_changes(name, state)
        return changes

    @staticmethod
    def _function_changes(name: str, state: _ModuleState) -> list[str]:
        changes = []
        for qualname, (func, code, defaults, kwdefaults) in state.functions.items():
            if func.__code__ is not code or func.__defaults__ is not defaults or func.__kwdefaults__ is not kwdefaults:
                changes.append(f"{name}.{qualname} code or defaults replaced")
        return changes

    @staticmethod
    def _class_changes(name: str, state: _ModuleState) -> list[str]:
        changes = []
        for qualname, (cls, attrs) in state.classes.items():
            now = vars(cls)
            for attr, value in attrs.items():
                if attr not in now or (now[attr] is not value and attr not in ("__dict__", "__weakref__")):
                    if attr.startswith("__") and attr in ("__abstractmethods__", "_abc_impl", "__parameters__"):
                        continue
                    changes.append(f"{name}.{qualname}.{attr} rebound")
            changes += [f"{name}.{qualname}.{a} added" for a in now if a not in attrs and not a.startswith("_")]
        return changes

    def restore(self) -> None:
        """Put every captured global, function body and class attribute back."""
        for name, state in self.states.items():
            sys.modules[name] = state.module
            namespace = vars(state.module)
            for key, value in state.globals.items():
                if namespace.get(key, _MISSING) is not value:
                    namespace[key] = value
            if name != "builtins":
                builtin_names = vars(builtins)
                for key in [k for k in namespace if k not in state.globals and k in builtin_names
                            and not k.startswith("__")]:
                    del namespace[key]
            for func, code, defaults, kwdefaults in state.functions.values():
                func.__code__, func.__defaults__, func.__kwdefaults__ = code, defaults, kwdefaults
            for cls, attrs in state.classes.values():
                self._restore_class(cls, attrs)

    @staticmethod
    def _restore_class(cls: type, attrs: dict) -> None:
        now = dict(vars(cls))
        for attr, value in attrs.items():
            if attr in ("__dict__", "__weakref__", "__doc__", "__module__"):
                continue
            if now.get(attr, _MISSING) is not value:
                try:
                    setattr(cls, attr, value)
                except (AttributeError, TypeError):  # pragma: no cover - read-only slot
                    pass
        for attr in now:
            if attr not in attrs and not attr.startswith("_"):
                try:
                    delattr(cls, attr)
                except (AttributeError, TypeError):  # pragma: no cover
                    pass


_MISSING = object()


def _behaviour(old, new) -> bool:
    """True iff rebinding ``old`` to ``new`` can change behaviour: a function, class or
    module is involved. Plain data (flags such as Hypothesis's ``running_under_pytest``,
    which its own plugin sets) is restored but not reported."""
    return any(callable(v) or isinstance(v, ModuleType) for v in (old, new))
