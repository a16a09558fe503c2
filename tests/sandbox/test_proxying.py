"""``harness.sandbox.proxying.wrap``: every handle in a decoded reply becomes a proxy, in lists,
tuples and dict values at any depth; a list or tuple holding no handle and no container is
returned as it is (a batch's answers, a draw's (token, logprob)), equal to what was decoded."""

from __future__ import annotations

import pytest

from harness.sandbox.channel import Handle
from harness.sandbox.proxying import wrap


def _proxy(handle):
    return ("proxy", handle.id)


H = Handle(7, "object", [], None)


@pytest.mark.parametrize("value, want", [
    ((3, 0.5), (3, 0.5)),
    ([(3, 0.5), (4, -1.0)], [(3, 0.5), (4, -1.0)]),
    ((H, 1), (("proxy", 7), 1)),
    ([(1, 2.0), (H,)], [(1, 2.0), (("proxy", 7),)]),
    ((1, [H]), (1, [("proxy", 7)])),
    ((1, (2, {"k": H})), (1, (2, {"k": ("proxy", 7)}))),
    ({"a": (H, H)}, {"a": (("proxy", 7), ("proxy", 7))}),
    (H, ("proxy", 7)),
])
def test_every_handle_becomes_a_proxy(value, want):
    assert wrap(value, _proxy, Handle) == want


def test_plain_lists_and_tuples_are_kept_as_they_are():
    draw = (3, -0.25, None, b"x", "s")
    assert wrap(draw, _proxy, Handle) is draw
    answers = [1, 2.5, "three"]
    assert wrap(answers, _proxy, Handle) is answers
