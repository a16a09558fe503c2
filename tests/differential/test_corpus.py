"""``constrain-harness corpus``: the small collection of ``tests/corpus`` (MaskBench's record layout).

What each entry must come to is stated here from the spec's subset (section 2.5: types,
properties, required, additionalProperties false, items, minItems/maxItems, enum, const,
anyOf, annotations) and its bounds, not from the reference's output: which entries compile,
which keyword a refusal names, how each instance is classed in the spec's reading
(closed objects, declared order, compact JSON). ``jsonschema`` is asked again where an
instance's validity matters. A reference broken on purpose (too wide, too narrow,
crashing) must be caught.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from harness import cli
from harness.differential.corpus import check as corpus_check
from harness.differential.corpus.load import load_entries, source_of
from harness.differential.corpus.runner import run_corpus

CORPUS = Path(__file__).parents[1] / "corpus"

COMPILED = {"bfcl.jsonl:1", "bfcl.jsonl:2", "bfcl.jsonl:3", "github/any_of.json", "github/array_bounds.json",
            "github/const_enum.json", "github/integer_float.json", "github/mislabelled.json", "github/nested.json",
            "github/open_object.json", "github/title_annotation.json", "github/tool_weather.json",
            "github/unicode.json", "kubernetes/int_or_string.json", "kubernetes/pod_meta.json",
            "kubernetes/port.json", "plain/no_tests_record.json", "plain/plain_schema.json"}
REFUSED = {  # entry -> the keyword (or bound) its refusal must name
    "bfcl.jsonl:4": "uniqueItems", "github/additional_schema.json": "additionalProperties",
    "github/any_value.json": "{} (any value)", "github/format.json": "format", "github/min_length.json": "minLength",
    "github/minimum.json": "minimum", "github/one_of.json": "oneOf", "github/pattern.json": "pattern",
    "github/ref.json": "$", "github/type_list.json": "type", "kubernetes/definitions.json": "definitions",
    "kubernetes/large_enum.json": "16 KiB"}


def _main(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def result():
    return run_corpus(CORPUS, walks=12)


def test_every_entry_is_compiled_or_refused_by_name(result):
    by_id = {r["id"]: r for r in result.records}
    assert set(by_id) == COMPILED | set(REFUSED) | {"github/not_json.json"}
    assert {i for i, r in by_id.items() if r["outcome"] == "compiled"} == COMPILED
    for ident, keyword in REFUSED.items():
        assert by_id[ident]["outcome"] == "refused", ident
        assert keyword in by_id[ident]["reason"], (ident, by_id[ident]["reason"])
    assert by_id["kubernetes/large_enum.json"]["reason"].startswith("SchemaTooLarge")
    assert by_id["github/not_json.json"]["outcome"] == "unreadable"
    assert result.outcomes()["crash"] == 0


def test_sources_are_the_folders_and_file_prefixes(result):
    assert set(result.coverage()) == {"bfcl", "github", "kubernetes", "plain"}
    assert source_of(Path("/c/Kubernetes---kb_1.json"), Path("/c")) == "Kubernetes"
    assert source_of(Path("/c/BFCL_java_10.json"), Path("/c")) == "BFCL_java"
    assert source_of(Path("/c/Github_easy/o1.json"), Path("/c")) == "Github_easy"


def test_soundness_and_completeness_in_the_specs_reading(result):
    assert result.findings() == []
    # the collection holds one file that is not JSON: the run fails for it, and says why
    [problem] = result.problems()
    assert problem.startswith("1 input(s) could not be read (github/not_json.json: not JSON") and not result.ok
    sound = result.soundness()
    assert sound["walks"] == 12 * len(COMPILED) and sound["unsound walks"] == 0
    counts = result.instances()
    # valid instances of the compiled schemas, by hand: 26 in the reading (out-of-order ones
    # re-serialised in the declared order), 1 with an undeclared key, 1 integer written 1.0,
    # 1 record labelled valid that jsonschema calls invalid
    assert counts["accepted"] == 26
    assert counts["outside reading"] == 1 and counts["integral float"] == 1 and counts["mislabelled"] == 1
    assert counts["rejected"] == 0 and counts["invalid accepted"] == 0
    assert counts["invalid rejected"] == 18


def test_the_instances_labels_are_jsonschemas():
    entries = {e.id: e for e in load_entries(CORPUS)}
    for ident in COMPILED:
        entry = entries[ident]
        validator = Draft202012Validator(entry.schema)
        wrong = [t["description"] for t in entry.tests if validator.is_valid(t["data"]) != t["valid"]]
        assert wrong == ([] if ident != "github/mislabelled.json" else ["labelled valid, but a string is no integer"])


def test_a_too_wide_reference_is_unsound(monkeypatch):
    real = corpus_check.json_schema_to_regex
    monkeypatch.setattr(corpus_check, "json_schema_to_regex", lambda s: f"(?:{real(s)})|[0-9]")
    result = run_corpus(CORPUS / "kubernetes", walks=12)
    port = next(r for r in result.records if r["id"] == "port.json")
    assert port["unsound"] > 0 and not result.ok
    assert port["unsound_witness"]["doc"].isdigit()


def test_a_too_narrow_reference_is_incomplete(monkeypatch):
    real = corpus_check.json_schema_to_regex
    monkeypatch.setattr(corpus_check, "json_schema_to_regex",
                        lambda s: real(s).replace("[1-9][0-9]*", "[1-9]"))  # integers of one digit only
    result = run_corpus(CORPUS / "kubernetes", walks=4)
    port = next(r for r in result.records if r["id"] == "port.json")
    assert port["instances"]["rejected"] == 1  # 8080
    assert any("8080" in f for f in port["findings"])


def test_a_crash_is_a_finding_and_exit_1(monkeypatch, tmp_path):
    def crash(schema):
        raise RecursionError("maximum recursion depth exceeded")
    monkeypatch.setattr(corpus_check, "json_schema_to_regex", crash)
    code, out, _err = _main("corpus", str(CORPUS / "plain"), "--json", str(tmp_path / "c.json"))
    assert code == 1
    rows = json.loads((tmp_path / "c.json").read_text())["rows"]
    assert {r["status"] for r in rows} == {"failed"} and all("RecursionError" in r["message"] for r in rows)


def test_reports_json_markdown_html(tmp_path):
    paths = {fmt: tmp_path / f"c.{fmt}" for fmt in ("json", "md", "html")}
    code, out, err = _main("corpus", str(CORPUS), "--walks", "3", "--json", str(paths["json"]), "--md",
                           str(paths["md"]), "--html", str(paths["html"]))
    assert code == 1, out + err  # github/not_json.json could not be read: said first
    assert out.startswith("corpus: FAILED: 1 input(s) could not be read (github/not_json.json: not JSON")
    doc = json.loads(paths["json"].read_text())
    assert doc["verb"] == "corpus" and doc["summary"]["coverage"]["kubernetes"] == {"compiled": 3, "refused": 2}
    assert doc["summary"]["refusal_reasons"][0][1] == 1
    assert doc["summary"]["unreadable"][0]["id"] == "github/not_json.json"
    md = paths["md"].read_text()
    assert "**FAILED: 1 input(s) could not be read" in md
    assert "### Refusal reasons (ranked)" in md and "| github | 20 | 10 | 9 | 0 | 1 | 50.0% |" in md
    page = paths["html"].read_text()
    assert "<svg" in page and "<title>github: 10 compiled</title>" in page
    assert "Coverage by source" in out


def test_resume_runs_only_the_unfinished(tmp_path, monkeypatch):
    results = tmp_path / "r.jsonl"
    code, first, _ = _main("corpus", str(CORPUS / "kubernetes"), "--results", str(results))
    assert code == 0 and len(results.read_text().splitlines()) == 1 + 5
    lines = results.read_text().splitlines()
    results.write_text("\n".join(lines[:4]) + "\n")  # two schemas lost
    seen = []
    real = corpus_check.check_entry
    monkeypatch.setattr(corpus_check, "check_entry", lambda p: seen.append(p["id"]) or real(p))
    code, again, _ = _main("corpus", str(CORPUS / "kubernetes"), "--results", str(results), "--resume")
    assert code == 0 and len(seen) == 2
    assert again.splitlines()[-1].split("; ")[:-1] == first.splitlines()[-1].split("; ")[:-1]


@pytest.mark.e2e  # the peers answer from processes of their own
def test_peers_side_by_side(result):
    pytest.importorskip("llguidance")
    pytest.importorskip("outlines_core")
    peered = run_corpus(CORPUS / "kubernetes", walks=2, peers=("llguidance", "outlines-core"))
    rows = peered.peers()
    assert set(rows) == {"llguidance", "outlines-core"}
    for row in rows.values():
        assert row["compiled"] + row["refused"] == 5
        assert row["first_mask"]["n"] == row["compiled"]


def test_bounds_are_the_servers():
    pytest.importorskip("starlette")
    from harness.server.reference import app, decode
    assert corpus_check.MAX_SCHEMA_BYTES == app.MAX_SCHEMA_BYTES
    assert corpus_check.COMPILE_BUDGET_SECONDS == decode.COMPILE_BUDGET_SECONDS


@pytest.mark.parametrize("argv, message", [
    (["/nonexistent"], "does not exist"),
    ([str(CORPUS), "--resume"], "--resume needs a results file"),
    ([str(CORPUS), "--walks", "-1"], "walks"),
    ([str(CORPUS), "--walks", "10001"], "over MAX_WALKS=10000"),
])
def test_bad_arguments_exit_2(argv, message):
    code, out, err = _main("corpus", *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_a_failure_of_the_harness_on_one_entry_is_a_finding_and_the_run_goes_on(monkeypatch):
    def broken(*args):
        raise KeyError("oops")
    monkeypatch.setattr(corpus_check, "_completeness", broken)
    result = run_corpus(CORPUS / "kubernetes", walks=1)
    assert len(result.records) == 5 and not result.ok
    compiled = [r for r in result.records if r["outcome"] == "compiled"]
    assert all(r["findings"] == ["harness error: KeyError: 'oops'"] for r in compiled)


@pytest.mark.e2e  # the peer runs in a child process, which the attack hangs or crashes
@pytest.mark.parametrize("attack, reason", [("sleep", "timeout: no answer within 3 s"),
                                             ("segv", "crash: the process died (SIGSEGV)")])
def test_a_peer_that_hangs_or_crashes_is_ended_and_the_row_says_so(monkeypatch, harness_unchanged, attack, reason):
    from harness.peers import PEERS, isolation
    monkeypatch.setitem(PEERS, "hostile", ("hostile_peer", "Hostile"))
    monkeypatch.setattr(isolation, "EXTRA_PATHS", [str(Path(__file__).parents[1] / "peer_fakes")])
    monkeypatch.setattr(corpus_check, "PEER_TIMEOUT_SECONDS", 3.0)
    peers = corpus_check._peers({"title": attack}, [{"data": 1, "valid": True}], ["hostile"], None)
    row = peers["hostile"]
    assert row["reason"].startswith(reason) and not row["compiled"] and row["version"] == "6.6.6"
    peer = isolation.isolated_peer("hostile", corpus_check._peer_limits())
    assert peer.pid is None  # the failed child was ended and not replaced yet
    later = corpus_check._peers({"type": "integer"}, [], ["hostile"], None)["hostile"]
    assert later["reason"] == "hostile compiles no schema"  # the run goes on with a fresh child
    pid = peer.pid
    isolation.close_all()
    assert not _alive(pid), "the peer's child process was left running"


def _alive(pid: int) -> bool:
    import os
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead; reap it if it is ours
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return False


def test_keywords_outside_the_subset_are_ranked(result):
    by_id = {r["id"]: r for r in result.records}
    assert all(by_id[i]["outside"] == [] for i in COMPILED)  # a compiled schema uses the subset only
    assert by_id["github/ref.json"]["outside"] == ["$defs", "$ref"]
    assert by_id["github/format.json"]["outside"] == ["format"]
    assert by_id["github/additional_schema.json"]["outside"] == ["additionalProperties"]
    assert by_id["kubernetes/definitions.json"]["outside"] == ["definitions"]
    ranked = dict((k, (n, alone)) for k, n, alone in result.keywords_outside())
    assert ranked["format"] == (1, 1) and ranked["$ref"] == (1, 0)
