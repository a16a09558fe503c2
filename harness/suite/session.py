"""The catalogue's per-run state in the grader child: one ``CatalogueState`` per pytest session.

``CatalogueState`` holds what a catalogue run changes as it goes: the run seed (every random
draw: ``harness.suite.seeding``), the tier (``strict``: ``harness.suite.tiers``) and the notes
and facts the test running has recorded (drained at its end). The plugin
(``harness.suite.plugin``) makes one in ``pytest_configure`` from the run value
(``harness.run.CatalogueRun``: its ``seed`` and ``strict``), keeps it with the session (in the
``_Run`` of the session's ``config.stash``), puts it in force (``use``) and takes it out of
force in ``pytest_unconfigure`` (``release``): two sessions in one process each have their
own, and nothing of one (a seed, a tier, a note) is left for the next.

The catalogue's helpers (``seeding.seeded_rng``, ``seeding.hypothesis_seed``,
``tiers.decision``, ``tiers.record``) are called from inside the tests, which hold no config:
they read the state in force, ``current()``. The one module-level name here is
``_IN_FORCE``, a reference to that state (at most one), never the state itself. Outside any
session (``constrain-harness bench``'s in-process grader, the project's own tests calling a
catalogue test in their process) ``current()`` makes a default state on first use (seed 0:
the catalogue's own constants; the default tier) and keeps it in force until a session puts
its own in force.

Example::

    >>> state = CatalogueState(seed=5, strict=True)
    >>> use(state); current() is state
    True
    >>> release(state); current().seed
    0
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.argtypes import check_seed

__all__ = ["CatalogueState", "current", "use", "release"]


@dataclass
class CatalogueState:
    """One catalogue session's state: ``seed`` (an int in 0 .. ``harness.argtypes.MAX_SEED``),
    ``strict`` (the tier), ``notes`` (contract decisions not met, as one line each) and
    ``properties`` (``(name, value)`` facts for the report) of the test running."""

    seed: int = 0
    strict: bool = False
    notes: list[str] = field(default_factory=list)
    properties: list[tuple[str, object]] = field(default_factory=list)

    def __post_init__(self):
        self.seed = check_seed(self.seed)
        if not isinstance(self.strict, bool):
            raise TypeError(f"CatalogueState.strict must be a bool, not {type(self.strict).__name__}")


_IN_FORCE: list[CatalogueState] = []   # the state in force (at most one): a reference, the state is its session's


def current() -> CatalogueState:
    """The state in force: the running session's, else the one outside any session (made here on first use)."""
    if not _IN_FORCE:
        _IN_FORCE.append(CatalogueState())
    return _IN_FORCE[0]


def use(state: CatalogueState) -> None:
    """Put ``state`` in force (the plugin, in ``pytest_configure``: its session's state)."""
    if not isinstance(state, CatalogueState):
        raise TypeError(f"use() takes a CatalogueState, not {type(state).__name__}")
    _IN_FORCE[:] = [state]


def release(state: CatalogueState) -> None:
    """Take ``state`` out of force, if it is in force (the plugin, in ``pytest_unconfigure``)."""
    if _IN_FORCE and _IN_FORCE[0] is state:
        _IN_FORCE.clear()
