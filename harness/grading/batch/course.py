"""A class's grading loop around ``check --batch``: the roster, the due date, the gradebook,
similar submissions and forced regrades (``--roster``, ``--due``, ``--late-policy``,
``--gradebook``, ``--canvas-gradebook``, ``--regrade``).

``Course.open(options, folder)`` reads what its ``CourseOptions`` name (a ValueError, a usage error,
before anything is graded): the export's ``submission_metadata.yml`` when the folder
holds one (or ``--metadata F``), the ``--roster`` CSV, the due date and late policy;
``course.regrade_targets(submissions)`` resolves each ``--regrade NAME`` (a submission's
folder name, or a student's name, SID or email) to one submission;
``course.annotate(records, submissions)`` returns copies of the records with the roster
fields below (the batch's saved state is never changed: a new ``--due`` or roster applies
at once to a resumed batch); ``course.summary(records)`` is the class-level part of the
JSON report; ``course.write_gradebooks(records, ...)`` writes the gradebooks asked for.

Fields added to a record (only those known): ``name``, ``sid``, ``email`` (a group's
members joined by "; "), ``submitted`` (ISO 8601), ``late`` (``on time``, ``late by 1 d 2
h (2 days started, -20%)``, or ``unknown: no submission time`` when ``--due`` is given but
the upload has no time), ``deduction`` (percent), ``raw_score`` and ``score`` (``--points``
times passed/total, 0 when the submission did not run, minus the deduction) and
``similar`` (``harness.grading.batch.similarity``: ``identical to bob; near-identical to carol
(0.91)``), ``points`` and ``matched`` (how each person was found on the roster, e.g. ``email``
or ``name only (weak)``).

Identities are checked, never guessed (``harness.grading.batch.roster``): ``course.identities(records)``
lists the weak matches (a display name alone), the roster entries two or more submissions
map to (``shared``), the submissions on no roster entry (``unmatched``) and the roster
entries with no submission (``no_submission``); ``identity_lines`` says them in words for
the terminal. The gradebooks never guess: while a roster student two submissions map to,
or a roster student with no submission, is left, ``write_gradebooks`` refuses to write
them (it names those students and the override, and returns False) unless the TA passes
the explicit override: ``--allow-duplicate-students`` writes a row per submission,
``--allow-missing-students`` a row without a score for each student with no submission
(Canvas leaves the cell ungraded). ``gradebook_rows`` itself (what an override writes) gives
a shared student one row without a score, naming the submissions, when duplicates are not
allowed.

Example::

    >>> course = Course.open(CourseOptions(due="2026-12-01T23:59-08:00"), Path("export"))
    >>> course.annotate(records, submissions)[0]["late"]
    'late by 2 h 10 min (1 day started)'
"""

from __future__ import annotations

import difflib
import io
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from harness.grading.batch import gradebook, similarity
from harness.grading.batch.late import LatePolicy, parse_due
from harness.grading.batch.options import CourseOptions
from harness.grading.batch.options import course_arguments as add_arguments  # noqa: F401 - its old name
from harness.grading.batch.roster import METADATA_NAME, Found, Person, Roster, Upload, read_metadata, read_roster
from harness.intake import IntakeError, regular_files
from harness.report import escape

__all__ = ["Course", "add_arguments", "ROSTER_COLUMNS", "roster_columns", "roster_flags", "roster_html",
           "MAX_SOURCE_BYTES", "submission_sources"]

ROSTER_COLUMNS = ("name", "sid", "email", "submitted", "late", "score", "similar")
MAX_SOURCE_BYTES = 4 << 20    # of one student's files read for the similarity (their text, all files together)
_MAX_MODULE_FILES = 500


