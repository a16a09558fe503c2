"""No silent pass, and findings a maintainer can paste: JSON-lines collections streamed
record by record, runs that read nothing or could not read an input fail and say so first,
``--fail-on-difference`` / ``--fail-on-unexplained``, and every finding as a reproducer whose
snippet shows it with the engine alone."""

from __future__ import annotations

import ast
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.differential.corpus.load import MAX_RECORD_BYTES
from harness.differential.corpus.runner import run_corpus
from harness.peers import PEERS, isolation
from harness.peers.base import Source
from harness.peers.findings import WRONG_ANSWER, Finding
from harness.peers.reproduce import reproducer, snippet
from tests.support.helpers import peer_or_skip

HARNESS_DIGEST_BYTECODE = False
FAKES = str(Path(__file__).parents[1] / "peer_fakes")
SMALL = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def _main(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _record(i: int, padding: int = 0) -> str:
    tests = [{"description": "x" * padding, "data": {"n": i}, "valid": True}, {"data": {}, "valid": False}]
    return json.dumps({"schema": SMALL, "tests": tests, "meta": {"i": i}})


def test_a_json_lines_file_over_16_mib_is_streamed_and_every_record_checked(tmp_path):
    path = tmp_path / "big.jsonl"
    with path.open("w") as out:
        for i in range(40):  # three records of 6 MiB among small ones: 18 MiB in all
            out.write(_record(i, 6 << 20 if i in (3, 20, 37) else 0) + "\n")
    assert path.stat().st_size > MAX_RECORD_BYTES
    result = run_corpus(path, walks=1)
    assert [r["id"] for r in result.records] == [f"big.jsonl:{n}" for n in range(1, 41)]
    assert all(r["outcome"] == "compiled" for r in result.records)
    assert result.instances()["accepted"] == 40 and result.instances()["invalid rejected"] == 40
    assert result.ok and result.problems() == []


def test_a_record_over_the_bound_is_unreadable_and_the_run_fails_saying_so_first(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_text(_record(1) + "\n" + _record(2, MAX_RECORD_BYTES) + "\n" + _record(3) + "\n")
    code, out, err = _main("corpus", str(path), "--walks", "1")
    assert code == 1, err
    assert out.splitlines()[0] == ("corpus: FAILED: 1 input(s) could not be read (long.jsonl:2: unreadable: the "
                                   "record is over MAX_RECORD_BYTES (16 MiB))")
    assert "2 compiled" in out  # the records before and after it were checked


def test_a_run_that_checked_nothing_fails_and_says_so_first(tmp_path):
    (tmp_path / "refused.json").write_text(json.dumps({"type": "string", "format": "email"}))
    code, out, _ = _main("corpus", str(tmp_path))
    assert code == 1 and out.startswith("corpus: FAILED: nothing was checked: none of the 1 schema(s) compiled")
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, _ = _main("corpus", str(empty))
    assert code == 1 and out.startswith("corpus: FAILED: nothing was checked: none of the 0 schema(s)")


@pytest.fixture
def stand_ins(monkeypatch, harness_unchanged):
    monkeypatch.setitem(PEERS, "hostile", ("hostile_peer", "Hostile"))
    monkeypatch.setitem(PEERS, "wrong", ("wrong_peer", "Wrong"))
    monkeypatch.setattr(isolation, "EXTRA_PATHS", [FAKES])
    yield
    isolation.close_all()


@pytest.mark.e2e  # the peers answer from processes of their own
def test_corpus_fail_on_difference(stand_ins, tmp_path):
    (tmp_path / "raise.json").write_text(json.dumps({"title": "raise", "type": "integer"}))
    code, out, err = _main("corpus", str(tmp_path), "--peers", "hostile")
    assert code == 0, out + err  # a peer's failure alone does not fail the run...
    assert "peer finding: raise.json: hostile 6.6.6: raised: RuntimeError: the engine's own bug" in out
    code, out, err = _main("corpus", str(tmp_path), "--peers", "hostile", "--fail-on-difference")
    assert code == 1 and out.startswith("corpus: FAILED: 1 peer finding(s) (--fail-on-difference)")
    # the finding in full: its reproducer (the engine, version, input, what the oracles and it say)
    assert "reproducer (raise.json):\n  hostile 6.6.6: raised during compile of schema" in out
    assert "oracles: valid: ours compiles it" in out and "engine: RuntimeError: the engine's own bug" in out


@pytest.mark.e2e  # the peers answer from processes of their own
def test_a_corpus_difference_has_its_reproducer_with_the_witness_as_bytes(stand_ins, tmp_path):
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^\x7f+$"}}, "required": ["s"]}
    (tmp_path / "del.json").write_text(json.dumps(schema))
    report = tmp_path / "r.json"
    code, out, err = _main("corpus", str(tmp_path), "--peers", "wrong", "--json", str(report), "--md",
                           str(tmp_path / "r.md"))
    [entry] = json.loads(report.read_text())["summary"]["peer_reproducers"]
    text = entry["reproducer"]
    assert entry["peer"] == "wrong" and text.startswith("wrong 0.0.1: wrong answer during accepts of schema")
    witness = text.split("witness (bytes): ")[1].split("\n")[0]
    assert "\\x7f" in witness and "oracles: jsonschema: True" in text and "engine: rejects" in text
    from harness.peers.given import judge
    assert judge(Source.schema(schema)).accepts(ast.literal_eval(witness))  # bytes the oracle accepts
    assert "### Peer findings, each with its reproducer: 1" in (tmp_path / "r.md").read_text()


@pytest.mark.e2e  # the peers answer from processes of their own
def test_sweep_fail_on_difference(stand_ins):
    code, out, err = _main("sweep", "--max-size", "1", "--dot", "--peers", "wrong")
    assert code == 0, err
    assert "peer wrong 0.0.1 differs (not a failure of ours): '.' on b'\\x7f'" in out
    code, out, err = _main("sweep", "--max-size", "1", "--dot", "--peers", "wrong", "--fail-on-difference")
    assert code == 1 and out.startswith("sweep: FAILED: 1 peer difference(s) (--fail-on-difference)")


@pytest.mark.e2e  # the peers answer from processes of their own
def test_compare_fails_on_a_finding_with_fail_on_unexplained(stand_ins, tmp_path):
    code, out, err = _main("compare", "--peers", "hostile", "--regex", "raise|a", "--fail-on-unexplained")
    assert code == 1 and "1 finding(s)" in err
    assert "hostile 6.6.6: raised during compile of regex 'raise|a'" in out
    assert _main("compare", "--peers", "hostile", "--regex", "raise|a")[0] == 0


def _run_snippet(lines: list[str]) -> str:
    done = subprocess.run([sys.executable, "-c", "\n".join(lines)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("name, pattern, witness", [
    ("outlines-core", "0(x5)?", b"0x5"), ("outlines-core", "[^\\]]*", "\u00e9".encode()),
    ("outlines-core", "a|b", b"b"), ("llguidance", "[^\\]]*", "\u00e9".encode()), ("llguidance", "a|ab", b"ab"),
    ("interegular", "x{2,3}", b"xxx"),
])
@pytest.mark.e2e  # the peers answer from processes of their own
def test_the_snippet_shows_the_engines_own_answer_with_the_engine_alone(name, pattern, witness):
    peer = peer_or_skip(name)
    f = Finding(name, peer.version, WRONG_ANSWER, Source.regex(pattern), "accepts", "?", witness, {"ours": True})
    lines = snippet(f)
    assert len(lines) <= 5 and not any("harness" in line for line in lines)
    assert _run_snippet(lines) == str(peer.compile_regex(pattern).accepts(witness))
    text = reproducer(f)
    assert f"{name} {peer.version}: wrong answer during accepts of regex {pattern!r}" in text
    assert f"witness (bytes): {witness!r}" in text and "oracles: ours: True" in text


@pytest.mark.e2e  # the peers answer from processes of their own
def test_a_compile_failure_snippet_shows_the_engines_error():
    peer = peer_or_skip("outlines-core")
    f = Finding("outlines-core", peer.version, "failed on valid input", Source.regex("a{,3}"), "compile", "refused")
    done = subprocess.run([sys.executable, "-c", "\n".join(snippet(f))], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Failed to build DFA" in done.stderr


@pytest.mark.e2e  # the peers answer from processes of their own
def test_corpus_asks_the_peers_generated_documents_beyond_the_records_instances(stand_ins):
    import numpy as np

    from harness.differential.corpus import check as corpus_check
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^\x7f+$"}}, "required": ["s"]}
    # ours refuses the pattern: drawn instances judged by jsonschema; the stand-in's raw-DEL bug shows
    row = corpus_check._peers(schema, [], ["wrong"], None, np.random.default_rng(0))["wrong"]
    assert row["compiled"] and row["differences"] > 0
    assert "\x7f" in row["difference"]["doc"] and row["difference"]["ours"] is True
    # where ours compiles: walks and their edits, compared only where ours and jsonschema agree
    compiled = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    dfa = corpus_check._compile(compiled, {"findings": []})
    docs = corpus_check.generated_documents(compiled, dfa, np.random.default_rng(0))
    assert sum(dfa.matches(d) for d in docs) >= 4 and any(not dfa.matches(d) for d in docs)
    assert corpus_check._peers(compiled, [], ["wrong"], dfa, np.random.default_rng(0))["wrong"]["differences"] == 0


def test_a_mask_finding_has_no_misleading_snippet():
    f = Finding("outlines-core", "0.2.14", WRONG_ANSWER, Source.regex("ab"), "mask", "refuses token 1", b"a")
    assert snippet(f) is None and "snippet" not in reproducer(f) and "refuses token 1" in reproducer(f)


MASK_CASES = [("outlines-core", "0(x5)?", b"0", b"x5"), ("outlines-core", "[a-z]+", b"ab", b"c"),
              ("outlines-core", "ab", b"ab", None), ("outlines-core", "ab", b"a", None),
              ("llguidance", "a|ab", b"a", b"b"), ("llguidance", "[a-z]+", b"", b"x!z"),
              ("llguidance", "ab", b"ab", None)]


@pytest.mark.parametrize("name, pattern, prefix, token", MASK_CASES)
@pytest.mark.e2e  # the peers answer from processes of their own
def test_a_mask_findings_snippet_shows_the_engines_own_mask_with_the_engine_alone(name, pattern, prefix, token):
    peer = peer_or_skip(name)
    f = Finding(name, peer.version, WRONG_ANSWER, Source.regex(pattern), "mask", "?", prefix + (token or b""),
                {"regex partial match on text (every token)": True}, prefix=prefix, token=token, token_id=99,
                vocabulary="cl100k_base, 100277 ids, EOS 100257")
    lines = snippet(f)
    assert len(lines) <= 5 and not any("harness" in line for line in lines)
    # the adapter over the snippet's vocabulary: the 256 bytes, EOS 256, the token 257
    vocab = [bytes([b]) for b in range(256)] + [None, token or b"\x00"]
    allowed = peer.compile_regex(pattern).masker(vocab, 256).allowed(list(prefix))
    want = allowed[256] if token is None else allowed[257] if len(token) > 1 else allowed[token[0]]
    assert _run_snippet(lines) == str(bool(want))
    text = reproducer(f)
    assert f"prefix (bytes): {prefix!r}" in text and "over cl100k_base, 100277 ids, EOS 100257" in text
    assert ("EOS, over" in text) if token is None else (f"token 99: {token!r}" in text)


def test_a_mask_disagreement_ours_judges_becomes_a_finding_with_its_prefix_and_token():
    import dataclasses

    from harness.peers.cases import Case
    from harness.peers.compare import Disagreement, wrong_answer
    case = Case(Source.regex("abc"), vocab=(b"a", b"bc", None, b"<eos>"), eos_id=3, prefix=(0,), origin="given")
    d = Disagreement("outlines-core", "unexplained", "no known design", case, True, False, token=1)
    f = wrong_answer(d, "0.2.14")
    assert (f.op, f.prefix, f.token, f.token_id, f.witness) == ("mask", b"a", b"bc", 1, b"abc")
    assert f.vocabulary == "a vocabulary of 4 ids, EOS 3" and f.to_json()["token"] == list(b"bc")
    assert f.oracles == {"ours": True} and "refuses token 1 (b'bc') after b'a'" in f.engine
    eos = wrong_answer(dataclasses.replace(d, token=3, ours=False, theirs=True), "0.2.14")
    assert eos.token is None and eos.token_id == 3 and "  EOS, over a vocabulary of 4 ids" in reproducer(eos)
