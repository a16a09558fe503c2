"""Every environment variable the product reads or sets, in one list (issue 51, item 4).

Each ``Variable`` says what it means, who reads it and who sets it. The product's own code,
its shell templates and the tests name ``CONSTRAIN_HARNESS_*`` variables only from this list
(``tests/project/test_environment.py`` scans them and fails on one that is missing here, and on an
entry here that nothing reads any more).

Kinds:

- ``user``: a switch a user may set (documented in the docs pages named);
- ``internal``: set by one process of the product for another of its processes (a grader
  child, a candidate, a bundle's shell script); never a user's to set;
- ``tests``: read only by the project's tests and their candidates.

Example::

    >>> VARIABLES["CONSTRAIN_HARNESS_TWIN"].kind
    'user'
    >>> sorted(v.name for v in VARIABLES.values() if v.kind == "tests")[:1]
    ['CONSTRAIN_HARNESS_AS_USER']
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Variable", "VARIABLES", "PREFIX"]

PREFIX = "CONSTRAIN_HARNESS_"


@dataclass(frozen=True)
class Variable:
    name: str
    kind: str  # "user" | "internal" | "tests"
    meaning: str
    read_by: tuple[str, ...]  # files (from the checkout's root) that read it
    set_by: tuple[str, ...] = ()  # files that set it for another process ("" for a user)

    def __post_init__(self) -> None:
        if not self.name.startswith(PREFIX):
            raise ValueError(f"{self.name}: a variable of the product starts with {PREFIX}")
        if self.kind not in ("user", "internal", "tests"):
            raise ValueError(f"{self.name}: kind must be user, internal or tests, not {self.kind!r}")
        if not self.read_by:
            raise ValueError(f"{self.name}: a variable nobody reads is dead: remove it")


_ALL = (
    # ---------------------------------------------------------------- switches a user may set
    Variable("CONSTRAIN_HARNESS_SCHEDULER", "user",
             "the Dask scheduler's address (tcp://HOST:PORT) for batch, grade-tests and mutants when "
             "--scheduler is not given (docs/scale-out.md)",
             ("harness/fanout/executor.py",)),
    Variable("CONSTRAIN_HARNESS_BYTECODE", "user",
             "0: the harness writes no compiled bytecode of its own packages before a run (each process "
             "then compiles what it imports from source; docs/sandbox.md)",
             ("harness/sandbox/bytecode.py",)),
    Variable("CONSTRAIN_HARNESS_TWIN", "user",
             "0: one grader child runs every catalogue test (no twin for the second half; docs/wall.md)",
             ("harness/suite/twin.py",)),
    Variable("CONSTRAIN_HARNESS_GRADER_FORK", "user",
             "0: check (by hand, in a batch or called as a library) starts each grader child as a new "
             "interpreter instead of forking the warm check process or its warm server (by hand: check then "
             "does not run again isolated)",
             ("harness/run/launch.py", "harness/sandbox/isolated.py")),
    Variable("CONSTRAIN_HARNESS_UNBUFFERED", "internal",
             "1: check, run again isolated by hand, gives back the unbuffered streams its caller's "
             "PYTHONUNBUFFERED asked for (read and removed at its start)",
             ("harness/sandbox/isolated.py",), ("harness/sandbox/isolated.py",)),
    Variable("CONSTRAIN_HARNESS_WARM", "user",
             "0: the mutant runner starts a cold process per run instead of forking a warm one",
             ("harness/mutants/warm.py",)),
    Variable("CONSTRAIN_HARNESS_ZYGOTE_OFF", "user",
             "1: a generated mutant's catalogue runs start a fresh candidate process each instead of forking "
             "the warm grader's zygote (harness/sandbox/zygote.py)",
             ("harness/mutants/warm.py",)),
    Variable("CONSTRAIN_HARNESS_ZYGOTE", "internal",
             "set by a mutant worker's warm grader in the catalogue forks it makes for generated mutants: the "
             "zygote's control socket, cgroup and own processes; there the catalogue's candidate processes are "
             "forks of the zygote",
             ("harness/sandbox/zygote.py", "harness/sandbox/__init__.py"), ("harness/mutants/warm.py",)),
    Variable("CONSTRAIN_HARNESS_RERUN_SETTLED", "user",
             "1: a generated survivor's deep pass runs again the default tests that passed with no note "
             "(the slow path, to compare verdicts)",
             ("harness/mutants/runner.py",)),
    Variable("CONSTRAIN_HARNESS_NO_BYTECODE_EQUIVALENCE", "user",
             "1: every generated mutant runs, none settled by its compiled module (an identical bytecode's "
             "equivalence or a duplicate's copied verdict): the slow path, to compare verdicts",
             ("harness/mutants/runner.py",)),
    Variable("CONSTRAIN_HARNESS_NO_TEST_BUDGETS", "user",
             "1: every catalogue test of a generated mutant has the same CPU budget (a third of --timeout, at most "
             "the policy's) and its load the policy's, and each evidence item the evidence child's own limit, none "
             "calibrated from the reference's own CPU as the coverage map and its evidence recorded it "
             "(harness/mutants/budgets.py): the slow path, to compare verdicts",
             ("harness/mutants/budgets.py",)),
    Variable("CONSTRAIN_HARNESS_NO_STAGE_REUSE", "user",
             "1: a generated mutant's compile evidence computes every stage of regex_to_dfa and every token mask "
             "itself, none taken from the reference where its module cannot reach (harness/mutants/stage_memo.py): "
             "the slow path, to compare verdicts",
             ("harness/mutants/stage_memo.py",)),
    Variable("CONSTRAIN_HARNESS_NO_REPLAY", "user",
             "1: every pass of a generated mutant runs its grader and none is recorded; none is decided by replaying "
             "the recorded requests of an earlier pass of its selection that passed to the mutant's candidate and "
             "finding every reply equal (harness/mutants/traffic.py): "
             "the slow path, to compare verdicts",
             ("harness/mutants/traffic.py",)),
    Variable("CONSTRAIN_HARNESS_REPLAY_LOG", "user",
             "a file: each replay of a generated mutant's pass appends its decision there as a JSON line "
             "(harness/mutants/traffic.py; a measure, nothing reads it)",
             ("harness/mutants/traffic.py",)),
    Variable("CONSTRAIN_HARNESS_NO_ORACLE_MEMO", "user",
             "1: a mutant worker's warm grader keeps no answers of the grader's oracles (brute-force masks, re's "
             "compiled patterns, seeded vocabularies, json + jsonschema verdicts) from the inputs its passing "
             "default-tier runs asked: every catalogue run computes them itself (harness/suite/oracle_memo.py), "
             "the slow path, to compare verdicts",
             ("harness/suite/oracle_memo.py",)),
    Variable("CONSTRAIN_HARNESS_NO_REWRITE_REUSE", "user",
             "1: each catalogue run of a mutant worker's warm grader rewrites the catalogue's asserts itself, "
             "none rewritten once in the warm grader (harness/mutants/warm.py): the slow path, to compare verdicts",
             ("harness/mutants/warm.py",)),
    Variable("CONSTRAIN_HARNESS_NO_MASK_REUSE", "user",
             "1: a generated mutant's compile evidence computes the token masks of every DFA itself, none taken "
             "from the reference for tables equal to the reference's (harness/mutants/stage_memo.py): the slow "
             "path of that reuse alone, to compare verdicts",
             ("harness/mutants/stage_memo.py",)),
    Variable("CONSTRAIN_HARNESS_LEND_REFERENCE", "user",
             "1: the reference is lent to every candidate's sandbox (the staff's own candidates made from it: "
             "the test gallery, the mutants, bench batch); never set when grading students (docs/sandbox.md)",
             ("harness/sandbox/lending.py",),
             ("harness/bench/batch.py", "harness/mutants/runner.py", "tests/conftest.py",
              "tests/support/sample_class.py")),
    Variable("CONSTRAIN_HARNESS_CPU_LOG", "user",
             "a file to which every candidate process appends the CPU seconds it used (bench check, the "
             "mutants verb's CPU line)",
             ("harness/sandbox/client.py",), ("harness/bench/check.py", "harness/mutants/runner.py",
                                              "harness/mutants/process_cpu.py")),
    Variable("CONSTRAIN_HARNESS_BENCH_DIR", "user",
             "where bench peers writes its chart (default: the temporary folder)",
             ("harness/bench/peers.py",)),
    Variable("CONSTRAIN_HARNESS_AUTOGRADER_ROOT", "user",
             "the autograder's grading root (default /autograder, or /grade for PrairieLearn; "
             "docs/autograder.md)",
             ("harness/grading/autograder/runner.py", "harness/grading/autograder/templates/setup.sh")),
    Variable("CONSTRAIN_HARNESS_PYTHON", "user",
             "the Python the bundle's setup.sh builds its venv from (default python3)",
             ("harness/grading/autograder/templates/setup.sh",)),
    Variable("CONSTRAIN_HARNESS_OFFLINE", "user",
             "1: the bundle's setup.sh installs the wheel alone, downloading nothing",
             ("harness/grading/autograder/templates/setup.sh",)),
    # ------------------------------------------------------- one process of ours to another
    Variable("CONSTRAIN_HARNESS_UNCONFINED", "internal",
             "1: --unconfined was given; the verb sets it so that its grader children run the "
             "candidate without the wall too",
             ("harness/sandbox/confine.py",), ("harness/commands/args.py",)),
    Variable("CONSTRAIN_HARNESS_MARKER", "internal",
             "the run's marker: the grader child's candidate processes carry it, so the parent can "
             "find and end every one of them",
             ("harness/sandbox/client.py", "harness/suite/plugin.py", "harness/suite/early.py"),
             ("harness/grading/check.py",)),
    Variable("CONSTRAIN_HARNESS_RUN", "internal",
             "the marker in a candidate's own environment (the unconfined mode's sweep of "
             "leftover processes reads /proc/PID/environ for it)",
             ("harness/sandbox/confine.py",), ("harness/sandbox/confine.py",)),
    Variable("CONSTRAIN_HARNESS_BWRAP_WORKS", "internal",
             "whether bwrap could build its sandbox, probed once by the verb and inherited by its "
             "grader children (tagged with the bwrap and the user it was probed for)",
             ("harness/sandbox/confine.py",), ("harness/sandbox/confine.py",)),
    Variable("CONSTRAIN_HARNESS_COVERAGE_OUT", "internal",
             "where the coverage plugin of a mutant run's recording child writes the lines each "
             "catalogue test executed",
             ("harness/mutants/coverage_plugin.py",), ("harness/mutants/coverage.py",)),
    Variable("CONSTRAIN_HARNESS_TRAFFIC_OUT", "internal",
             "where the traffic plugin of a generated mutant's pass with no recording yet writes every round trip "
             "with its candidate processes, when the pass passed (kept to decide later passes by a replay, "
             "harness/mutants/traffic.py)",
             ("harness/mutants/traffic.py",), ("harness/mutants/traffic.py",)),
    Variable("CONSTRAIN_HARNESS_INFECTION_OUT", "internal",
             "where the infection plugin of a mutant run's recording child writes the mutants whose "
             "value differed in its catalogue test",
             ("harness/mutants/infection_plugin.py",), ("harness/mutants/infection.py",)),
    # ------------------------------------------------------------------------ the tests only
    Variable("CONSTRAIN_HARNESS_PROFILE", "tests",
             "the project's tests' Hypothesis profile: dev, ci (the default when CI is set) or thorough",
             ("tests/conftest.py",)),
    Variable("CONSTRAIN_HARNESS_TEST_SEED", "tests",
             "the project's tests' Hypothesis seed (the header prints the one drawn)",
             ("tests/conftest.py",)),
    Variable("CONSTRAIN_HARNESS_TESTS_LOCK_HELD", "tests",
             "set by tests/conftest.py in the process that holds the checkout's lock, so that a test "
             "that runs pytest again does not wait for itself",
             ("tests/conftest.py",), ("tests/conftest.py",)),
    Variable("CONSTRAIN_HARNESS_TEST_SECRET", "tests",
             "a secret a hostile candidate must not read from another process's environment",
             ("tests/candidates/_attacks.py",), ("tests/grading/test_check_isolation.py",)),
    Variable("CONSTRAIN_HARNESS_VICTIM", "tests",
             "the file a hostile candidate's symlink attack aims at",
             ("tests/candidates/_attacks.py",)),
    Variable("CONSTRAIN_HARNESS_AS_USER", "tests",
             "1: a root grader confines as an ordinary user would (a user namespace), to test that path",
             ("harness/sandbox/confine.py",)),
    Variable("CONSTRAIN_HARNESS_NO_BWRAP", "tests",
             "1: bubblewrap is unavailable, to test the refusal",
             ("harness/sandbox/confine.py",)),
    Variable("CONSTRAIN_HARNESS_NO_CGROUP", "tests",
             "1: no cgroup can be made for a candidate, to test the refusal and the uid-only way (docs/resources.md)",
             ("harness/sandbox/resources.py",)),
    Variable("CONSTRAIN_HARNESS_NO_SETPRIV", "tests",
             "1: setpriv is unavailable, to test bwrap's own --uid path",
             ("harness/sandbox/confine.py",)),
)

VARIABLES: dict[str, Variable] = {v.name: v for v in _ALL}
"""Every ``CONSTRAIN_HARNESS_*`` variable, by name."""
