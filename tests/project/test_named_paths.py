"""Every test file, test module and manual page the checkout names exists (the tests moved to
``tests/<product>/``; a docstring, message or page that still says ``tests/test_errors.py``
sends its reader nowhere).

- paths: each ``tests/...py`` written in the harness, the oracles, the strategies, the golden
  files, the facts, ``docs/``, every ``*.md``, ``pyproject.toml``, ``mkdocs.yml`` and ``.ci/``
  names a file (a glob, ``tests/differential/test_differential_*.py``, matches one at least);
- module names: each dotted ``tests.x.y`` in a string of the tests' or the harness's code (an
  executor task's ``"tests.fanout.test_executor:record_start"``, a ``-p`` plugin) names a module;
- links: each relative link of README.md and every other page outside the docs site (the site's
  own are checked by ``mkdocs build --strict`` in ``.ci/run``) names a file.

``scripts/group_tests.py`` is not scanned: its docstring describes the flat layout it moves from.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PATH_NAMES = ("harness", "oracles", "strategies", "golden", "facts", "docs", ".ci")
TEXT_SUFFIXES = {".py", ".pyi", ".md", ".txt", ".toml", ".yml", ".yaml", ".cfg", ""}
TEST_PATH = re.compile(r"(?<![\w/.-])tests/[\w/*]+\.py")
"""``tests/x/test_y.py``, not ``python/tests/...`` (the spec's student layout) nor ``gradetests/...``."""
DOTTED = re.compile(r"(?<![\w./-])tests(?:\.\w+)+")
EXAMPLES_OF_OLD_NAMES = {"tests/project/test_group_tests.py", "tests/project/test_named_paths.py"}
"""Test files whose strings are old names on purpose (examples of a rewrite)."""


def _files(*tops: str, suffixes=TEXT_SUFFIXES) -> list[Path]:
    found = []
    for top in tops:
        base = ROOT / top
        paths = [base] if base.is_file() else base.rglob("*")
        found += [p for p in paths if p.is_file() and p.suffix in suffixes and "__pycache__" not in p.parts]
    return sorted(found)


def _markdown_files() -> list[Path]:
    """Every ``*.md`` of the checkout, outside hidden folders (venvs, ``.git``) and ``build/``."""
    found = []
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and d not in {"build", "__pycache__"}]
        found += [Path(folder) / name for name in names if name.endswith(".md")]
    return found


def _text_files_naming_paths() -> list[Path]:
    return sorted(set(_files(*PATH_NAMES, "README.md", "pyproject.toml", "mkdocs.yml")) | set(_markdown_files()))


def missing_test_paths(text: str, root: Path = ROOT) -> list[str]:
    """The ``tests/...py`` paths ``text`` names that name no file under ``root`` (a glob: none)."""
    return [name for name in TEST_PATH.findall(text)
            if not (any(root.glob(name)) if "*" in name else (root / name).is_file())]


def unresolved_module_names(source: str, root: Path = ROOT) -> list[str]:
    """The dotted ``tests.…`` names in the string literals of the Python ``source`` that name no
    module under ``root``: the longest prefix that is a package or module is found, and what is
    left after it may only be an attribute of a module (``tests.support.helpers.worker_pid``),
    never of a package (``tests.test_gone`` is an old place, not an attribute of ``tests``)."""
    bad = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.STRING:
            continue
        for name in DOTTED.findall(token.string):
            if not _resolves(name.split("."), root):
                bad.append(name)
    return bad


def _resolves(parts: list[str], root: Path) -> bool:
    for k in range(len(parts), 0, -1):
        place = root.joinpath(*parts[:k])
        if place.with_suffix(".py").is_file():
            return k >= len(parts) - 1          # a module, or one attribute of it
        if (place / "__init__.py").is_file():
            return k == len(parts)              # a package, nothing after it
    return False


def test_the_checker_sees_a_moved_path_and_a_moved_module(tmp_path):
    """The two scanners on a small tree: an old flat path and an old dotted name are reported,
    their new places are not (so the scans below can fail)."""
    (tmp_path / "tests" / "fanout").mkdir(parents=True)
    for name in ("tests/__init__.py", "tests/fanout/__init__.py", "tests/fanout/test_executor.py"):
        (tmp_path / name).write_text("")
    text = "see tests/test_executor.py and tests/fanout/test_executor.py and tests/fanout/test_exec*.py"
    assert missing_test_paths(text, tmp_path) == ["tests/test_executor.py"]
    assert missing_test_paths("python/tests/l8_7/test_x.py, gradetests/wheats/x.py", tmp_path) == []
    source = ('TASKS = ["tests.test_executor:record_start", "tests.fanout.test_executor:record_start",\n'
              '         "tests.fanout.test_gone", "tests.fanout.test_executor.held_square"]\ntests.values()\n')
    assert unresolved_module_names(source, tmp_path) == ["tests.test_executor", "tests.fanout.test_gone"]


def test_each_test_path_named_exists():
    missing = {}
    for path in _text_files_naming_paths():
        names = missing_test_paths(path.read_text(encoding="utf-8", errors="replace"))
        if names:
            missing[str(path.relative_to(ROOT))] = names
    assert not missing, f"test files named that are not there (moved?): {missing}"


def test_each_dotted_test_module_named_exists():
    found = {}
    for path in _files("tests", "harness", "oracles", "strategies", "golden", "scripts", suffixes={".py"}):
        origin = str(path.relative_to(ROOT))
        if origin in EXAMPLES_OF_OLD_NAMES or origin == "scripts/group_tests.py" or "/candidates/" in origin:
            continue
        text = path.read_text(encoding="utf-8")
        # a name in a string literal is a match of DOTTED in the whole text (the same span: a string
        # token holds its quotes, and "t" is no string prefix), so the literals are tokenized only
        # when some name of the text does not resolve (most name resolving modules in imports)
        unresolved = any(not _resolves(name.split("."), ROOT) for name in set(DOTTED.findall(text)))
        bad = unresolved_module_names(text) if unresolved else []
        if bad:
            found[origin] = bad
    assert not found, f"module names of tests that name no module (moved?): {found}"


def test_each_markdown_link_outside_the_site_names_a_file():
    """README.md and the READMEs beside the code (harness/mutants/README.md, golden/README.md, ...):
    each relative link names a file or folder, from the page's own folder."""
    site = ROOT / "docs"
    dead, pages = [], [p for p in _markdown_files() if not p.is_relative_to(site)]
    for page in pages:
        for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if not re.match(r"[a-z]+:", link) and not (page.parent / link).exists():
                dead.append(f"{page.relative_to(ROOT)} -> {link}")
    assert ROOT / "README.md" in pages and dead == []