@dataclass
class Course:
    uploads: dict[str, Upload] = field(default_factory=dict)   # folder name -> the export's metadata
    metadata_path: Path | None = None
    roster: Roster = field(default_factory=Roster)
    roster_path: Path | None = None
    due: datetime | None = None
    policy: LatePolicy = field(default_factory=LatePolicy)
    points: float = 16.0
    regrade: tuple[str, ...] = ()
    outputs: tuple[Path, ...] = ()   # the gradebooks to write
    allow_duplicates: bool = False   # --allow-duplicate-students
    allow_missing: bool = False      # --allow-missing-students
    starter: list[str] | None = None   # --starter DIR: the texts of the course's starter code


    @classmethod
    def open(cls, options: CourseOptions, folder: Path) -> "Course":
        """The course ``options`` describes, its files read and checked (a ValueError naming the option)."""
        course = cls(points=_points(options.points), regrade=tuple(options.regrade),
                     allow_duplicates=bool(options.allow_duplicate_students),
                     allow_missing=bool(options.allow_missing_students))
        metadata = options.metadata
        default = Path(folder) / METADATA_NAME
        if metadata or (default.is_file() and not default.is_symlink()):
            course.metadata_path = Path(metadata or default)
            course.uploads = read_metadata(course.metadata_path)
        if options.roster:
            course.roster_path = Path(options.roster)
            course.roster = read_roster(course.roster_path)
        if options.due:
            course.due = parse_due(options.due)
        if options.late_policy:
            if course.due is None:
                raise ValueError("--late-policy needs --due (the date it measures lateness from)")
            course.policy = LatePolicy.parse(options.late_policy)
        if options.canvas_gradebook:
            gradebook.assignment_column(options.assignment, options.canvas_assignment_id)   # validates both
        if options.starter:
            course.starter = submission_sources(Path(options.starter))
            if course.starter is None:
                raise ValueError(f"--starter {options.starter}: no text file in it (the course's starter code)")
        course.outputs = tuple(Path(p) for p in (options.gradebook, options.canvas_gradebook) if p)
        return course

    @property
    def skip(self) -> frozenset[Path]:
        """Files of the class folder that are the course's, not a submission (the metadata, the gradebooks)."""
        return frozenset(p.resolve() for p in (self.metadata_path, *self.outputs) if p is not None)

    # ----------------------------------------------------------------------- --regrade

    def regrade_targets(self, submissions) -> frozenset[str]:
        """The submissions ``--regrade`` names; a name that matches none, or several, is a ValueError."""
        targets = set()
        for name in self.regrade:
            found = [s.student for s in submissions if self._answers_to(s.student, name)]
            if len(found) != 1:
                choices = [s.student for s in submissions] + [p.label() for s in submissions
                                                              for p in self._people(s.student)]
                near = difflib.get_close_matches(name, choices, n=3)
                raise ValueError(f"--regrade {name!r}: " + (f"matches {len(found)} submissions ({', '.join(found)})"
                                 if found else "no such student or submission")
                                 + (f"; did you mean {', '.join(near)}?" if near and not found else ""))
            targets.add(found[0])
        return frozenset(targets)

    def _answers_to(self, student: str, name: str) -> bool:
        key = " ".join(name.split()).casefold()
        if student.casefold() == key:
            return True
        return any(key in person.keys() for person in self._people(student))

    def _people(self, student: str) -> tuple[Person, ...]:
        return self.roster.match(student, self.uploads.get(student))

    def _matches(self, student: str) -> tuple[tuple[Person, Found], ...]:
        return self.roster.matches(student, self.uploads.get(student))

    # ----------------------------------------------------------------------- identities

    def _identity(self, person: Person, found: Found):
        """Who ``person`` is for the duplicate check: the roster entry, else (no roster, or
        not on it) the metadata's strongest key; None when only a name is known."""
        if found.index is not None:
            return ("roster", found.index)
        key = next((k for k in (person.user_id, person.email, person.sid) if k.strip()), "")
        return ("key", " ".join(key.split()).casefold()) if key else None

    def identities(self, records: list[dict]) -> dict:
        """The identity problems of the class (module docstring), as plain data."""
        checked = bool(self.roster.people)
        weak, unmatched, owners, labels = [], [], {}, {}
        for r in records:
            matches = self._matches(r["student"])
            if (checked or self.uploads) and not matches:
                unmatched.append(r["student"])
            for person, found in matches:
                if found.weak:
                    weak.append(f"{r['student']}: {person.label()} (name only)")
                elif checked and found.index is None:
                    unmatched.append(f"{r['student']}: {person.label()} ({found.how})")
                identity = self._identity(person, found)
                if identity is not None:
                    owners.setdefault(identity, []).append(r["student"])
                    labels.setdefault(identity, self.roster.people[found.index].label() if found.index is not None
                                      else person.label())
        shared = {labels[k]: sorted(set(v)) for k, v in owners.items() if len(set(v)) > 1}
        return {"weak": weak, "shared": shared, "unmatched": unmatched,
                "no_submission": [p.label() for p in self._unsubmitted(records)]}

    def identity_lines(self, records: list[dict]) -> list[str]:
        """The identity problems in words, one line each (nothing when there are none)."""
        found = self.identities(records)
        lines = [f"two or more submissions match {who}: {', '.join(subs)}" + (
            "; written once per submission (--allow-duplicate-students)" if self.allow_duplicates else
            "; no gradebook written (check, then --allow-duplicate-students)")
            for who, subs in found["shared"].items()]
        if found["weak"]:
            lines.append(f"matched by display name only (weak, anyone can set it): {'; '.join(found['weak'])}")
        if found["unmatched"]:
            lines.append(f"not on the roster: {'; '.join(found['unmatched'])}")
        if found["no_submission"]:
            lines.append(f"on the roster, no submission: {', '.join(found['no_submission'])}" + (
                "; no score written for them (--allow-missing-students)" if self.allow_missing else
                "; no gradebook written (check, then --allow-missing-students)"))
        return lines

    # ----------------------------------------------------------------------- the records

    def annotate(self, records: list[dict], submissions) -> list[dict]:
        """Copies of ``records`` (in the order of ``submissions``) with the roster fields."""
        paths = {s.student: s.path for s in submissions}
        flags = similarity.compare({r["student"]: texts for r in records
                                    if (texts := submission_sources(paths.get(r["student"]))) is not None},
                                   starter=self.starter).flags()
        return [self._annotated(r, flags.get(r["student"], "")) for r in records]

    def _annotated(self, record: dict, similar: str) -> dict:
        record = dict(record)
        people = self._people(record["student"])
        upload = self.uploads.get(record["student"])
        for key in ("name", "sid", "email"):
            values = [getattr(p, key) for p in people if getattr(p, key)]
            if values:
                record[key] = "; ".join(values)
        if self.roster.people:
            record["matched"] = "; ".join(found.how + (" (weak)" if found.weak else "")
                                          for _, found in self._matches(record["student"])) or "not on the roster"
        record["points"] = self.points
        if upload is not None and upload.submitted is not None:
            record["submitted"] = upload.submitted.isoformat()
        raw = 0.0 if record.get("problem") else self.points * record["passed"] / max(1, record["total"])
        deduction = 0.0
        if self.due is not None and self.policy.kind != "none":
            if upload is None or upload.submitted is None:
                record["late"] = "unknown: no submission time"
            else:
                lateness = self.policy.assess(upload.submitted, self.due)
                record["late"], deduction = lateness.describe(), lateness.deduction
        record["deduction"] = deduction
        record["raw_score"] = round(raw, 4)
        record["score"] = round(raw * (1 - deduction / 100), 4)
        if similar:
            record["similar"] = similar
        return record

    def summary(self, records: list[dict]) -> dict:
        """The class-level part of the JSON report (key ``course``)."""
        identities = self.identities(records)
        return {"metadata": self.metadata_path.name if self.metadata_path else None,
                "roster": self.roster_path.name if self.roster_path else None,
                "due": self.due.isoformat() if self.due else None,
                "late_policy": self.policy.describe() if self.due else None, "points": self.points,
                "late": sorted(r["student"] for r in records if str(r.get("late", "")).startswith("late")),
                "unmatched": identities["unmatched"], "no_submission": identities["no_submission"],
                "weak_matches": identities["weak"], "shared": identities["shared"],
                "similar": {r["student"]: r["similar"] for r in records if r.get("similar")},
                "similarity_method": f"every file of each submission, packed code unpacked, normalized token hash, "
                                     f"then Jaccard >= {similarity.NEAR:g} over {similarity.K}-grams"
                                     + (", the starter code discounted" if self.starter is not None else "")
                                     + " (harness.grading.batch.similarity)",
                "regraded": list(self.regrade)}

    def _unsubmitted(self, records: list[dict]) -> list[Person]:
        """The roster's students no submission belongs to, in roster order."""
        seen = {found.index for r in records for _, found in self._matches(r["student"])}
        return [p for i, p in enumerate(self.roster.people) if i not in seen]

    # ----------------------------------------------------------------------- the gradebooks

    def gradebook_rows(self, records: list[dict]) -> list[dict]:
        """One row per student: a group's members each; roster students without a submission last."""
        rows, shared, written = [], self._shared(records), set()
        for r in records:
            matches = self._matches(r["student"]) or ((Person(name=r["student"]), Found(None, "")),)
            for person, found in matches:
                identity = self._identity(person, found)
                if identity in shared:   # one row without a score: which submission is theirs is not known
                    if identity not in written:
                        written.add(identity)
                        entry = self.roster.people[found.index] if found.index is not None else person
                        rows.append({"name": entry.name, "sid": entry.sid, "email": entry.email,
                                     "section": entry.section, "canvas_id": entry.canvas_id, "login": entry.login,
                                     "submission": "; ".join(shared[identity]), "score": None,
                                     "verdict": f"not written: {len(shared[identity])} submissions match this "
                                                f"student ({', '.join(shared[identity])})"})
                    continue
                rows.append({"name": person.name, "sid": person.sid, "email": person.email,
                             "section": person.section, "canvas_id": person.canvas_id, "login": person.login,
                             "submission": r["student"], "submitted": r.get("submitted", ""),
                             "late": r.get("late", ""), "deduction": r.get("deduction"),
                             "raw_score": r.get("raw_score"), "score": r.get("score"), "verdict": r["verdict"],
                             "passed": r["passed"], "total": r["total"], "similar": r.get("similar", "")})
        for person in self._unsubmitted(records):
            rows.append({"name": person.name, "sid": person.sid, "email": person.email,
                         "section": person.section, "canvas_id": person.canvas_id, "login": person.login,
                         "verdict": "no submission", "score": None})
        return rows

    def _shared(self, records: list[dict]) -> dict:
        """{identity: submissions} for the roster students two or more submissions match,
        unless ``--allow-duplicate-students``."""
        if self.allow_duplicates:
            return {}
        owners: dict = {}
        for r in records:
            for person, found in self._matches(r["student"]):
                identity = self._identity(person, found)
                if identity is not None:
                    owners.setdefault(identity, set()).add(r["student"])
        return {k: sorted(v) for k, v in owners.items() if len(v) > 1}

    def gradebook_refusals(self, records: list[dict]) -> list[str]:
        """Why the gradebooks may not be written (nothing when they may): the roster students
        two submissions match, unless ``allow_duplicates``, and those with no submission, unless
        ``allow_missing``. Each line names the students and the override that writes anyway."""
        found = self.identities(records)
        refusals = []
        if found["shared"] and not self.allow_duplicates:
            refusals.append("two or more submissions match " + "; ".join(
                f"{who} ({', '.join(subs)})" for who, subs in found["shared"].items())
                + ": which one is theirs is not known (check, then pass --allow-duplicate-students "
                  "to write a row per submission)")
        if found["no_submission"] and not self.allow_missing:
            refusals.append(f"no submission from {', '.join(found['no_submission'])} (check the export and the "
                            f"roster, then pass --allow-missing-students to write them without a score)")
        return refusals

    def write_gradebooks(self, records: list[dict], options: CourseOptions, stderr, announce) -> bool:
        """Write ``options.gradebook`` and ``options.canvas_gradebook`` when asked; False when one could not
        be written or they were refused (``gradebook_refusals``: then none is written, and stderr says why)."""
        rows = self.gradebook_rows(records)
        wanted = [(options.gradebook, lambda: gradebook.plain_csv(rows, self.points)),
                  (options.canvas_gradebook,
                   lambda: gradebook.canvas_csv(rows, options.assignment, options.canvas_assignment_id, self.points))]
        asked = [str(path) for path, _ in wanted if path]
        refusals = self.gradebook_refusals(records) if asked else []
        if refusals:
            for reason in refusals:
                print(f"gradebook not written ({', '.join(asked)}): {escape.terminal(reason)}", file=stderr)
            return False
        ok = True
        for path, render in wanted:
            if not path:
                continue
            try:
                with open(path, "w", newline="", encoding="utf-8") as f:
                    f.write(render())
            except OSError as exc:
                print(f"cannot write {path}: {exc.strerror or exc}", file=stderr)
                ok = False
                continue
            print(f"wrote {path}", file=announce)
        return ok


