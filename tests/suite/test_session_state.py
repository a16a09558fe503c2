"""The catalogue's per-run state (``harness.suite.session``): one ``CatalogueState`` per session,
read by the catalogue's helpers (``seeding``, ``tiers``) through the state in force, and nothing
of it kept in a module global of theirs. (The two-sessions-in-one-process run is
``test_plugin_settings.test_two_sessions_in_one_process_keep_their_state_in_their_own_config``.)"""

from __future__ import annotations

import numpy as np
import pytest

from harness.argtypes import MAX_SEED
from harness.suite import early, seeding, session, tiers
from harness.suite.session import CatalogueState


@pytest.fixture
def in_force():
    """The test's own state in force; whatever was in force before is put back after."""
    before = list(session._IN_FORCE)
    state = CatalogueState()
    session.use(state)
    yield state
    session._IN_FORCE[:] = before


def test_the_helpers_read_the_state_in_force_and_only_it(in_force):
    other = CatalogueState(seed=9, strict=True)
    in_force.seed = 5
    assert seeding.run_seed() == 5 and seeding.derive(7) == 7 ^ 5
    assert int(seeding.seeded_rng(7).integers(1 << 30)) == int(np.random.default_rng(7 ^ 5).integers(1 << 30))
    tiers.decision("step_out_of_range_valueerror", False, "raised IndexError")
    tiers.record("shape", "Constraint(index)")
    assert in_force.notes == ["contract decision not met: step_out_of_range_valueerror: raised IndexError"]
    assert in_force.properties == [("shape", "Constraint(index)")]
    session.use(other)   # another session's state: its seed and tier, none of the first one's notes
    assert seeding.run_seed() == 9 and tiers.is_strict() and tiers.drain_notes() == []
    with pytest.raises(AssertionError, match="contract decision not met"):
        tiers.decision("step_out_of_range_valueerror", False, "raised IndexError")
    session.release(other)
    fresh = session.current()   # outside any session: a default state, nothing of either
    assert fresh is not other and fresh is not in_force
    assert (fresh.seed, fresh.strict, fresh.notes, fresh.properties) == (0, False, [], [])


def test_release_takes_out_only_the_state_in_force(in_force):
    session.release(CatalogueState())
    assert session.current() is in_force


def test_set_run_seed_and_set_strict_change_the_state_in_force(in_force):
    seeding.set_run_seed(MAX_SEED)
    tiers.set_strict(True)
    assert (in_force.seed, in_force.strict) == (MAX_SEED, True)
    assert seeding.hypothesis_seed("test_x") is not None
    seeding.set_run_seed(0)
    assert seeding.hypothesis_seed("test_x") is None   # at 0: derandomized, as written


@pytest.mark.boundary
@pytest.mark.parametrize("fields, error, said", [
    ({"seed": -1}, ValueError, "the run seed must be in 0 .."),
    ({"seed": MAX_SEED + 1}, ValueError, "the run seed must be in 0 .."),
    ({"seed": "5"}, TypeError, "seed"),
    ({"strict": 1}, TypeError, "CatalogueState.strict must be a bool, not int"),
])
def test_a_bad_state_is_refused_naming_the_field(fields, error, said):
    with pytest.raises(error, match=said):
        CatalogueState(**fields)
    with pytest.raises(TypeError, match="use\\(\\) takes a CatalogueState, not dict"):
        session.use({"seed": 1})


def test_no_run_state_is_a_module_global_of_the_catalogue_s_helpers():
    for module, name in ((seeding, "_RUN"), (tiers, "_STATE"), (early, "_EARLY")):
        assert not hasattr(module, name), f"{module.__name__}.{name}"
