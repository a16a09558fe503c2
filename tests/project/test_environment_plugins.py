"""The plugins the suite's own pytest loads: only those ``pyproject.toml``'s ``addopts`` names
(``--disable-plugin-autoload``; pytest-xdist's and Hypothesis's). pytest rewrites the assertions of
every module of each plugin it autoloads from an installed package (all of ``hypothesis``, all of
``anyio``), and under ``PYTHONDONTWRITEBYTECODE`` it cannot keep the result, so every process of a
run compiled them again: about 1 CPU s a process on 3.10 (docs/testing.md, "Test suite speed")."""

from __future__ import annotations

import sys

import hypothesis.core


def _rewritten(module) -> bool:
    return type(getattr(module, "__loader__", None)).__name__ == "AssertionRewritingHook"


def test_no_installed_package_is_rewritten_but_the_plugin_modules_named(pytestconfig):
    packages = {"hypothesis", "anyio", "platformdirs", "xdist", "execnet"}
    rewritten = sorted(name for name, module in list(sys.modules.items())
                       if name.split(".")[0] in packages and _rewritten(module))
    assert set(rewritten) <= {"xdist.looponfail", "xdist.plugin"}, rewritten
    assert not _rewritten(hypothesis.core)


def test_the_suite_still_loads_the_plugins_it_uses(pytestconfig):
    manager = pytestconfig.pluginmanager
    assert manager.hasplugin("_hypothesis_pytestplugin")   # --hypothesis-seed, the run seed in the header
    assert manager.hasplugin("xdist.plugin")               # -n, --dist (addopts)
    assert not manager.hasplugin("anyio")                  # autoloaded before; no test uses it
