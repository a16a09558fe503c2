"""``CatalogueRun``: what one catalogue run is asked for, as one frozen, validated value.

It is built once, by the caller that decides the run (``harness.grading.check`` for check, the
batch and the autograder; the mutant runner; a hand-run ``pytest harness/suite`` through the
plugin's own options), and crosses every hop to the grader child whole, as one JSON document
(``to_json`` / ``from_json``; the grader child's ``--run`` option), never re-encoded field by
field. The grader child (``harness.suite.early``, then ``harness.suite.plugin``) reads it back
and validates it the same way; the candidate receives only what the wall allows (its limits,
through ``harness.sandbox``), never this value.

Invariants (checked in ``__post_init__``, a ``ValueError`` or ``TypeError`` naming the field):

- ``policy`` is a ``GradingPolicy`` (which validates the CPU and memory limits itself: the one
  place they are checked); its tier is the run's tier and its ``ref_deps`` the run's;
- ``seed`` is an int in ``0 .. MAX_SEED`` (``harness.argtypes.check_seed``: the product's one seed check);
- ``only``, ``skip`` and ``twin_tests`` are frozensets of test names (``test_...``, no comma);
  an empty ``only`` selects every test;
- ``impl``, ``golden_file``, ``results_file`` and ``marker`` are non-empty strings or None;
- the descriptors (``results_key_fd``, ``twin_in_fd``, ``twin_out_fd``) are ints >= 0 or None:
  they name descriptors of the grader child, given by its launcher (``harness.run.launch``);
- ``wall_calibration`` is a ``WallCalibration`` or None (the fixed backstop);
- ``test_budgets`` is test name -> CPU seconds (finite, > 0), kept as sorted pairs: the budget of
  that test's calls into the candidate, at most the policy's ``test_cpu_seconds`` (``budget_of``);
  empty: every test has the policy's (the mutant runner calibrates them from the reference's own
  CPU, ``harness.mutants.budgets``).

Example::

    >>> run = CatalogueRun(seed=7, only=frozenset({"test_apply_mask"}))
    >>> CatalogueRun.from_json(run.to_json()) == run
    True
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields, replace

from harness.argtypes import check_seed
from harness.policy import POLICY, GradingPolicy, WallCalibration

__all__ = ["CatalogueRun", "MAX_DOCUMENT", "candidate_limits", "refuse_unknown_fields", "run_from_options"]

MAX_DOCUMENT = 1 << 16  # characters of a run's JSON document, at most (a run is a few hundred)
_TEST_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\[\]\-.]*")


@dataclass(frozen=True)
class CatalogueRun:
    """One catalogue run's settings (module docstring: its invariants and its path)."""

    impl: str | None = None  # module name, .py file or package folder (None: the reference)
    policy: GradingPolicy = POLICY  # tier, ref-deps and the limits: CPU per test and to load, memory
    deep: bool = False  # also the Hypothesis differential properties (test_deep.py)
    seed: int = 0  # the run seed (harness.suite.seeding; 0: the catalogue's own constants)
    only: frozenset[str] = frozenset()  # run only these tests (empty: every test)
    skip: frozenset[str] = frozenset()  # not these
    golden_file: str | None = None  # the masks golden file (None: golden/masks_golden.json)
    marker: str | None = None  # in the candidate processes' environment: finds every process of the run
    wall_calibration: WallCalibration | None = None  # each call's wall limit (None: the fixed backstop)
    results_file: str | None = None  # the grader child's signed JSON-lines records (None: none written)
    results_key_fd: int | None = None  # the grader child's descriptor holding the records' signing key
    twin_tests: frozenset[str] = frozenset()  # the tests a twin runs (harness.suite.twin)
    twin_in_fd: int | None = None  # the main child's end of the twin's stream
    twin_out_fd: int | None = None  # a twin's end of its stream to the main child
    test_budgets: tuple[tuple[str, float], ...] = ()  # (test, CPU s) pairs, sorted: below the policy's, per test

    def __post_init__(self):
        if not isinstance(self.policy, GradingPolicy):
            raise TypeError(f"CatalogueRun.policy must be a GradingPolicy, not {type(self.policy).__name__}")
        if not isinstance(self.deep, bool):
            raise TypeError(f"CatalogueRun.deep must be a bool, not {self.deep!r}")
        try:
            check_seed(self.seed)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"CatalogueRun.seed: {exc}") from None
        for name in ("impl", "golden_file", "results_file", "marker"):
            _text_or_none(name, getattr(self, name))
        for name in ("results_key_fd", "twin_in_fd", "twin_out_fd"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"CatalogueRun.{name} must be a descriptor (an int >= 0) or None, not {value!r}")
        for name in ("only", "skip", "twin_tests"):
            object.__setattr__(self, name, _names(name, getattr(self, name)))
        object.__setattr__(self, "test_budgets", _budgets(self.test_budgets))
        if self.wall_calibration is not None and not isinstance(self.wall_calibration, WallCalibration):
            raise TypeError(f"CatalogueRun.wall_calibration must be a WallCalibration or None, "
                            f"not {type(self.wall_calibration).__name__}")

    # ----------------------------------------------------------------- reading it

    @property
    def strict(self) -> bool:
        return self.policy.tier == "strict"

    @property
    def test_cpu_seconds(self) -> float:
        """The CPU budget of one test's calls into the candidate (its process tree)."""
        return float(self.policy.test_cpu_seconds)

    def budget_of(self, name: str) -> float:
        """The CPU budget of test ``name``'s calls into the candidate: its own (``test_budgets``)
        where one is given, never above the policy's ``test_cpu_seconds``."""
        return min(dict(self.test_budgets).get(name, self.test_cpu_seconds), self.test_cpu_seconds)

    @property
    def load_cpu_seconds(self) -> float:
        return float(self.policy.load_cpu_seconds)

    def selects(self, name: str) -> bool:
        """Whether ``only`` / ``skip`` keep the test ``name``."""
        return (not self.only or name in self.only) and name not in self.skip

    def limits(self, tests: int):
        """The candidate process's limits for a run of ``tests`` tests: RLIMIT_CPU, the hard
        fence behind the per-test budgets, is the load and every test's whole CPU allowance,
        twice over (a crash restarts the count); the memory; each call's CPU deadline."""
        return candidate_limits(self.load_cpu_seconds, self.test_cpu_seconds, self.policy.memory_mb, tests)

    def with_(self, **changes) -> "CatalogueRun":
        """A copy with ``changes`` (validated again)."""
        return replace(self, **changes)

    # ----------------------------------------------------------------- one JSON document

    def to_json(self) -> str:
        """The run as one compact JSON document (keys sorted; ``from_json`` reads it back equal)."""
        document = {}
        for spec in fields(self):
            value = getattr(self, spec.name)
            if spec.name == "policy":
                value = asdict(value)
            elif spec.name == "wall_calibration":
                value = None if value is None else [value.reference_wall, value.reference_cpu]
            elif isinstance(value, frozenset):
                value = sorted(value)
            elif spec.name == "test_budgets":
                value = dict(value)
            document[spec.name] = value
        return json.dumps(document, sort_keys=True, separators=(",", ":"), allow_nan=False)

    @classmethod
    def from_json(cls, text: str) -> "CatalogueRun":
        """The run ``to_json`` wrote; a ValueError naming the field (or the document) otherwise.
        Absent fields take their defaults; unknown ones are refused."""
        if not isinstance(text, str):
            raise TypeError(f"a catalogue run is a JSON document (str), not {type(text).__name__}")
        if len(text) > MAX_DOCUMENT:
            raise ValueError(f"a catalogue run's JSON document is at most {MAX_DOCUMENT} characters, not {len(text)}")
        try:
            document = json.loads(text, parse_constant=_no_constant)
        except ValueError as exc:
            raise ValueError(f"a catalogue run is one JSON object: {exc}") from None
        if not isinstance(document, dict):
            raise ValueError(f"a catalogue run is one JSON object, not {type(document).__name__}")
        refuse_unknown_fields("CatalogueRun", document, {spec.name for spec in fields(cls)})
        values = dict(document)
        if "policy" in values:
            values["policy"] = _policy(values["policy"])
        if values.get("wall_calibration") is not None:
            values["wall_calibration"] = _calibration(values["wall_calibration"])
        try:
            return cls(**values)
        except TypeError as exc:
            raise ValueError(str(exc)) from None


