"""The corpus run: one task per schema through the executor, then the sums.

Main access point: ``run_corpus(path, ...)`` -> ``CorpusResult`` (the records and the sums
the report shows: coverage by source, refusal reasons ranked, soundness, completeness,
timings, peers, slowest schemas).

A task is keyed by the entry's id (its path in the collection, ``file:line`` in a JSON-lines
file), so ``--resume`` picks up after the last finished schema.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from harness.differential.corpus.load import entry_ids, iter_entries
from harness.fanout.executor import Task
from harness.fanout.results import Progress, ResultsFile, run_tasks

__all__ = ["CorpusResult", "run_corpus", "FINDING_OUTCOMES", "FINDING_INSTANCES"]

FINDING_OUTCOMES = ("crash",)
FINDING_INSTANCES = ("rejected", "invalid accepted")


@dataclass
class CorpusResult:
    path: str
    options: dict
    records: list[dict]
    seconds: float
    resumed: int = 0
    fail_on_difference: bool = False

    def coverage(self) -> dict[str, Counter]:
        """source -> Counter of outcomes (compiled, refused, crash, unreadable)."""
        out: dict[str, Counter] = {}
        for r in self.records:
            out.setdefault(r["source"], Counter())[r["outcome"]] += 1
        return dict(sorted(out.items()))

    def outcomes(self) -> Counter:
        return Counter(r["outcome"] for r in self.records)

    def reasons(self) -> list[tuple[str, int]]:
        """Refusal reasons, most frequent first (what the subset would have to grow to cover)."""
        return Counter(r["reason"] for r in self.records if r["outcome"] == "refused").most_common()

    def keywords_outside(self) -> list[tuple[str, int, int]]:
        """(keyword, schemas holding it, refused schemas whose only outside keyword it is),
        most frequent first: what the subset would have to grow to cover."""
        holding: Counter = Counter()
        alone: Counter = Counter()
        for r in self.records:
            outside = r.get("outside", [])
            holding.update(outside)
            if len(outside) == 1 and r["outcome"] == "refused":
                alone[outside[0]] += 1
        return [(k, n, alone[k]) for k, n in holding.most_common()]

    def instances(self) -> Counter:
        total: Counter = Counter()
        for r in self.records:
            total.update(r["instances"])
        return total

    def soundness(self) -> dict[str, int]:
        compiled = [r for r in self.records if r["outcome"] == "compiled"]
        return {"schemas": len(compiled), "walks": sum(r["walks"] for r in compiled),
                "unsound walks": sum(r["unsound"] for r in compiled),
                "schemas with an unsound walk": sum(1 for r in compiled if r["unsound"])}

    def compile_times(self) -> dict[str, float | None]:
        times = sorted(r["compile_seconds"] for r in self.records if r["outcome"] == "compiled")
        return _quantiles(times)

    def slowest(self, n: int = 10) -> list[dict]:
        return sorted((r for r in self.records if r["outcome"] in ("compiled", "refused")),
                      key=lambda r: -r["compile_seconds"])[:n]

    def peers(self) -> dict[str, dict]:
        """peer -> its row: compiled/refused/absent counts, first-mask and mask quantiles, differences."""
        out: dict[str, dict] = {}
        for r in self.records:
            for name, p in r.get("peers", {}).items():
                row = out.setdefault(name, {"compiled": 0, "refused": 0, "unavailable": 0, "first_mask": [],
                                            "masks": [], "differences": 0, "schemas_differing": 0, "examples": [],
                                            "failures": Counter(), "failure_examples": []})
                if not p["available"]:
                    row["unavailable"] += 1
                    row["reason"] = p["reason"]
                    continue
                row["compiled" if p["compiled"] else "refused"] += 1
                if p.get("failure"):  # crash, hang, limit, failed on valid input, or unsupported
                    row["failures"][p["failure"]] += 1
                    if p["failure"] != "unsupported" and len(row["failure_examples"]) < 5:
                        row["failure_examples"].append({"id": r["id"], "failure": p["failure"], "reason": p["reason"]})
                if p["first_mask_seconds"] is not None:
                    row["first_mask"].append(p["first_mask_seconds"])
                row["masks"] += p["mask_seconds"]
                row["differences"] += p["differences"]
                if p["differences"]:
                    row["schemas_differing"] += 1
                    if len(row["examples"]) < 5:
                        row["examples"].append({"id": r["id"], **p["difference"]})
        for row in out.values():
            row["failures"] = dict(sorted(row["failures"].items()))
            row["first_mask"] = _quantiles(sorted(row["first_mask"]))
            row["masks"] = _quantiles(sorted(row["masks"]))
        return out

    def findings(self) -> list[tuple[str, str]]:
        """(entry id, what was found) for every crash, unsound walk, rejected valid or accepted invalid instance."""
        return [(r["id"], f) for r in self.records for f in r["findings"]]

    def unreadable(self) -> list[tuple[str, str]]:
        """(entry id, why) for every input that could not be read."""
        return [(r["id"], r["reason"]) for r in self.records if r["outcome"] == "unreadable"]

    def checked(self) -> int:
        """Entries something was checked on: compiled by ours, or by a peer."""
        return sum(1 for r in self.records if r["outcome"] == "compiled"
                   or any(p.get("compiled") for p in r.get("peers", {}).values()))

    def peer_findings(self) -> list[tuple[str, str]]:
        """(entry id, what) for every peer that differed from ours on an instance, or crashed,
        hung, ran past a limit or failed on a valid schema."""
        out = []
        for r in self.records:
            for name, p in sorted(r.get("peers", {}).items()):
                if p.get("failure") not in (None, "", "unsupported"):
                    out.append((r["id"], f"{name} {p.get('version', '')}: {p['failure']}: {p['reason']}"[:400]))
                if p.get("differences"):
                    d = p["difference"]
                    out.append((r["id"], f"{name}: {p['differences']} document(s) differ from the oracles, e.g. "
                                         f"{d['doc']!r}: oracles {d['ours']}, {name} {d['peer']}"[:400]))
        return out

    def peer_reproducers(self) -> list[tuple[str, str, str]]:
        """(entry id, peer, reproducer) for every peer finding that has one (records read back
        from a results file of an older release may have none)."""
        return [(r["id"], name, p["reproducer"]) for r in self.records
                for name, p in sorted(r.get("peers", {}).items()) if p.get("reproducer")]

    def problems(self) -> list[str]:
        """What makes the run fail before any finding: inputs not read, nothing checked, and
        (with ``fail_on_difference``) the peers' findings; said first in every report."""
        out = []
        unreadable = self.unreadable()
        if unreadable:
            first = "; ".join(f"{i}: {why}" for i, why in unreadable[:3])
            more = "; ..." if len(unreadable) > 3 else ""
            out.append(f"{len(unreadable)} input(s) could not be read ({first}{more})")
        if not self.checked():
            out.append(f"nothing was checked: none of the {len(self.records)} schema(s) compiled, by ours or a peer")
        if self.fail_on_difference and self.peer_findings():
            out.append(f"{len(self.peer_findings())} peer finding(s) (--fail-on-difference)")
        return out

    @property
    def ok(self) -> bool:
        return not self.findings() and not self.problems()


