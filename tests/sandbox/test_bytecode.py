"""The harness's compiled bytecode, written before a run's manifest (``harness.sandbox.bytecode``).

The oracle for "Python reads it" is the interpreter itself: ``python -v`` names the file each
module's code object came from.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.sandbox import bytecode
from harness.sandbox.files import Manifest

TAG = sys.implementation.cache_tag


def _package(root: Path) -> Path:
    package = root / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("VALUE = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("from pkg.a import VALUE\nDOUBLE = 2 * VALUE\n")
    (package / "data.json").write_text("{}\n")
    return package


def _loaded_from(root: Path, module: str) -> str:
    """What ``python -B -v`` says the code object of ``module`` came from (a run's processes
    start with -B: they read bytecode, never write it)."""
    out = subprocess.run([sys.executable, "-B", "-v", "-c", f"import {module}"], cwd=root, capture_output=True,
                         text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, check=True)
    where = str(root / Path(*module.split(".")[:-1]))
    name = module.rsplit(".", 1)[-1]
    lines = [line for line in out.stderr.splitlines() if line.startswith("# code object from") and where in line]
    return next(line for line in lines if f"/{name}.py" in line or f"/{name}.{TAG}.pyc" in line)


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


@pytest.mark.e2e  # Python children read the bytecode (_loaded_from)
def test_refresh_writes_what_python_reads_and_nothing_else(tmp_path):
    package = _package(tmp_path / "tree")
    staging = tmp_path / "staging"
    staging.mkdir()
    assert "a.py" in _loaded_from(tmp_path / "tree", "pkg.a")  # compiled from source: no cache yet
    assert bytecode.refresh([package], staging) == 4
    assert f"a.{TAG}.pyc" in _loaded_from(tmp_path / "tree", "pkg.a")
    assert f"b.{TAG}.pyc" in _loaded_from(tmp_path / "tree", "pkg.sub.b")
    sources = {"pkg/__init__.py", "pkg/a.py", "pkg/sub/__init__.py", "pkg/sub/b.py", "pkg/data.json"}
    caches = {f"pkg/__pycache__/__init__.{TAG}.pyc", f"pkg/__pycache__/a.{TAG}.pyc",
              f"pkg/sub/__pycache__/__init__.{TAG}.pyc", f"pkg/sub/__pycache__/b.{TAG}.pyc"}
    assert _files(tmp_path / "tree") == sources | caches
    assert list(staging.iterdir()) == []  # no temporary file left behind
    assert bytecode.refresh([package], staging) == 0  # fresh: nothing written again


@pytest.mark.e2e  # Python children read the bytecode
def test_a_changed_source_gets_its_bytecode_again_and_python_never_runs_stale_code(tmp_path):
    package = _package(tmp_path / "tree")
    bytecode.refresh([package], tmp_path)
    (package / "a.py").write_text("VALUE = 21  # changed\n")
    out = subprocess.run([sys.executable, "-B", "-c", "import pkg.sub.b as b; print(b.DOUBLE)"], cwd=tmp_path / "tree",
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "42"  # the stale .pyc is not what ran
    assert bytecode.refresh([package], tmp_path) == 1
    assert f"a.{TAG}.pyc" in _loaded_from(tmp_path / "tree", "pkg.a")


def test_switched_off_it_writes_nothing(tmp_path, monkeypatch):
    package = _package(tmp_path / "tree")
    monkeypatch.setenv(bytecode.SWITCH, "0")
    assert bytecode.refresh([package], tmp_path) == 0
    assert not any(p.name == "__pycache__" for p in package.rglob("*"))


def test_a_place_it_cannot_write_is_left_uncompiled_without_an_error(tmp_path):
    package = _package(tmp_path / "tree")
    assert bytecode.refresh([package], tmp_path / "no-such-folder") == 0
    assert not any(p.name == "__pycache__" for p in package.rglob("*"))


def test_a_linked_cache_folder_is_never_written_through(tmp_path):
    package = _package(tmp_path / "tree")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (package / "__pycache__").symlink_to(elsewhere)
    bytecode.refresh([package], tmp_path)
    assert list(elsewhere.iterdir()) == []


def test_a_broken_source_stays_uncompiled(tmp_path):
    package = _package(tmp_path / "tree")
    (package / "broken.py").write_text("def (:\n")
    assert bytecode.refresh([package], tmp_path) == 4
    assert not (package / "__pycache__" / f"broken.{TAG}.pyc").exists()


def test_a_run_beside_it_sees_no_change_and_its_new_bytecode_does_not_outlive_that_run(tmp_path):
    """Another run took its manifest before the refresh: its ``verify`` lists nothing (the
    bytecode cache is not the harness's files) and deletes the ``.pyc`` written since, as it
    deletes any (a forged one does not outlive the run)."""
    package = _package(tmp_path / "tree")
    manifest = Manifest.take([package])
    assert bytecode.refresh([package], tmp_path) == 4
    assert manifest.verify() == []
    assert not list(package.rglob("*.pyc"))


@pytest.mark.parametrize("verb_root", ["facts", "harness", "oracles", "strategies", "golden"])
def test_the_harness_s_own_packages_are_compiled_before_a_manifest(verb_root):
    """After a refresh of the installed packages, nothing of them is left to compile."""
    from harness.paths import PACKAGE_ROOT

    root = PACKAGE_ROOT / verb_root
    if not root.exists():
        pytest.skip(f"this installation has no {verb_root}")
    bytecode.refresh([root], PACKAGE_ROOT)
    assert bytecode.refresh([root], PACKAGE_ROOT) == 0
