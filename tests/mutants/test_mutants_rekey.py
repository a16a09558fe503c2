"""``harness.mutants.rekey``: after an edit to the reference renumbers its sites, each old
generated-mutant id is mapped to today's site that makes the same mutation.

The oracle is ``generation.build`` itself: an old site (built from the old text) and the site
it is mapped to (built from today's) must change the same line in the same way."""

from __future__ import annotations

import shutil

import pytest

from harness.mutants import generation, rekey
from harness.mutants.generation import REFERENCE_DIR

PADDING = "def _padding():\n    return 7 + 8\n\n\n"
"""Two numbers more above every site of the module: its NumberReplacer sites shift by two."""


def _old_reference(tmp_path, module: str):
    old = tmp_path / "old"
    shutil.copytree(REFERENCE_DIR, old, ignore=shutil.ignore_patterns("__pycache__"))
    text = (old / f"{module}.py").read_text(encoding="utf-8")
    first = text.index("\ndef ") + 1
    (old / f"{module}.py").write_text(text[:first] + PADDING + text[first:], encoding="utf-8")
    return old


def test_each_old_id_goes_to_the_site_that_makes_the_same_mutation(tmp_path, monkeypatch):
    old = _old_reference(tmp_path, "vocab")
    chosen = {"modules": ["vocab"], "operators": ["NumberReplacer"]}
    old_sites = {s.id: s for s in generation.enumerate_sites(reference=old, **chosen)}
    new_sites = {s.id: s for s in generation.enumerate_sites(**chosen)}
    built = {(old, i): generation.build(s, old) for i, s in old_sites.items()}
    built |= {(REFERENCE_DIR, i): generation.build(s) for i, s in new_sites.items()}
    built_old = {i: built[old, i][0] for i in old_sites}
    built_new = {i: built[REFERENCE_DIR, i][0] for i in new_sites}
    # build is a pure function of the site and the text (~70 ms a site): id_map gets the builds above
    # instead of making each again (2 of the test's 4 CPU s); a site they lack is built as before
    build = generation.build
    monkeypatch.setattr(generation, "build", lambda site, reference=REFERENCE_DIR:
                        built.get((reference, site.id)) or build(site, reference))
    mapping = rekey.id_map(old, **chosen)
    padding = {i for i, m in built_old.items() if m is not None and "7 + 8" in m.before}
    assert padding and len(old_sites) == len(new_sites) + len(padding)
    assert set(mapping.values()) == {i for i, m in built_new.items() if m is not None}  # every kept site, once
    assert not padding & set(mapping)
    for old_id, new_id in mapping.items():
        assert (built_old[old_id].before, built_old[old_id].after) == \
            (built_new[new_id].before, built_new[new_id].after), (old_id, new_id)
    assert sum(old_id != new_id for old_id, new_id in mapping.items()) > 10  # the edit renumbered the sites below it


def test_a_rewrite_replaces_known_ids_once_and_names_the_lost_ones():
    mapping = {"parser.NumberReplacer.3": "parser.NumberReplacer.1",
               "parser.NumberReplacer.1": "parser.NumberReplacer.0"}
    old_ids = set(mapping) | {"parser.NumberReplacer.9"}
    text = "kills parser.NumberReplacer.3, parser.NumberReplacer.1 and parser.NumberReplacer.9; numpy.random.1"
    new, lost = rekey.rewrite(text, mapping, old_ids)
    assert new == "kills parser.NumberReplacer.1, parser.NumberReplacer.0 and parser.NumberReplacer.9; numpy.random.1"
    assert lost == ["parser.NumberReplacer.9"]


@pytest.mark.e2e  # starts processes
def test_the_command_wants_one_revision(capsys):
    assert rekey.main([]) == 2 and "usage" in capsys.readouterr().err
    assert rekey.main(["no-such-revision-of-this-repository"]) == 2
    assert "no-such-revision" in capsys.readouterr().err