def _quantiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"n": 0, "p50": None, "p75": None, "p90": None, "max": None}
    def q(p):
        return values[min(len(values) - 1, int(p * len(values)))]
    return {"n": len(values), "p50": statistics.median(values), "p75": q(0.75), "p90": q(0.90), "max": values[-1]}


CHUNK_ENTRIES = 256
"""Entries read and handed to the executor at a time (the collection is never held whole)."""


def run_corpus(path: Path, *, seed: int = 0, walks: int = 20, peers: tuple[str, ...] = (), jobs: int = 1,
               scheduler: str | None = None, results: ResultsFile | None = None, progress_out=None,
               limit: int | None = None, fail_on_difference: bool = False) -> CorpusResult:
    """Check every entry of the collection at ``path`` (``limit``: the first ``limit`` only),
    ``CHUNK_ENTRIES`` at a time, as they are read (a JSON-lines file record by record)."""
    options = {"seed": seed, "walks": walks, "peers": list(peers)}
    results = results or ResultsFile(None, {})
    ids = list(islice(entry_ids(path), limit))
    resumed = sum(i in results.records for i in ids)
    progress = Progress(len(ids), progress_out, label="schemas", skipped=resumed, every=0.05)
    progress.describe = lambda r: f"last {r['id'][-40:]}: {r['outcome']}"
    start = time.monotonic()
    records: list[dict] = []
    entries = islice(iter_entries(path), limit)
    while chunk := list(islice(entries, CHUNK_ENTRIES)):
        tasks = [Task(e.id, "harness.differential.corpus.check:check_entry", {**e.payload(), **options})
                 for e in chunk]
        order = {t.key: i for i, t in enumerate(tasks)}
        done = [record for _key, record in run_tasks(tasks, jobs=jobs, scheduler=scheduler, results=results,
                                                      progress=progress)]
        records += sorted(done, key=lambda r: order[r["id"]])
    return CorpusResult(str(path), options, records, time.monotonic() - start, resumed, fail_on_difference)
