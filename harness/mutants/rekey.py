"""Re-key the generated-mutant ids written by hand after an edit to the reference.

cosmic-ray numbers a module's sites of each operator in file order (the N of
``parser.NumberReplacer.N`` counts that operator's sites above it in ``parser.py``), so an
edit above a site renumbers it, and the ids written by hand go stale: ``equivalents.json``
(``triage``), ``harness/suite/strength.py``'s kill table, the docs' mutant logs
(``tests/mutants/test_mutants_generated.py`` names the stale triage entries).

``python -m harness.mutants.rekey REV`` reads the reference as it was at git revision ``REV``,
maps each of its ids to today's site with the same operator and the same changed line
(``id_map``: the k-th of k identical ones to the k-th), and rewrites those ids in the tracked
files that name them. An id with no such site is printed and left alone: its mutant changed,
so its verdict needs a reviewer again. Run it from the checkout, after the edit, before the
commit; ``git diff`` shows what it did.

Example::

    python -m harness.mutants.rekey HEAD      # the working tree's edit to oracles/automaton
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from harness.mutants import generation
from harness.mutants.generation import REFERENCE_DIR


def id_map(old_reference: Path, new_reference: Path = REFERENCE_DIR, *, modules: list[str] | None = None,
           operators: list[str] | None = None) -> dict[str, str]:
    """Old id -> new id, for every old site whose mutant (operator and changed line) is found
    as often in the new reference as in the old; ids that stay the same are included."""
    old = _by_mutation(old_reference, modules, operators)
    new = _by_mutation(new_reference, modules, operators)
    mapping: dict[str, str] = {}
    for key, ids in old.items():
        if len(new.get(key, ())) == len(ids):
            mapping.update(zip(ids, new[key]))
    return mapping


def _by_mutation(reference: Path, modules, operators) -> dict[tuple, list[str]]:
    """(file, operator, line before, line after) -> the ids with that mutation, in site order."""
    found: dict[tuple, list[str]] = collections.defaultdict(list)
    for site in generation.enumerate_sites(modules=modules, operators=operators, reference=reference):
        mutant, _ = generation.build(site, reference)
        if mutant is not None:
            found[(site.file, site.operator, mutant.before, mutant.after)].append(site.id)
    return found


def rewrite(text: str, mapping: dict[str, str], old_ids: set[str]) -> tuple[str, list[str]]:
    """``text`` with each id ``mapping`` knows replaced by its new id (one pass: a new id is
    never mapped again), and the ids of ``old_ids`` it names that ``mapping`` does not know
    (left as they are)."""
    unmapped: list[str] = []

    def new_id(match: re.Match) -> str:
        found = match.group(0)
        if found in mapping:
            return mapping[found]
        if found in old_ids:
            unmapped.append(found)
        return found

    return _ID.sub(new_id, text), unmapped


_ID = re.compile(r"\b[a-z_]+\.[A-Za-z_]+\.\d+\b")


def _reference_at(revision: str, folder: Path, top: Path) -> None:
    """The reference's modules as they were at ``revision`` (of the checkout ``top``), written
    into ``folder``."""
    root = REFERENCE_DIR.relative_to(top)
    for module in generation.reference_modules():
        shown = subprocess.run(["git", "show", f"{revision}:{root.as_posix()}/{module}.py"], capture_output=True,
                               text=True, cwd=top)
        if shown.returncode != 0:
            raise ValueError(f"rekey: {revision}: {shown.stderr.strip() or 'git show failed'}")
        (folder / f"{module}.py").write_text(shown.stdout, encoding="utf-8")


def _toplevel() -> Path:
    """The git checkout the reference is in (ValueError outside one: nothing to compare with)."""
    found = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, cwd=REFERENCE_DIR)
    if found.returncode != 0:
        raise ValueError(f"rekey: {REFERENCE_DIR} is not in a git checkout: {found.stderr.strip()}")
    return Path(found.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m harness.mutants.rekey REV   (the git revision of the reference before the edit)",
              file=sys.stderr)
        return 2
    try:
        top = _toplevel()
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    listed = subprocess.run(["git", "grep", "-lIE", r"[a-z_]+\.[A-Za-z_]+\.[0-9]+"], capture_output=True, text=True,
                            cwd=top).stdout.split()
    texts = {name: (top / name).read_text(encoding="utf-8") for name in listed}
    with tempfile.TemporaryDirectory() as scratch:
        try:
            _reference_at(args[0], Path(scratch), top)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 2
        mapping, old_ids = _map_named(Path(scratch), set().union(*(_ID.findall(t) for t in texts.values())))
    for name, text in texts.items():
        new_text, unmapped = rewrite(text, mapping, old_ids)
        if new_text != text:
            (top / name).write_text(new_text, encoding="utf-8")
            print(f"rewrote {name}")
        for old in dict.fromkeys(unmapped):
            print(f"{name}: {old}: no site of today's reference makes this mutation; triage it again")
    return 0


def _map_named(old_reference: Path, named: set[str]) -> tuple[dict[str, str], set[str]]:
    """The map of the ids ``named`` that are sites of the old reference, and those ids. Only
    the modules the edit changed and the operators named are built (a site is ~35 ms; every
    site of every module, twice, would take minutes)."""
    old_ids = {site.id for site in generation.enumerate_sites(reference=old_reference)} & named
    mapping: dict[str, str] = {}
    for module, operator in sorted({tuple(i.split(".")[:2]) for i in old_ids}):
        if (old_reference / f"{module}.py").read_bytes() == (REFERENCE_DIR / f"{module}.py").read_bytes():
            mapping.update({i: i for i in old_ids if i.startswith(f"{module}.{operator}.")})
            continue
        mapping.update(id_map(old_reference, modules=[module], operators=[operator]))
    return mapping, old_ids


if __name__ == "__main__":
    sys.exit(main())
