"""Structural shrinking of a JSON instance on which peers disagree (``harness.peers.shrink_json``):
members and items dropped, strings shortened, numbers toward 0, until no single step keeps
the disagreement."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.peers import PEERS, isolation
from harness.peers.shrink_json import shrink_instance, structural_steps

HARNESS_DIGEST_BYTECODE = False
FAKES = str(Path(__file__).parents[1] / "peer_fakes")
NESTED = {"name": "ok", "items": [1, {"tag": "ab\x7fcd", "n": 42}, [True, None]], "z": -17.5}


def test_structural_steps_drop_members_items_shorten_strings_and_move_numbers_toward_zero():
    steps = list(structural_steps({"a": 1, "b": [2, "xy"]}))
    assert {"b": [2, "xy"]} in steps and {"a": 1} in steps                    # a member dropped
    assert {"a": 1, "b": ["xy"]} in steps and {"a": 1, "b": [2]} in steps     # an item dropped
    assert {"a": 1, "b": [2, "x"]} in steps and {"a": 1, "b": [2, ""]} in steps  # a string shortened
    assert {"a": 0, "b": [2, "xy"]} in steps and {"a": 1, "b": [1, "xy"]} in steps  # numbers toward 0
    assert list(structural_steps(-7)) == [0, -3, -6] and list(structural_steps(2.5)) == [0.0, 2.0]
    assert list(structural_steps(0)) == [] and list(structural_steps(None)) == [] and list(structural_steps(True)) == []


def _answers(value) -> tuple[bool, bool]:
    """Two stand-in peers on the compact JSON: one accepts any JSON, one (the bug) rejects
    a raw DEL in a string inside an object that is an array's item."""
    doc = json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    def buggy(v, in_item=False) -> bool:
        if isinstance(v, dict):
            return any((in_item and isinstance(x, str) and "\x7f" in x) or buggy(x) for x in v.values())
        if isinstance(v, list):
            return any(buggy(x, in_item=True) for x in v)
        return False

    return True, not buggy(json.loads(doc))


def test_a_nested_disagreement_shrinks_to_a_minimal_instance():
    def keeps(value) -> bool:
        return _answers(value) == (True, False)

    assert keeps(NESTED)
    smallest, spent = shrink_instance(NESTED, keeps)
    assert smallest == {"items": [{"tag": "\x7f"}]} and spent < 200
    assert keeps(smallest) and not any(keeps(step) for step in structural_steps(smallest))  # minimal


def test_shrinking_is_bounded_by_its_budget():
    calls = []

    def keeps(value) -> bool:
        calls.append(value)
        return True

    smallest, spent = shrink_instance(list(range(50)), keeps, budget=7)
    assert spent == len(calls) == 7 and len(smallest) == 50 - 7


@pytest.fixture
def three_schema_peers(monkeypatch, harness_unchanged):
    for name, cls in (("wrong", "Wrong"), ("right", "Right"), ("right-too", "RightToo")):
        monkeypatch.setitem(PEERS, name, ("wrong_peer", cls))
    monkeypatch.setattr(isolation, "EXTRA_PATHS", [FAKES])
    yield
    children = [p.pid for p in isolation._PEERS.values() if p.pid is not None]
    isolation.close_all()
    assert not any(Path(f"/proc/{pid}").exists() for pid in children)


@pytest.mark.e2e  # the peers answer from processes of their own
def test_compare_shrinks_a_peer_against_peer_disagreement_on_a_nested_instance(three_schema_peers, tmp_path):
    # minProperties -1 fails the metaschema: neither ours nor jsonschema judges; the peers judge each other
    schema = {"type": "object", "minProperties": -1, "examples": [NESTED]}
    path, report = tmp_path / "s.json", tmp_path / "r.json"
    path.write_text(json.dumps(schema))
    out, err = io.StringIO(), io.StringIO()
    code = main(["compare", "--peers", "wrong,right,right-too", "--schema", str(path), "--json", str(report)],
                out, err)
    assert code == 0, err.getvalue()
    [f] = json.loads(report.read_text())["peers"]["wrong"]["findings"]
    assert f["oracles"] == {"majority of peers": True} and f["engine"] == "rejects"
    assert bytes(f["witness"]) == '{"items":[{"tag":"\x7f"}]}'.encode()
    assert "shrunk structurally from" in f["detail"]