def _points(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ValueError(f"--points must be a finite number > 0, not {value!r}")
    return float(value)


def submission_sources(path: Path | None) -> list[str] | None:
    """The texts of every file of a submission (a folder's regular files in path order, a
    zip's members, a one-file submission's file) that is UTF-8 text, for the similarity;
    None when there is none. Read as the intake reads (``harness.intake.regular_files``:
    never a link, bounded), at most ``MAX_SOURCE_BYTES`` of text in all."""
    if path is None:
        return None
    texts, size = [], 0
    try:
        for relative, data, _note in regular_files(path):
            for text in _texts(relative, data):
                size += len(text)
                if size > MAX_SOURCE_BYTES:
                    return texts or None
                texts.append(text)
    except IntakeError:   # past an intake bound: what was read so far
        pass
    return texts or None


def _texts(relative: str, data: bytes | None) -> list[str]:
    """``data`` as text, or a zip's members as texts (bounded); [] for anything else."""
    if data is None:
        return []
    if relative.endswith(".zip"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = [m for m in archive.infolist()[:_MAX_MODULE_FILES]
                           if not m.is_dir() and m.file_size <= MAX_SOURCE_BYTES]
                return [t for m in sorted(members, key=lambda m: m.filename)
                        for t in _texts(m.filename, archive.open(m).read(MAX_SOURCE_BYTES + 1)[:MAX_SOURCE_BYTES])
                        if not m.filename.endswith(".zip")]
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError):
            return []
    try:
        return [data.decode("utf-8")]
    except UnicodeDecodeError:
        return []


# --------------------------------------------------------------------------- the class report's columns


def roster_columns(records: list[dict]) -> tuple[str, ...]:
    """The roster columns these records carry (none without a roster, metadata, due date or a similar pair)."""
    return tuple(c for c in ROSTER_COLUMNS if any(r.get(c) not in (None, "") for r in records)
                 and (c != "score" or any(r.get(k) for r in records for k in ("name", "late"))))


def roster_flags(record: dict) -> str:
    """What a TA must not miss, for the one-line formats: ``[late by ...] [identical to bob]``."""
    flags = [record["late"]] if str(record.get("late", "")).startswith(("late", "unknown")) else []
    flags += [record["similar"]] if record.get("similar") else []
    return " ".join(f"[{flag}]" for flag in flags)


def roster_html(doc: dict) -> str:
    """The HTML report's section on the due date, the late and the similar submissions."""
    course = doc.get("course") or {}
    if not course:
        return ""
    esc = escape.html
    lines = ["<h2>Roster, lateness and similar submissions</h2><ul>"]
    if course.get("due"):
        lines.append(f"<li>due {esc(course['due'])}; {esc(course['late_policy'] or '')}; late: "
                     f"{esc(', '.join(course['late']) or 'none')}</li>")
    for key, label in (("unmatched", "not on the roster"), ("no_submission", "on the roster, no submission")):
        if course.get(key):
            lines.append(f"<li>{label}: {esc(', '.join(course[key]))}</li>")
    similar = course.get("similar") or {}
    lines.append("<li>similar submissions (" + esc(course.get("similarity_method", "")) + "): "
                 + (esc("; ".join(f"{s}: {why}" for s, why in similar.items())) if similar else "none") + "</li>")
    return "\n".join(lines + ["</ul>"])
