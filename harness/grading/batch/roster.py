"""Who submitted what, and when: Gradescope's export metadata and a CSV roster.

Two sources, both optional:

- ``submission_metadata.yml``, at the top of a Gradescope export (*Review Grades* >
  *Export Submissions*: one folder per submission, ``submission_12345678/``, and this
  file). Its shape (a YAML mapping written by Ruby, hence the colons in the keys)::

      submission_12345678:
        :submitters:
        - :name: Jane Doe
          :sid: '123456'
          :email: jane@example.edu
          :id: 4242424             # Gradescope's user id, when the export has it (or :user_id:)
        :created_at: 2026-12-01 23:40:12.123456000 -08:00
        :score: 12.0
        ...

  ``read_metadata(path)`` -> {folder name: ``Upload``} (the people, and the time of the
  graded upload). A group submission lists several submitters: each gets the group's
  grade. Unknown keys are ignored; a Ruby object tag (``!ruby/...``) is read as plain
  data; anything but the shape above is a ValueError naming the entry.
- a roster CSV (``--roster F``): a header row, then one row per student. Recognized
  columns, any case, in any order (others are ignored): the name (``name``, ``student``,
  ``full name``, or ``first name`` + ``last name``), the student id (``sid``, ``student
  id``, ``sis user id``), ``email``, and, for the Canvas gradebook, ``section``, Canvas's
  own ``id`` and ``sis login id`` (and Gradescope's ``user id``). A Canvas gradebook
  export or a Gradescope roster export can be given as it is. At least a name, a SID or an
  email column is required.

Identities are checked, never guessed. ``Roster.locate(person)`` finds the roster entry of
one of the metadata's submitters by Gradescope's user id, else the email, else the SID:
a key that names exactly one roster entry (a key two entries share decides nothing). Only
then the display name, which anyone can set to a classmate's: it matches when exactly one
roster entry has it, and the match is ``weak`` (reported as such). A submission without
metadata is found by its folder name (an email, the part of an email before ``@``, a SID,
a user id; a name, weakly). Matching ignores case and surrounding spaces, and Canvas's
"Last, First" is the same name as Gradescope's "First Last" (``name_keys``). Each answer
is a ``Found``: the roster position (None when not on the roster), how it was found, weak
or not. ``harness.grading.batch.course`` lists the weak matches, the roster entries two
submissions map to, the submissions on no roster entry and the entries with no
submission.

Bounds: the metadata file at most ``MAX_METADATA_BYTES`` (its ``:results:`` repeat every
results.json), the roster at most ``MAX_ROSTER_ROWS`` rows; past one, a ValueError.

Example::

    >>> uploads = read_metadata(Path("export/submission_metadata.yml"))
    >>> uploads["submission_1"].people[0].email
    'jane@example.edu'
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from pathlib import Path

from harness.files_in import read_bytes, read_text
from harness.grading.autograder.grading import printable
from harness.grading.batch.late import parse_due
from harness.grading.batch.options import METADATA_NAME

__all__ = ["Person", "Found", "Upload", "Roster", "name_keys", "read_metadata", "read_roster", "METADATA_NAME",
           "MAX_METADATA_BYTES", "MAX_ROSTER_ROWS"]

MAX_METADATA_BYTES = 256 << 20
MAX_ROSTER_ROWS = 20_000
_ROSTER_BYTES = 16 << 20
_COLUMNS = {   # roster field -> header names it is read from (casefolded, spaces squeezed)
    "name": ("name", "student", "student name", "full name"),
    "first": ("first name", "given name"),
    "last": ("last name", "surname", "family name"),
    "sid": ("sid", "student id", "sis user id", "student number"),
    "email": ("email", "e-mail", "email address"),
    "user_id": ("user id", "gradescope id", "gradescope user id"),
    "section": ("section", "sections"),
    "canvas_id": ("id", "canvas id", "canvas user id"),
    "login": ("sis login id", "login id", "login"),
}


@dataclass(frozen=True)
class Person:
    name: str = ""
    sid: str = ""
    email: str = ""
    section: str = ""
    canvas_id: str = ""   # Canvas's own user id (the gradebook's "ID" column), when the roster has it
    login: str = ""       # Canvas's "SIS Login ID", when the roster has it
    user_id: str = ""     # Gradescope's user id, when the metadata or the roster has it

    def label(self) -> str:
        return self.name or self.email or self.sid or "?"

    def keys(self) -> list[str]:
        """The keys this person is known by, most specific first (casefolded; a name in
        both of its orders)."""
        return [k for k in (_key(self.user_id), _key(self.email), _key(self.sid), *name_keys(self.name)) if k]


@dataclass(frozen=True)
class Found:
    """Where one person is on the roster: ``index`` (None: not on it), ``how`` it was found
    (``Gradescope user id``, ``email``, ``SID``, ``folder name``, ``name only``) or why not,
    and ``weak`` when only a display name matched."""

    index: int | None
    how: str
    weak: bool = False


@dataclass(frozen=True)
class Upload:
    people: tuple[Person, ...]
    submitted: datetime | None = None   # aware; None when the metadata has no time


def _key(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def name_keys(name: str) -> tuple[str, ...]:
    """The keys of a display name: casefolded, spaces squeezed, and Canvas's "Last, First"
    also as "first last" (e.g. "Lovelace, Ada" -> ("lovelace, ada", "ada lovelace"))."""
    key = _key(name)
    if not key:
        return ()
    last, comma, first = key.partition(",")
    swapped = _key(f"{first} {last}") if comma and "," not in first and first.strip() and last.strip() else ""
    return (key, swapped) if swapped and swapped != key else (key,)


# --------------------------------------------------------------------------- submission_metadata.yml


def read_metadata(path: Path) -> dict[str, Upload]:
    """{submission folder name: Upload} from a Gradescope export's metadata file."""
    import yaml  # PyYAML: the YAML parser (a core dependency); libyaml's C loader when installed

    raw = read_bytes(path, limit=MAX_METADATA_BYTES)   # a regular file, bounded, read once
    try:
        doc = yaml.load(raw, Loader=_loader())   # a SafeLoader: no Python object is ever built
    except yaml.YAMLError as exc:
        raise ValueError(f"{path.name}: not valid YAML ({_one_line(exc)})") from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ValueError(f"{path.name}: expected a mapping of submission folders, not {type(doc).__name__}")
    return {str(folder): _upload(path.name, str(folder), entry) for folder, entry in doc.items()}


