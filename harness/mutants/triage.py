"""The hand triage of generated survivors: ``equivalents.json``, one line of reason each.

Where no machine can decide (a survivor whose corpus fingerprint differs from the
reference's only in ways the contract leaves open, or one the corpus cannot reach), a
reviewer records a verdict:

    {"id": "parser.NumberReplacer.174", "before": "...", "after": "...",
     "equivalent": true, "reason": "one line: why it behaves like the reference"}

``equivalent: false`` records a survivor reviewed as a real gap (the reason names the
strengthening in ``harness/suite/strength.py`` that kills it). ``before``/``after`` are
the changed line as ``GeneratedMutant`` shows it: an entry whose line no longer matches
its mutant is stale and ignored (``verdict`` returns None), so a reference edit can never
silently reuse a verdict for a different mutation; ``tests/mutants/test_mutants_generated.py``
checks every entry still matches.

Example::

    >>> sorted(Verdict.__dataclass_fields__)
    ['after', 'before', 'equivalent', 'id', 'reason']
"""

from __future__ import annotations

import dataclasses
import json
from functools import lru_cache
from pathlib import Path

TRIAGE_FILE = Path(__file__).with_name("equivalents.json")


@dataclasses.dataclass(frozen=True)
class Verdict:
    id: str
    before: str
    after: str
    equivalent: bool
    reason: str


@lru_cache(maxsize=1)
def verdicts(path: Path = TRIAGE_FILE) -> dict[str, Verdict]:
    """The committed verdicts by mutant id (ValueError for a malformed file)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    found: dict[str, Verdict] = {}
    for i, entry in enumerate(data.get("mutants", [])):
        try:
            row = Verdict(**entry)
        except TypeError as exc:
            raise ValueError(f"{path.name}: entry {i}: {exc}") from None
        if not row.reason.strip() or "\n" in row.reason:
            raise ValueError(f"{path.name}: entry {i} ({row.id}): the reason must be one non-empty line")
        if row.id in found:
            raise ValueError(f"{path.name}: {row.id} listed twice")
        found[row.id] = row
    return found


def verdict(mutant) -> Verdict | None:
    """The hand verdict for a generated mutant, or None (none recorded, or stale)."""
    row = verdicts().get(mutant.id)
    if row is None or (row.before, row.after) != (mutant.before, mutant.after):
        return None
    return row