# The catalogue plugin's own options (``harness.suite.plugin``), for a hand-run ``pytest harness/suite``:
# each option, the field it fills, and how its text becomes the field's value
_OPTION_FIELDS = (("--impl", "impl"), ("--deep", "deep"), ("--seed", "seed"), ("--golden-file", "golden_file"),
                  ("--results-file", "results_file"), ("--results-key-fd", "results_key_fd"),
                  ("--twin-in-fd", "twin_in_fd"), ("--twin-out-fd", "twin_out_fd"))
_POLICY_OPTIONS = (("test_cpu_seconds", "--timeout"), ("load_cpu_seconds", "--load-seconds"), ("memory_mb", "--memory"))


def run_from_options(option, marker: str | None = None) -> CatalogueRun:
    """The run the catalogue plugin's separate options ask for (a hand-run ``pytest harness/suite
    --impl X ...``; ``check`` gives the whole value as ``--run`` instead): ``option(name)`` is
    the option's parsed value (pytest's ``config.getoption``; ``"strict"`` is pytest's own
    ``--strict``). A bad limit is a ValueError naming the option and the field."""
    strict = bool(option("strict"))
    try:
        policy = POLICY.with_(tier="strict" if strict else "default", ref_deps=bool(option("--ref-deps")),
                              **{field: option(name) for field, name in _POLICY_OPTIONS})
    except ValueError as exc:
        text = str(exc)
        for field, name in _POLICY_OPTIONS:
            text = text.replace(field, f"{name} ({field})", 1)
        raise ValueError(text) from None
    wall = option("--wall-reference")
    return CatalogueRun(policy=policy, marker=marker or None,
                        wall_calibration=WallCalibration.parse(wall) if wall else None,
                        only=_split(option("--only")), skip=_split(option("--skip")),
                        twin_tests=_split(option("--twin-tests")),
                        **{field: option(name) for name, field in _OPTION_FIELDS})