def _loader():
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class MetadataLoader(base):   # Ruby's tags (!ruby/hash:..., !ruby/object:...) read as plain data
        pass

    def plain(loader, suffix, node):
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)
        return loader.construct_scalar(node)

    MetadataLoader.add_multi_constructor("!ruby/", plain)
    return MetadataLoader


def _field(entry: dict, name: str):
    """``entry[':name']`` (Gradescope's Ruby-symbol keys), or ``entry['name']``."""
    return entry.get(f":{name}", entry.get(name))


def _upload(file: str, folder: str, entry) -> Upload:
    where = f"{file}: {printable(folder, 80)}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected a mapping with :submitters:, not {type(entry).__name__}")
    submitters = _field(entry, "submitters")
    if not isinstance(submitters, list) or not all(isinstance(s, dict) for s in submitters):
        raise ValueError(f"{where}: :submitters: must be a list of people (:name:, :sid:, :email:)")
    people = tuple(Person(**{key: _scalar(_field(s, key), f"{where}: :{key}:") for key in ("name", "sid", "email")},
                          user_id=_scalar(_field(s, "id") if _field(s, "id") is not None else _field(s, "user_id"),
                                          f"{where}: :id:"))
                   for s in submitters)
    return Upload(people, _time(_field(entry, "created_at"), where))


def _scalar(value, where: str) -> str:
    """A name, SID or email: text or a number (never a structure: an alias can make one
    that prints exponentially large)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int, float))):
        raise ValueError(f"{where} must be text, not {type(value).__name__}")
    return _text(value)


def _text(value) -> str:
    return "" if value is None else printable(str(value)[:1000], 200).replace("\n", " ").strip()


def _time(value, where: str) -> datetime | None:
    """A submission time: YAML's timestamp (an aware datetime), or its text."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)   # YAML: no zone means UTC
    if isinstance(value, date):
        raise ValueError(f"{where}: :created_at: {value} is a date without a time")
    if not isinstance(value, str):
        raise ValueError(f"{where}: :created_at: must be a time, not {type(value).__name__}")
    text = " ".join(str(value).split())
    date_part, _, rest = text.partition(" ")
    time_part, _, zone = rest.partition(" ")
    if "." in time_part:   # Ruby writes nanoseconds: keep microseconds
        whole, fraction = time_part.split(".", 1)
        time_part = f"{whole}.{fraction[:6]}"
    try:
        return parse_due(f"{date_part}T{time_part}{zone}" if rest else text, ":created_at:")
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


# --------------------------------------------------------------------------- the roster CSV


