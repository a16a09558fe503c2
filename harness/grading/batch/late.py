"""The due date and the late policy of ``check --batch`` (``--due``, ``--late-policy``).

``parse_due("2026-12-01T23:59:00-08:00")`` -> an aware ``datetime``; a date-time without
a zone (or a malformed one) is a ValueError: "23:59" means another instant on every
grader's machine, so the zone is required (``Z`` or ``+HH:MM``).

``LatePolicy.parse(text)``: a kind, then optional ``key:value`` items, comma-separated:

- ``flag`` (the default when ``--due`` is given): a late submission is flagged in every
  output, its score is unchanged;
- ``none``: lateness is not looked at (nothing flagged, nothing deducted);
- ``penalty:P``: flagged, and P percent of the assignment's points deducted per day
  late, each day started counting whole (1 minute late = 1 day); ``cap:C`` bounds the
  deduction at C percent (default 100: never below 0 points);
- ``grace:M`` (any kind): M minutes after the due date still count as on time.

``policy.assess(submitted, due)`` -> a ``Lateness``: late or not, by how long, how many
days started, and the percentage deducted. Every value is checked: P in (0, 100], C in
(0, 100], M in [0, 10080] (a week), else a ValueError naming the item.

Example::

    >>> policy = LatePolicy.parse("penalty:10,cap:30,grace:15")
    >>> due = parse_due("2026-12-01T23:59:00-08:00")
    >>> policy.assess(parse_due("2026-12-03T09:00:00-08:00"), due)
    Lateness(late=True, seconds=117960.0, days=2, deduction=20.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["LatePolicy", "Lateness", "parse_due", "KINDS", "MAX_GRACE_MINUTES"]

KINDS = ("none", "flag", "penalty")
MAX_GRACE_MINUTES = 7 * 24 * 60
_DAY = 86_400.0


def parse_due(text: str, what: str = "--due") -> datetime:
    """An ISO 8601 date-time with its zone, e.g. ``2026-12-01T23:59:00-08:00`` or ``...Z``."""
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a string, not {type(text).__name__}")
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"{what} {text!r} is not an ISO 8601 date-time (e.g. 2026-12-01T23:59:00-08:00)") from None
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"{what} {text!r} has no time zone: add one (e.g. -08:00, +01:00 or Z), since the same "
                         f"clock time is another instant in every zone")
    return when


@dataclass(frozen=True)
class Lateness:
    late: bool
    seconds: float = 0.0     # after the due date plus the grace period (0 when on time)
    days: int = 0            # days started: ceil(seconds / 86400)
    deduction: float = 0.0   # percent of the points taken off (0 unless the kind is penalty)

    def describe(self) -> str:
        """e.g. ``late by 1 d 8 h (2 days started, -20%)`` or ``on time``."""
        if not self.late:
            return "on time"
        hours = int(self.seconds // 3600)
        span = f"{hours // 24} d {hours % 24} h" if hours >= 24 else f"{hours} h {int(self.seconds % 3600 // 60)} min"
        penalty = f", -{self.deduction:g}%" if self.deduction else ""
        return f"late by {span} ({self.days} day{'s' if self.days != 1 else ''} started{penalty})"


@dataclass(frozen=True)
class LatePolicy:
    kind: str = "flag"
    percent_per_day: float = 0.0
    cap: float = 100.0
    grace_minutes: float = 0.0

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"--late-policy: the kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "penalty" and not 0 < self.percent_per_day <= 100:
            raise ValueError(f"--late-policy: penalty must be a percentage in (0, 100], not {self.percent_per_day:g}")
        if not 0 < self.cap <= 100:
            raise ValueError(f"--late-policy: cap must be a percentage in (0, 100], not {self.cap:g}")
        if not 0 <= self.grace_minutes <= MAX_GRACE_MINUTES:
            raise ValueError(f"--late-policy: grace must be in [0, {MAX_GRACE_MINUTES}] minutes, "
                             f"not {self.grace_minutes:g}")

    @classmethod
    def parse(cls, text: str) -> "LatePolicy":
        items = [item.strip() for item in str(text).split(",")]
        head, _, value = items[0].partition(":")
        fields: dict = {"kind": head.strip().lower()}
        if fields["kind"] == "penalty":
            fields["percent_per_day"] = _number(value, "penalty")
        elif value:
            raise ValueError(f"--late-policy: {head!r} takes no value (only penalty:P does)")
        for item in items[1:]:
            key, sep, value = item.partition(":")
            key = key.strip().lower()
            if key not in ("cap", "grace") or not sep:
                raise ValueError(f"--late-policy: unknown item {item!r} (expected cap:C or grace:MINUTES)")
            if key == "cap" and fields["kind"] != "penalty":
                raise ValueError("--late-policy: cap:C applies only to penalty:P")
            fields["cap" if key == "cap" else "grace_minutes"] = _number(value, key)
        return cls(**fields)

    def describe(self) -> str:
        grace = f", {self.grace_minutes:g} min grace" if self.grace_minutes else ""
        if self.kind == "none":
            return "late policy none: lateness is not looked at"
        if self.kind == "flag":
            return f"late policy flag: late submissions are flagged, scores unchanged{grace}"
        return (f"late policy penalty: -{self.percent_per_day:g}% of the points per day started, at most "
                f"-{self.cap:g}%{grace}")

    def assess(self, submitted: datetime, due: datetime) -> Lateness:
        """How late ``submitted`` is against ``due`` (both aware), under this policy."""
        if self.kind == "none":
            return Lateness(False)
        seconds = (submitted - due - timedelta(minutes=self.grace_minutes)).total_seconds()
        if seconds <= 0:
            return Lateness(False)
        days = math.ceil(seconds / _DAY)
        deduction = min(self.cap, self.percent_per_day * days) if self.kind == "penalty" else 0.0
        return Lateness(True, seconds, days, deduction)


def _number(text: str, what: str) -> float:
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise ValueError(f"--late-policy: {what} needs a number, not {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"--late-policy: {what} must be finite, not {text!r}")
    return value
