"""What one mutant is (``Mutant``) and the three kinds of runner that can kill it.

Under the catalogue (``harness.mutants.catalogue``), the tool-surface table
(``tools_mutants``) and the patcher (``apply``), which all import it: the catalogue
appends the tool-surface table, so that table cannot import the catalogue back.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from harness.mutants.anchors import Anchor, Edit

CATALOGUE = "catalogue"      # killer kind: a test of harness/suite
REPLAY = "golden replay"     # killer kind: a check of golden replay (constrain_golden.json)
TOOLS_REPLAY = "golden replay --file tools"  # killer kind: a check of golden/tools_replay.py (oracles/tools)


@dataclasses.dataclass(frozen=True)
class Mutant:
    id: str
    stage: str
    pitfall: str                  # one line, with an example input
    killers: tuple[str, ...]      # the catalogue tests (or replay checks) expected to kill it
    edits: tuple[Anchor | Edit, ...]  # anchors for every mutant of the table; a text Edit only in ad-hoc variants
    example: Callable[[Any], Any]  # an answer the mutant changes
    kind: str = CATALOGUE          # which runner kills it: CATALOGUE, REPLAY or TOOLS_REPLAY (oracles/tools)

    @property
    def package(self) -> str:
        """The copy's package name: the id with ``:`` as ``_`` (``mutant_l10_9_s01``)."""
        return f"mutant_{self.id.replace(':', '_')}"
