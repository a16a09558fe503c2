"""Reading a grader child's result records (``harness.suite.plugin``'s JSON lines) as it writes them.

``ResultReader(path)`` makes a fresh signing key (``key``: 32 random bytes the launcher hands the
child through a pipe, ``harness.run.launch.start_catalogue``, never on disk) and reads the file
incrementally (``read_new``): a torn last line waits for the next read, a line that is not a JSON
object or not signed with the key (``signed``) is counted in ``forged`` and ignored, so a record
anyone else appends to the file changes nothing. It also follows where the child is: ``current``
(the test started and not finished, ``"<load>"`` while the candidate loads), since when, and when
the session's ``finish`` record came (``harness.grading.check``'s watch reads them).
"""

from __future__ import annotations

import hmac
import json
import secrets
import time
from pathlib import Path

__all__ = ["ResultReader", "signed"]


class ResultReader:
    """Reads the result file incrementally; a torn last line waits for the next read."""

    def __init__(self, path: Path):
        self.path = path
        self.key = secrets.token_bytes(32)  # records not signed with it are ignored (forged)
        self.forged = 0
        self.offset = 0
        self.current: str | None = None  # the test started and not finished
        self.current_since = time.monotonic()
        self.finished_at: float | None = None  # when the session's "finish" record came

    def read_new(self) -> list[dict]:
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self.offset += end
        records = []
        for line in data[:end].splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line the candidate scribbled: ignored
            if not isinstance(record, dict) or not signed(record, self.key):
                self.forged += 1
                continue
            records.append(record)
            if record.get("event") == "start":
                self.current, self.current_since = record.get("test"), time.monotonic()
            elif record.get("event") in ("result", "load"):
                self.current = None
            elif record.get("event") == "finish":
                self.finished_at = time.monotonic()
        return records


def signed(record: dict, key: bytes) -> bool:
    """Whether ``record`` carries the grader child's signature (``harness.suite.plugin``); the
    ``"mac"`` field is removed from ``record``."""
    mac = record.pop("mac", None)
    body = json.dumps(record, sort_keys=True, default=str).encode()
    return isinstance(mac, str) and hmac.compare_digest(mac, hmac.new(key, body, "sha256").hexdigest())
