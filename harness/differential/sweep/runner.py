"""The sweep's run: patterns (or schemas) in chunks, through the executor, summed per size.

Main access point: ``run_sweep(options, progress_out)`` -> ``SweepResult``.

Tasks: the patterns of one size, ``CHUNK`` at a time (schemas: ``SCHEMA_CHUNK``), each a
``harness.fanout.executor.Task`` keyed ``size{n}/{i}`` (``depth{d}/{i}``), so a resumed run
(``harness.fanout.results``) picks up after the last finished chunk. The enumeration is
deterministic, so a key names the same patterns in every run with the same options.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from harness.differential.sweep.enumerate import Grammar, patterns_by_size, string_alphabet
from harness.differential.sweep.schemas import schemas_by_depth
from harness.fanout.executor import Task
from harness.fanout.results import Progress, ResultsFile, run_tasks

__all__ = ["CHUNK", "SCHEMA_CHUNK", "SweepOptions", "SweepResult", "Level", "run_sweep", "pattern_tasks",
           "schema_tasks"]

CHUNK = 250
SCHEMA_CHUNK = 12
MAX_LEN = 10
"""``--max-len`` above this is refused: the strings grow as |alphabet|^len."""


@dataclass(frozen=True)
class SweepOptions:
    grammar: Grammar = field(default_factory=Grammar)
    max_size: int = 4
    max_len: int = 5
    schemas: bool = False
    max_depth: int = 1
    seed: int = 0
    peers: tuple[str, ...] = ()

    def __post_init__(self):
        if not 0 <= self.max_len <= MAX_LEN:
            raise ValueError(f"--max-len must be 0..{MAX_LEN}, not {self.max_len}")

    def as_dict(self) -> dict:
        if self.schemas:
            return {"schemas": True, "max_depth": self.max_depth, "seed": self.seed, "peers": list(self.peers)}
        return {"schemas": False, **self.grammar.options(), "max_size": self.max_size, "max_len": self.max_len,
                "peers": list(self.peers)}


@dataclass
class Level:
    """The sums of one size (or schema depth)."""

    level: int
    items: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    third_opinion: dict[str, int] = field(default_factory=dict)
    instances: dict[str, int] = field(default_factory=dict)
    timeouts: int = 0
    walks: int = 0
    cpu_seconds: float = 0.0
    disagreements: list[dict] = field(default_factory=list)
    peer_differences: list[dict] = field(default_factory=list)

    def add(self, record: dict) -> None:
        self.items += record.get("patterns", record.get("schemas", 0))
        for name, target in (("outcomes", self.outcomes), ("third_opinion", self.third_opinion),
                             ("instances", self.instances)):
            for key, n in record.get(name, {}).items():
                target[key] = target.get(key, 0) + n
        self.timeouts += record.get("third_opinion_timeouts", 0)
        self.walks += record.get("walks", 0)
        self.cpu_seconds += record["cpu_seconds"]
        self.disagreements += record["disagreements"]
        self.peer_differences += record.get("peer_differences", [])


@dataclass
class SweepResult:
    options: SweepOptions
    levels: dict[int, Level]
    seconds: float
    resumed: int = 0

    @property
    def items(self) -> int:
        return sum(level.items for level in self.levels.values())

    @property
    def disagreements(self) -> list[dict]:
        return [d for level in self.levels.values() for d in level.disagreements]

    @property
    def ok(self) -> bool:
        return not self.disagreements


def pattern_tasks(options: SweepOptions) -> list[Task]:
    grammar = options.grammar
    common = {"alphabet": grammar.alphabet.decode("latin-1"),
              "string_alphabet": string_alphabet(grammar).decode("latin-1"),
              "max_len": options.max_len, "peers": list(options.peers)}
    tasks = []
    for size, patterns in patterns_by_size(grammar, options.max_size).items():
        for i in range(0, len(patterns), CHUNK):
            tasks.append(Task(f"size{size}/{i // CHUNK}", "harness.differential.sweep.patterns:check_patterns",
                              {**common, "size": size, "patterns": patterns[i:i + CHUNK]}))
    return tasks


def schema_tasks(options: SweepOptions) -> list[Task]:
    tasks = []
    for depth, schemas in schemas_by_depth(options.max_depth).items():
        for i in range(0, len(schemas), SCHEMA_CHUNK):
            tasks.append(Task(f"depth{depth}/{i // SCHEMA_CHUNK}", "harness.differential.sweep.schemas:check_schemas",
                              {"depth": depth, "offset": i, "seed": options.seed, "peers": list(options.peers),
                               "schemas": schemas[i:i + SCHEMA_CHUNK]}))
    return tasks


def run_sweep(options: SweepOptions, *, jobs: int = 1, scheduler: str | None = None,
              results: ResultsFile | None = None, progress_out=None) -> SweepResult:
    """Run every task of the sweep (resuming from ``results``) and sum the records per level."""
    results = results or ResultsFile(None, {})
    tasks = schema_tasks(options) if options.schemas else pattern_tasks(options)
    resumed = sum(t.key in results.records for t in tasks)
    progress = Progress(len(tasks), progress_out, label="chunks", skipped=resumed)
    progress.describe = lambda record: f"{len(record['disagreements'])} disagreement(s) in the last"
    start = time.monotonic()
    levels: dict[int, Level] = {}
    for _key, record in run_tasks(tasks, jobs=jobs, scheduler=scheduler, results=results, progress=progress):
        level = record.get("size", record.get("depth"))
        levels.setdefault(level, Level(level)).add(record)
    return SweepResult(options, dict(sorted(levels.items())), time.monotonic() - start, resumed)
