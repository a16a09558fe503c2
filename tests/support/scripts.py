"""The developer scripts of ``scripts/`` as modules, for their tests (``scripts/`` is no package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` executed as a fresh module called ``name`` (not put in ``sys.modules``)."""
    path = SCRIPTS / f"{name}.py"
    if not path.is_file():
        raise ValueError(f"load_script: no script {path}")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
