"""A test run keeps the product's between-process caches in a folder of its own (``tests/conftest.py``,
``_run_own_user_cache``): never the user's ``~/.cache``, and gone at the end of the run."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import SimpleNamespace

from harness.mutants.generation import sites_cache_dir
from tests import conftest


def test_this_run_s_site_lists_are_kept_outside_the_user_s_cache():
    assert os.environ.get("XDG_CACHE_HOME")
    assert Path(os.environ["XDG_CACHE_HOME"]).resolve() != (Path.home() / ".cache").resolve()
    assert sites_cache_dir().is_relative_to(os.environ["XDG_CACHE_HOME"])


def test_a_run_without_a_cache_of_its_own_gets_a_fresh_one_and_it_is_removed_at_the_end(monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME")
    config = SimpleNamespace()
    conftest._run_own_user_cache(config)
    folder = Path(os.environ["XDG_CACHE_HOME"])
    assert folder.is_dir() and folder.parent == Path(tempfile.gettempdir())
    assert sites_cache_dir().is_relative_to(folder)
    (folder / "constrain-harness").mkdir()
    conftest.pytest_unconfigure(config)
    assert not folder.exists()


def test_a_caller_s_own_cache_folder_is_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    config = SimpleNamespace()
    conftest._run_own_user_cache(config)
    assert os.environ["XDG_CACHE_HOME"] == str(tmp_path)
    conftest.pytest_unconfigure(config)
    assert tmp_path.is_dir()
