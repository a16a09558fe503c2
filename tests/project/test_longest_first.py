"""``tests/conftest.py``'s ``LONGEST_FIRST``: the dear test files an xdist worker hands out first.
A name that no longer names a test file (one moved or renamed) would rank nothing and say nothing,
and the file it meant would be handed out in collection order, perhaps last (docs/testing.md, "Test
suite speed")."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests import conftest
from tests.conftest import LONGEST_FIRST, TESTS


def test_every_name_is_a_test_file_of_the_suite_once():
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    missing = [name for name in LONGEST_FIRST if not (TESTS / name).is_file()]
    assert missing == [], missing
    assert all(Path(name).name.startswith("test_") for name in LONGEST_FIRST)


def _item(path: str):
    return SimpleNamespace(path=TESTS / path, get_closest_marker=lambda name: None)


def test_a_worker_runs_the_listed_files_first_in_their_order_and_the_rest_as_collected():
    items = [_item(p) for p in ("cli/test_cli.py", LONGEST_FIRST[2], "zz/test_last.py", LONGEST_FIRST[0],
                                "cli/test_cli.py", LONGEST_FIRST[2])]
    config = SimpleNamespace(getoption=lambda name: "", workerinput={"workerid": "gw0"},
                             hook=SimpleNamespace(pytest_deselected=lambda items: None))
    conftest.pytest_collection_modifyitems(config, items)
    assert [i.path.relative_to(TESTS).as_posix() for i in items] == [
        LONGEST_FIRST[0], LONGEST_FIRST[2], LONGEST_FIRST[2], "cli/test_cli.py", "zz/test_last.py", "cli/test_cli.py"]
