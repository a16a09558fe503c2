"""The implementations a golden replay runs in this process: the references, and trusted
modules (the mutant kill matrix's own copies). A candidate given on the command line is
never loaded here: ``session`` starts it behind the wall.

- ``reference(kind, ref_deps)``: ``oracles.automaton`` for the constrain and masks files
  (with the reference's sampling and byte map when ``ref_deps``), ``oracles.tools`` for
  the tools file;
- ``load_tools_impl(spec)``: a trusted tools module by name, ``.py`` file or package
  directory; ValueError naming the contract names it lacks
  (``golden.tools_replay.TOOLS_CONTRACT``).

Example::

    >>> reference("tools_golden").__name__
    'oracles.tools'
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from golden.tools_replay import TOOLS_CONTRACT

__all__ = ["reference", "load_tools_impl"]


def reference(kind: str, ref_deps: bool = False):
    """The reference implementation a golden document of ``kind`` is replayed against."""
    if kind == "tools_golden":
        return importlib.import_module("oracles.tools")
    from harness.sandbox.candidate import load_candidate

    return load_candidate(None, ref_deps)


def load_tools_impl(spec: str | None = None):
    """``None``: the reference ``oracles.tools``; else a trusted module name, ``.py`` file
    or package directory. Raises ValueError naming the contract names it lacks."""
    if spec is None:
        return importlib.import_module("oracles.tools")
    path = Path(spec)
    if path.exists():
        init = path / "__init__.py" if path.is_dir() else path
        name = path.name if path.is_dir() else path.stem
        module_spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(path)]
                                                             if path.is_dir() else None)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        module_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(spec)
    missing = [n for n in TOOLS_CONTRACT if not hasattr(module, n)]
    if missing:
        raise ValueError(f"{spec} lacks the tools contract's names: {', '.join(missing)}")
    return module
