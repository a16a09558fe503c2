"""Builds an outside-the-catalogue bug: a copy of the reference with a few text edits.

Not a candidate (its name starts with ``_``). A bug module calls
``globals().update(patched(__name__, {"parser.py": [(old, new)], ...}))``: the reference
package ``oracles/automaton`` is copied into a private folder, each ``old`` text (which
must occur exactly once, else ``ValueError``) replaced by ``new``, and the copy imported
under its own package name; its public names are returned. It runs in the candidate's
process, where the reference is importable and the temp folder is the candidate's own.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

import oracles.automaton as _reference


def patched(name: str, edits: dict[str, list[tuple[str, str]]]) -> dict:
    root = Path(tempfile.mkdtemp(prefix="outside-bug-"))
    package = f"outside_{name.rsplit('.', 1)[-1]}"
    folder = root / package
    shutil.copytree(Path(_reference.__file__).parent, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for file, replacements in edits.items():
        text = (folder / file).read_text(encoding="utf-8")
        for old, new in replacements:
            if text.count(old) != 1:
                raise ValueError(f"{file}: {old!r} occurs {text.count(old)} times, not once")
            text = text.replace(old, new)
        (folder / file).write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(package, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)
    return {key: getattr(module, key) for key in module.__all__}
