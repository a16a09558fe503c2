"""Findings about peers: a refusal of a valid input is one unless the engine's own error
calls the construct unsupported (``harness.peers.findings``), listed apart in the reports."""

from __future__ import annotations

import pytest

from harness.peers.base import Compiled, Peer, PeerRefused, Source
from harness.peers.cases import Case
from harness.peers.compare import compare, report_json, report_markdown
from harness.peers.findings import FAILED_ON_VALID, is_unsupported
from tests.support.helpers import peer_or_skip

# the engines' own words, copied from their errors (the release each came from in the comment)
UNSUPPORTED = [
    "interegular refused '(a)\\\\1': Unsupported: Group references are not implemented",  # interegular 0.3.3
    "error: backreferences are not supported",                                          # llguidance 1.9.1
    "error: look-around, including look-ahead and look-behind, is not supported",       # llguidance 1.9.1
    'Unimplemented keys: ["format"]',                                                   # llguidance
    "Unsupported JSON Schema structure {\"if\": ...}",                                  # outlines-core
]
NOT_UNSUPPORTED = [
    "Failed to build DFA error building NFA",                                           # outlines-core 0.2.14
    "regex parse error: a{,3} error: repetition quantifier expects a valid decimal",    # llguidance 1.9.1
    "interegular refused '\\\\0': InvalidSyntax:",                                       # interegular 0.3.3
    "",
]


@pytest.mark.parametrize("message", UNSUPPORTED)
def test_an_engine_that_says_unsupported_is_believed(message):
    assert is_unsupported(message)


@pytest.mark.parametrize("message", NOT_UNSUPPORTED)
def test_any_other_refusal_is_not_excused(message):
    assert not is_unsupported(message)


class _Refuser(Peer):
    """Refuses every pattern with the words it is given; never answers anything else."""

    version = "1.0"

    def __init__(self, name, words):
        self.name, self.words = name, words

    def compile_regex(self, pattern) -> Compiled:
        raise PeerRefused(f"{self.words} ({pattern})")


def _cases():
    return [Case(Source.regex("a|b"), doc=d) for d in (b"a", b"b", b"c")] + [Case(Source.regex("x+"), doc=b"xx")]


def test_a_refusal_of_what_ours_compiles_is_a_finding_once_per_input():
    [result] = compare([_Refuser("broken", "Failed to build DFA")], _cases())
    assert [(f.kind, f.source.text, f.op, f.peer, f.version) for f in result.findings] == [
        (FAILED_ON_VALID, "a|b", "compile", "broken", "1.0"), (FAILED_ON_VALID, "x+", "compile", "broken", "1.0")]
    assert result.findings[0].oracles == {"valid": "ours compiles it"}
    assert result.checks == 0 and result.skipped["peer failed on this input before"] == 2
    md = report_markdown([result], {}, {})
    assert "failed on valid input during compile of regex 'a|b'" in md


def test_a_refusal_the_engine_calls_unsupported_is_listed_apart_and_is_no_finding():
    [result] = compare([_Refuser("honest", "look-around is not supported")], _cases())
    assert result.findings == [] and result.skipped["peer: unsupported"] == 4
    assert [(src.text, why) for src, why in result.unsupported] == [
        ("a|b", "look-around is not supported (a|b)"), ("x+", "look-around is not supported (x+)")]
    report = report_json([result], {}, {})["peers"]["honest"]
    assert report["unsupported"][0] == {"kind": "regex", "input": "a|b",
                                        "peer_says": "look-around is not supported (a|b)"}
    assert "Refused as unsupported, in the engine's own words: 2" in report_markdown([result], {}, {})


@pytest.mark.parametrize("name, pattern, kind", [
    ("llguidance", "\\0", "unsupported"),          # "backreferences are not supported" (Rust regex)
    ("llguidance", "a{,3}", FAILED_ON_VALID),      # Python's {,n} is {0,n}; the parse error names nothing unsupported
    ("outlines-core", "a{,3}", FAILED_ON_VALID),   # "Failed to build DFA error building NFA"
])
@pytest.mark.e2e  # the peers answer from processes of their own
def test_real_refusals_are_judged_by_their_own_words(name, pattern, kind):
    from harness.peers.isolation import isolated_peer
    peer_or_skip(name)
    [result] = compare([isolated_peer(name)], [Case(Source.regex(pattern), doc=b"a")])
    if kind == "unsupported":
        assert result.findings == [] and len(result.unsupported) == 1
    else:
        assert [f.kind for f in result.findings] == [kind] and result.findings[0].version == isolated_peer(name).version


def test_where_no_oracle_judges_the_peers_judge_each_other():
    from harness.peers.compare import majority_findings

    source = Source.regex("\\p{L}+")  # Python's re refuses \p: neither ours nor the judge answers
    case = Case(source, doc=b"abc", origin="given")
    other = Case(source, doc=b"a1", origin="given")
    unjudged = {case: {"p": ("1", True), "q": ("2", True), "r": ("3", False)},
                other: {"p": ("1", True), "q": ("2", False)}}  # two peers: no majority
    [f] = majority_findings(unjudged)
    assert (f.peer, f.version, f.kind, f.witness, f.oracles) == ("r", "3", "wrong answer", b"abc",
                                                                  {"majority of peers": True})