@dataclass(frozen=True)
class Roster:
    """The students of a roster CSV, found by Gradescope user id, email or SID, and by a
    display name only weakly (module docstring); a folder is also found by the part of an
    email before ``@`` (``jdoe`` for ``jdoe@example.edu``)."""

    people: tuple[Person, ...] = ()
    _index: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    _STRONG = (("user_id", "Gradescope user id"), ("email", "email"), ("sid", "SID"))

    def __post_init__(self):
        for i, person in enumerate(self.people):   # field -> key -> the roster positions with it
            for name in ("user_id", "email", "sid"):
                self._add(name, _key(getattr(person, name)), i)
            self._add("local", _key(person.email.split("@", 1)[0]) if "@" in person.email else "", i)
            for key in name_keys(person.name):
                self._add("name", key, i)

    def _add(self, field_name: str, key: str, i: int) -> None:
        if key:
            self._index.setdefault(field_name, {}).setdefault(key, set()).add(i)

    def _hits(self, field_name: str, keys) -> set[int]:
        index = self._index.get(field_name, {})
        return set().union(*(index.get(k, set()) for k in keys if k))

    def locate(self, person: Person) -> Found:
        """The roster entry of one of the metadata's submitters (module docstring)."""
        for field_name, how in self._STRONG:
            hits = self._hits(field_name, [_key(getattr(person, field_name))])
            if len(hits) == 1:
                return Found(hits.pop(), how)
        return self._by_name(name_keys(person.name))

    def locate_folder(self, entry: str) -> Found:
        """The roster entry a submission folder without metadata is named after."""
        key = _key(entry)
        for field_name, how in (("email", "folder name (email)"), ("local", "folder name (email before @)"),
                                ("sid", "folder name (SID)"), ("user_id", "folder name (user id)")):
            hits = self._hits(field_name, [key])
            if len(hits) == 1:
                return Found(hits.pop(), how)
        return self._by_name(name_keys(entry))

    def _by_name(self, keys) -> Found:
        hits = self._hits("name", keys)
        if len(hits) == 1:
            return Found(hits.pop(), "name only", weak=True)
        if hits:
            return Found(None, f"a name {len(hits)} roster students share: not matched")
        return Found(None, "not on the roster")

    def find(self, key: str) -> Person | None:
        """The person a folder name (or any one key) names, else None."""
        found = self.locate_folder(key)
        return None if found.index is None else self.people[found.index]

    def matches(self, entry: str, upload: Upload | None) -> tuple[tuple[Person, Found], ...]:
        """The students of one submission, each with where it is on the roster: the
        metadata's people completed from the roster (section, Canvas ids), or, without
        metadata, the roster entry the folder is named after."""
        if upload is not None and upload.people:
            out = []
            for person in upload.people:
                found = self.locate(person)
                out.append((self._completed(person, found), found))
            return tuple(out)
        found = self.locate_folder(entry)
        return ((self.people[found.index], found),) if found.index is not None else ()

    def match(self, entry: str, upload: Upload | None) -> tuple[Person, ...]:
        """``matches`` without the ``Found``s."""
        return tuple(person for person, _ in self.matches(entry, upload))

    def _completed(self, person: Person, found: Found) -> Person:
        if found.index is None:
            return person
        entry = self.people[found.index]
        return replace(entry, name=person.name or entry.name, sid=person.sid or entry.sid,
                       email=person.email or entry.email, user_id=person.user_id or entry.user_id)


def read_roster(path: Path) -> Roster:
    """The students of a roster CSV (see the module docstring)."""
    text = read_text(Path(path), limit=_ROSTER_BYTES).lstrip("\ufeff")   # Excel's byte-order mark
    rows = csv.reader(io.StringIO(text, newline=""))
    header = next(rows, None)
    if not header:
        raise ValueError(f"--roster {Path(path).name}: empty (expected a header row: name, SID, email)")
    columns = _columns(header, Path(path).name)
    people = []
    for number, row in enumerate(rows, start=2):
        if number > MAX_ROSTER_ROWS + 1:
            raise ValueError(f"--roster {Path(path).name}: more than {MAX_ROSTER_ROWS} students")
        if not any(cell.strip() for cell in row) or _key(row[0]) == "points possible":   # Canvas's second row
            continue
        cells = {field: _text(row[i]) if i < len(row) else "" for field, i in columns.items()}
        name = cells.pop("name", "") or " ".join(x for x in (cells.pop("first", ""), cells.pop("last", "")) if x)
        cells.pop("first", None), cells.pop("last", None)
        people.append(Person(name=name, **cells))
    return Roster(tuple(people))


def _columns(header: list[str], file: str) -> dict[str, int]:
    names = [_key(h) for h in header]
    columns = {}
    for name, aliases in _COLUMNS.items():
        found = next((i for i, h in enumerate(names) if h in aliases), None)
        if found is not None:
            columns[name] = found
    if not {"name", "first", "last", "sid", "email"} & set(columns):
        raise ValueError(f"--roster {file}: no name, SID or email column in its header "
                         f"({', '.join(printable(h, 40) for h in header[:8])})")
    return columns