def _split(text) -> frozenset[str]:
    return frozenset(n for n in (text or "").split(",") if n)


def candidate_limits(load_cpu_seconds: float, test_cpu_seconds: float, memory_mb: int, tests: int):
    """A candidate process's limits for a run of ``tests`` tests (``CatalogueRun.limits``)."""
    from harness.sandbox import Limits

    cpu = int(load_cpu_seconds + 2 * test_cpu_seconds * max(tests, 1))
    return Limits(cpu_seconds=cpu, memory_mb=memory_mb, call_seconds=test_cpu_seconds)


def _text_or_none(name: str, value) -> None:
    if value is not None and (not isinstance(value, str) or not value or "\0" in value):
        raise ValueError(f"CatalogueRun.{name} must be a non-empty string without NUL, or None, not {value!r}")


def _names(name: str, value) -> frozenset[str]:
    if isinstance(value, str) or not isinstance(value, (frozenset, set, list, tuple)):
        raise TypeError(f"CatalogueRun.{name} must be a set of test names, not {type(value).__name__}")
    for item in value:
        if not isinstance(item, str) or not _TEST_NAME.fullmatch(item):
            raise ValueError(f"CatalogueRun.{name}: {item!r} is not a test name")
    return frozenset(value)


def _budgets(value) -> tuple[tuple[str, float], ...]:
    """``test_budgets`` as sorted (name, seconds) pairs, from a dict or pairs; a ValueError naming the test."""
    pairs = value.items() if isinstance(value, dict) else value
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, (tuple, list, type({}.items()))):
        raise TypeError(f"CatalogueRun.test_budgets must map test names to CPU seconds, not {type(value).__name__}")
    found: dict[str, float] = {}
    for pair in pairs:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise ValueError(f"CatalogueRun.test_budgets: {pair!r} is not a (test, CPU seconds) pair")
        name, seconds = pair
        if not isinstance(name, str) or not _TEST_NAME.fullmatch(name):
            raise ValueError(f"CatalogueRun.test_budgets: {name!r} is not a test name")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < float("inf"):
            raise ValueError(f"CatalogueRun.test_budgets[{name!r}] must be CPU seconds (a finite number > 0), "
                             f"not {seconds!r}")
        found[name] = float(seconds)
    return tuple(sorted(found.items()))


def refuse_unknown_fields(where: str, document: dict, known) -> None:
    """A ValueError naming ``where`` and every key of ``document`` not in ``known`` (a JSON
    document that crosses a hop carries the fields of its value and nothing else)."""
    unknown = sorted(set(document) - set(known))
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}")


def _policy(value) -> GradingPolicy:
    if not isinstance(value, dict):
        raise ValueError(f"CatalogueRun.policy must be an object of GradingPolicy's fields, not {value!r}")
    refuse_unknown_fields("CatalogueRun.policy", value, {spec.name for spec in fields(GradingPolicy)})
    try:
        return GradingPolicy(**value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"CatalogueRun.policy: {exc}") from None


def _calibration(value) -> WallCalibration:
    if not (isinstance(value, list) and len(value) == 2):
        raise ValueError(f"CatalogueRun.wall_calibration must be [wall, cpu] seconds or null, not {value!r}")
    try:
        return WallCalibration(*value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"CatalogueRun.wall_calibration: {exc}") from None


def _no_constant(word: str):
    raise ValueError(f"{word} is not a number a catalogue run accepts")
