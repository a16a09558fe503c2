"""An attack on the sandbox: look for the harness's own source (the reference, the chaff
catalogue, the wheats) wherever the interpreter's folders are, in a checkout or a wheel
install. Each test fails with what it found; had it found anything, a suite could diff a
chaff against the reference. Expected: valid (nothing found anywhere), 0 caught."""

import importlib
import os
import pkgutil
import sys
import sysconfig

PACKAGES = ("harness", "oracles", "facts", "strategies", "golden")
SOURCES = ("oracles/automaton/compile.py", "harness/mutants/catalogue.py",
           "harness/grading/gradetests/wheats/brzozowski.py",
           "harness/grading/gradetests/implementations.py", "golden/__init__.py")


def folders():
    paths = {*sys.path, *sysconfig.get_paths().values(), sys.prefix, sys.base_prefix}
    return sorted(p for p in paths if p and os.path.isdir(p))


def test_no_harness_module_is_importable():
    """At most an empty folder by a package's name (what masks it) may be found: no module."""
    found = []
    for name in (*PACKAGES, "harness.cli", "harness.mutants.catalogue", "harness.grading.gradetests",
                 "oracles.automaton"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if getattr(module, "__file__", None) or any(True for _ in pkgutil.iter_modules(module.__path__)):
            found.append(name)
    assert not found, found


def test_no_harness_source_in_the_interpreters_folders():
    found = [os.path.join(f, s) for f in folders() for s in SOURCES if os.path.exists(os.path.join(f, s))]
    assert not found, found


def test_no_python_file_in_a_harness_package_folder():
    found = []
    for folder in folders():
        for name in PACKAGES:
            for root, _dirs, files in os.walk(os.path.join(folder, name)):
                found += [os.path.join(root, f) for f in files]
    assert not found, found[:20]


def test_no_distribution_metadata():
    found = []
    for folder in folders():
        try:
            found += [n for n in os.listdir(folder) if n.startswith("constrain_harness") and n.endswith(".dist-info")
                      and os.listdir(os.path.join(folder, n))]
        except OSError:
            continue
    assert not found, found
