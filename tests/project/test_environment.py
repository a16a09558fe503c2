"""Every environment variable the product reads or sets is listed once, in
``harness.environment`` (issue 51, item 4): a name used anywhere in the checkout's code and
not listed fails here, and so does a listed name that no file it names reads any more."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.environment import PREFIX, VARIABLES, Variable

ROOT = Path(__file__).resolve().parents[2]
CODE = ("harness", "oracles", "golden", "strategies", "facts", "tests", ".ci")
NAME = re.compile(PREFIX + r"[A-Z0-9_]+")


def _code_files():
    for top in CODE:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in ("", ".py", ".sh", ".j2"):
                yield path


def _used() -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    for path in _code_files():
        if path.name == "environment.py" or path == Path(__file__).resolve():
            continue
        for name in NAME.findall(path.read_text(encoding="utf-8", errors="replace")):
            used.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return used


def test_every_variable_the_code_names_is_listed():
    unlisted = {name: sorted(files) for name, files in _used().items() if name not in VARIABLES}
    assert not unlisted, f"add these to harness/environment.py: {unlisted}"


@pytest.mark.parametrize("name", sorted(VARIABLES))
def test_each_listed_variable_is_read_where_it_says(name):
    variable = VARIABLES[name]
    for reader in variable.read_by + variable.set_by:
        text = (ROOT / reader).read_text(encoding="utf-8")
        assert name in text or _through_a_constant(name, text), f"{name}: {reader} does not name it"


def _through_a_constant(name: str, text: str) -> bool:
    """A file that names the variable through another module's constant (``CPU_LOG``,
    ``LEND_VARIABLE`` or its context manager)."""
    constants = {"CONSTRAIN_HARNESS_CPU_LOG": "CPU_LOG", "CONSTRAIN_HARNESS_LEND_REFERENCE": "LEND_VARIABLE"}
    return name in constants and (constants[name] in text or "lent_to_staff_candidates" in text)


def test_the_product_sets_no_variable_only_the_tests_read():
    """A variable of kind ``tests`` is set by no product file (the grader child's
    ``CONSTRAIN_HARNESS_PROFILE`` was: nothing of the product read it)."""
    for variable in VARIABLES.values():
        if variable.kind == "tests":
            for path in (ROOT / "harness").rglob("*.py"):
                text = path.read_text(encoding="utf-8")
                assert f'"{variable.name}"]' not in text and f'"{variable.name}":' not in text, \
                    f"{path.relative_to(ROOT)} sets {variable.name}, which only the tests read"


def test_a_variable_nobody_reads_is_refused():
    with pytest.raises(ValueError, match="dead"):
        Variable("CONSTRAIN_HARNESS_X", "user", "nothing", ())
    with pytest.raises(ValueError, match="starts with"):
        Variable("OTHER_X", "user", "nothing", ("a",))
