"""The exhaustive sweep (``constrain-harness sweep``): enumeration, agreement, and that it catches.

The enumeration is checked against a naive one written here (every tree, every split,
every operand wrapped in a group, no deduplication): the languages the deduplicated
sweep covers, judged by Python's ``re`` on every string, are exactly the naive ones. A
sweep of size <= 4 (and the schema grammar at depth 1) must agree; a reference or mask
index broken on purpose must be caught with its minimal witness.
"""

from __future__ import annotations

import io
import json
import re
from itertools import product

import numpy as np
import pytest

from harness import cli
from harness.differential.sweep import patterns as sweep_patterns
from harness.differential.sweep import schemas as sweep_schemas
from harness.differential.sweep.enumerate import Grammar, patterns_by_size, string_alphabet
from harness.differential.sweep.runner import SweepOptions, run_sweep
from harness.fanout.results import ResultsFile
from oracles.automaton import TokenIndex, regex_to_dfa


def _main(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


# --- enumeration --------------------------------------------------------------------------

def _naive(max_size: int) -> set[str]:
    """Every tree over {a, b} with concat, |, *, +, ? up to max_size, each operand in a group."""
    by_size: dict[int, list[str]] = {1: ["a", "b"]}
    for n in range(2, max_size + 1):
        level = [f"(?:{t}){op}" for t in by_size[n - 1] for op in "*+?"]
        for k in range(1, n - 1):
            for left, right in product(by_size[k], by_size[n - 1 - k]):
                level += [f"(?:{left})(?:{right})", f"(?:{left})|(?:{right})"]
        by_size[n] = level
    return {p for level in by_size.values() for p in level}


def _language(pattern: str, strings: list[bytes]) -> tuple[bool, ...]:
    compiled = re.compile(pattern.encode())
    return tuple(compiled.fullmatch(s) is not None for s in strings)


def test_dedup_keeps_every_language_of_the_naive_enumeration():
    strings = sweep_patterns.strings_up_to(b"ab", 4)
    ours = [p for level in patterns_by_size(Grammar(), 4).values() for p in level]
    assert len(ours) == len(set(ours)), "a pattern text is produced twice"
    naive = _naive(4)
    assert len(naive) > len(ours)  # the deduplication does save work (b|a, (?:ab)c, a|a)
    assert {_language(p, strings) for p in ours} == {_language(p, strings) for p in naive}


def test_sizes_count_atoms_and_operators():
    by_size = patterns_by_size(Grammar(), 3)
    assert by_size[1] == ["a", "b"]
    assert by_size[2] == ["a*", "b*", "a+", "b+", "a?", "b?"]
    assert {"ab", "ba", "a|b", "(?:a*)*", "aa"} <= set(by_size[3])
    assert "b|a" not in by_size[3] and "a|a" not in by_size[3]  # commutative, idempotent


def test_grammar_options_add_atoms_and_operators():
    grammar = Grammar(classes=True, dot=True, escapes=True, empty=True, operators=("concat", "{2}", "()"))
    atoms = patterns_by_size(grammar, 1)[1]
    assert {"[ab]", "[^a]", "[^ab]", ".", "\\d", "\\S", ""} <= set(atoms)
    assert {"a{2}", "(a)", "(?:){2}", "a(?:)"} <= set(patterns_by_size(grammar, 3)[2] + patterns_by_size(grammar, 3)[3])
    assert string_alphabet(grammar) == b"ab\nc"


@pytest.mark.parametrize("bad", [dict(alphabet=b"aa"), dict(alphabet=b""), dict(alphabet=b"a b"),
                                 dict(operators=("**",)), dict(operators=())])
def test_bad_grammars_are_refused(bad):
    with pytest.raises(ValueError):
        Grammar(**bad)


def test_star_height_picks_the_third_opinion():
    assert sweep_patterns._star_height("a*b*") == 1
    assert sweep_patterns._star_height("(?:ab?)*") == 1  # ? repeats at most once
    assert sweep_patterns._star_height("(?:a*)*") == 2
    assert sweep_patterns._star_height("(?:(?:a+)|b)*c") == 2


# --- the sweep agrees ----------------------------------------------------------------------

def test_sweep_up_to_size_4_agrees():
    code, out, err = _main("sweep", "--max-size", "4", "--max-len", "5")
    assert code == 0, out + err
    expected = sum(len(v) for v in patterns_by_size(Grammar(), 4).values())
    assert f"all {expected} patterns of size <= 4 over {{a,b}}, strings up to 5: agree" in out
    for size, n in {1: 2, 2: 6, 3: 23, 4: 105}.items():
        assert f"size  {size}: {n:>8} patterns" in out


def test_sweep_with_classes_dot_escapes_and_empty_agrees():
    code, out, err = _main("sweep", "--max-size", "2", "--max-len", "3", "--classes", "--dot", "--escapes", "--empty",
                           "--ops", "concat,|,*,{0,2},()")
    assert code == 0, out + err
    assert ": agree" in out


def test_schema_sweep_agrees_with_jsonschema(tmp_path):
    report = tmp_path / "s.json"
    code, out, err = _main("sweep", "--schemas", "--max-depth", "1", "--json", str(report))
    assert code == 0, out + err
    summary = json.loads(report.read_text())["summary"]
    depth1 = summary["levels"]["1"]
    assert depth1["items"] == len(sweep_schemas.schemas_by_depth(1)[1])
    assert depth1["instances"]["valid"] > 100 and depth1["instances"]["invalid"] > 100
    assert depth1["instances"]["extra key"] > 0  # the closed reading, counted, not compared
    assert depth1["walks"] == depth1["items"] * sweep_schemas.WALKS


# --- the sweep catches --------------------------------------------------------------------

def test_a_wrong_reference_is_caught_with_its_minimal_witness(monkeypatch):
    real = regex_to_dfa
    monkeypatch.setattr(sweep_patterns, "regex_to_dfa", lambda p: real(p.replace("+", "*")))  # a+ takes b""
    result = run_sweep(SweepOptions(max_size=3, max_len=4))
    assert not result.ok
    found = {d["pattern"]: d for d in result.disagreements}
    assert found["a+"]["check"] == "tables" and found["a+"]["witness"] == repr(b"")
    assert found["a+"]["answers"] == {"reference": True, "derivatives": False}
    code_rows = [d for d in result.disagreements if "+" not in d["pattern"]]
    assert code_rows == []  # nothing else is blamed


def test_a_wrong_mask_index_is_caught(monkeypatch):
    class NoEos(TokenIndex):
        def mask(self, state):
            row = np.array(super().mask(state))
            row[self.eos_id] = False
            return row

    monkeypatch.setattr(sweep_patterns, "TokenIndex", NoEos)
    monkeypatch.setattr(sweep_patterns, "_CACHE", type(sweep_patterns._CACHE)())
    result = run_sweep(SweepOptions(max_size=1, max_len=2))
    kinds = {(d["pattern"], d["check"], d["witness"]) for d in result.disagreements}
    assert kinds == {("a", "mask", repr(b"a")), ("b", "mask", repr(b"b"))}


def test_a_schema_compiler_too_wide_is_caught(monkeypatch):
    real = sweep_schemas.json_schema_to_regex
    monkeypatch.setattr(sweep_schemas, "json_schema_to_regex", lambda s: f"(?:{real(s)})|0")
    result = run_sweep(SweepOptions(schemas=True, max_depth=0))
    witnesses = {(json.dumps(d["schema"]), d["witness"]) for d in result.disagreements if d["check"] == "instance"}
    assert ('{"type": "string"}', repr(b"0")) in witnesses
    assert ('{"type": "integer"}', repr(b"0")) not in witnesses  # 0 is an integer: no disagreement


# --- resume, arguments ------------------------------------------------------------------------

def test_resume_reuses_finished_chunks_and_drops_a_torn_line(tmp_path, monkeypatch):
    path = tmp_path / "r.jsonl"
    code, first, _ = _main("sweep", "--max-size", "3", "--results", str(path))
    assert code == 0
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 3  # the header, one chunk per size
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20])  # the last record torn
    calls = []
    real = sweep_patterns.check_patterns
    monkeypatch.setattr(sweep_patterns, "check_patterns", lambda payload: calls.append(payload["size"]) or
                        real(payload))
    code, again, _ = _main("sweep", "--max-size", "3", "--results", str(path), "--resume")
    assert code == 0 and calls == [3]  # only the torn chunk ran again
    # the same lines but for the CPU seconds of the chunk run again (0.0 or 0.1 by the machine's load)
    def without_cpu(text):
        return [re.sub(r", \d+(?:\.\d+)? CPU s$", "", line) for line in text.splitlines()[:3]]
    assert without_cpu(again) == without_cpu(first)
    assert "(2 chunk(s) taken from the results file)" in again
    assert len(path.read_text().splitlines()) == 4


def test_resume_refuses_other_options(tmp_path):
    path = tmp_path / "r.jsonl"
    ResultsFile.open(path, "sweep", {"max_size": 3}, resume=False)
    with pytest.raises(ValueError, match="other options \\(max_size\\)"):
        ResultsFile.open(path, "sweep", {"max_size": 4}, resume=True)
    with pytest.raises(ValueError, match="not a results file of corpus"):
        ResultsFile.open(path, "corpus", {"max_size": 3}, resume=True)


@pytest.mark.parametrize("argv, message", [
    (["--max-size", "0"], "max_size must be 1..16"),
    (["--max-size", "17"], "max_size must be 1..16"),
    (["--max-len", "11"], "--max-len must be 0..10"),
    (["--resume"], "--resume needs a results file"),
    (["--ops", "concat,**"], "unknown operator"),
    (["--alphabet", "a\u00e9"], "ASCII only"),
    (["--schemas", "--max-depth", "4"], "max_depth must be 0..3"),
])
def test_bad_arguments_are_one_line_and_exit_2(argv, message):
    code, out, err = _main("sweep", *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert out == ""


@pytest.mark.e2e  # the peers answer from processes of their own
def test_peers_differences_that_their_design_explains_are_not_listed():
    pytest.importorskip("outlines_core")
    context = sweep_patterns._context({"alphabet": "ab", "string_alphabet": "ab", "max_len": 3,
                                       "peers": ["outlines-core"]})
    result = sweep_patterns.check_pattern("a|ab", context)
    assert result.disagreements == []  # ours agree, on the widened strings too
    # outlines-core 0.2.14 keeps leftmost-first priority ("ab" refused): its documented design, not listed
    peer = context.peers[0].compile_regex("a|ab")
    assert all(peer.accepts(s) == (s == b"a") or s == b"ab" and not peer.accepts(s)
               for s in sweep_patterns.strings_up_to(b"ab", 3) if s.isascii())
    assert result.peer_differences == []


@pytest.mark.e2e  # the peers answer from processes of their own
def test_widened_strings_hold_boundary_bytes_and_find_a_peers_escaping_bug(monkeypatch, harness_unchanged):
    from pathlib import Path

    from harness.peers import PEERS, isolation
    widened = sweep_patterns.widened_strings(b"ab", 3)
    assert {b"\t", b"a\x7f", b"[", b"\x00b", b"b\xff", "\u00e9".encode()} <= set(widened)
    assert not set(widened) & set(sweep_patterns.strings_up_to(b"ab", 3))
    monkeypatch.setitem(PEERS, "wrong", ("wrong_peer", "Wrong"))
    monkeypatch.setattr(isolation, "EXTRA_PATHS", [str(Path(__file__).parents[1] / "peer_fakes")])
    context = sweep_patterns._context({"alphabet": "ab", "string_alphabet": "ab", "max_len": 3, "peers": ["wrong"]})
    result = sweep_patterns.check_pattern("[^x]*", context)
    assert result.disagreements == []
    # the stand-in rejects a raw DEL; invalid UTF-8 (which it also rejects) is its design, not listed
    assert result.peer_differences == [{"pattern": "[^x]*", "peer": "wrong", "version": "0.0.1",
                                        "witness": repr(b"\x7f"), "peer_says": False, "re": True}]
    isolation.close_all()


def test_bench_verb_takes_a_path_after_corpus():
    from harness.commands.bench import _paths
    assert _paths(["corpus", "/data/x", "sweep"]) == (["corpus", "sweep"], {"corpus": "/data/x"})
    assert _paths(["corpus", "sweep"]) == (["corpus", "sweep"], {})
    assert _paths(["sweep", "nope"]) == (["sweep", "nope"], {})  # left for the verb to refuse


def test_unknown_peer_exits_2():
    code, _out, err = _main("sweep", "--max-size", "1", "--peers", "nosuchpeer")
    assert code == 2 and "unknown peer 'nosuchpeer'" in err


def test_star_height_4_has_no_third_opinion_but_both_oracles_still_agree():
    context = sweep_patterns._context({"alphabet": "ab", "string_alphabet": "ab", "max_len": 6})
    result = sweep_patterns.check_pattern("(?:(?:(?:(?:a*)*)+)*)?", context)  # regex: 7.7 s on these strings
    assert result.third == "none (star height)" and result.outcome == "compiled"
    assert result.disagreements == [] and result.timeouts == 0
    assert sweep_patterns.check_pattern("(?:(?:(?:a*)*)+)*", context).third == "none (star height)"  # 4 too
    assert sweep_patterns.check_pattern("(?:(?:a*)*)+", context).third == "regex"
    assert sweep_patterns.check_pattern("(?:a*)b", context).third == "re"


def test_resume_refuses_a_file_something_else_wrote_into(tmp_path):
    path = tmp_path / "r.jsonl"
    results = ResultsFile.open(path, "sweep", {"max_size": 3}, resume=False)
    results.record("size1/0", {"patterns": 2})
    with open(path, "a") as f:  # seen in this session: check events appended to every /tmp/*/results.jsonl
        f.write('{"event": "result", "test": "test_hand_example", "outcome": "passed"}\n')
    with pytest.raises(ValueError, match="line 3 is not a task record"):
        ResultsFile.open(path, "sweep", {"max_size": 3}, resume=True)


@pytest.mark.e2e  # the peers answer from processes of their own
def test_a_peer_that_crashes_on_a_string_is_listed_with_that_string_and_the_sweep_goes_on(monkeypatch,
                                                                                          harness_unchanged):
    from pathlib import Path

    from harness.peers import PEERS, isolation
    monkeypatch.setitem(PEERS, "hostile", ("hostile_peer", "Hostile"))
    monkeypatch.setattr(isolation, "EXTRA_PATHS", [str(Path(__file__).parents[1] / "peer_fakes")])
    context = sweep_patterns._context({"alphabet": "bom", "string_alphabet": "bom", "max_len": 4,
                                       "peers": ["hostile"]})
    crashed = sweep_patterns.check_pattern("(?:b|o|m)*", context)
    assert crashed.disagreements == []
    [listed] = crashed.peer_differences
    assert listed["peer"] == "hostile" and listed["version"] == "6.6.6" and listed["witness"] == repr(b"boom")
    assert listed["detail"].startswith("crash during accepts: the process died (SIGSEGV)")
    shorter = sweep_patterns._context({"alphabet": "bom", "string_alphabet": "bom", "max_len": 3,
                                       "peers": ["hostile"]})
    after = sweep_patterns.check_pattern("b|m", shorter)  # the same peer answers from a fresh child
    assert after.peer_differences == [] and after.disagreements == [] and shorter.peers[0] is context.peers[0]
    pid = context.peers[0].pid
    isolation.close_all()
    import os
    with pytest.raises(ProcessLookupError):
        for _ in range(100):
            os.kill(pid, 0)
            import time
            time.sleep(0.05)


@pytest.mark.e2e  # the peers answer from processes of their own
def test_schema_sweep_asks_the_peers_and_lists_what_jsonschema_contradicts(monkeypatch, harness_unchanged):
    from pathlib import Path

    from harness.differential.sweep import schemas as sweep_schemas
    from harness.peers import PEERS, isolation
    monkeypatch.setitem(PEERS, "wrong", ("wrong_peer", "Wrong"))
    monkeypatch.setattr(isolation, "EXTRA_PATHS", [str(Path(__file__).parents[1] / "peer_fakes")])
    schemas = [{"type": "string"}, {"type": "integer"}, {"type": "object", "properties": {"a": {"type": "null"}}}]
    record = sweep_schemas.check_schemas({"depth": 0, "offset": 0, "seed": 0, "schemas": schemas, "peers": ["wrong"]})
    assert record["disagreements"] == []
    # the stand-in's raw-DEL bug, judged by jsonschema; integers and open objects it answers as JSON Schema does
    assert record["peer_differences"] == [{"schema": {"type": "string"}, "peer": "wrong", "version": "0.0.1",
                                           "witness": repr(b'"\x7f"'), "peer_says": False, "jsonschema": True}]
    isolation.close_all()


@pytest.mark.e2e  # the peers answer from processes of their own
def test_sweep_verb_honours_peers_with_schemas(monkeypatch, harness_unchanged):
    from pathlib import Path

    from harness.peers import PEERS, isolation
    monkeypatch.setitem(PEERS, "wrong", ("wrong_peer", "Wrong"))
    monkeypatch.setattr(isolation, "EXTRA_PATHS", [str(Path(__file__).parents[1] / "peer_fakes")])
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["sweep", "--schemas", "--max-depth", "0", "--peers", "wrong"], out, err)
    assert code == 0, err.getvalue()  # differences of a peer do not fail the run without --fail-on-difference
    assert "peer wrong 0.0.1 differs (not a failure of ours): {'type': 'string'} on b'\"\\x7f\"'" in out.getvalue()
    isolation.close_all()


@pytest.mark.e2e  # the peers answer from processes of their own
def test_interegulars_ascii_classes_are_its_design_and_llguidances_same_answer_would_not_be():
    pytest.importorskip("interegular")
    from harness.differential.sweep.patterns import _explained
    context = sweep_patterns._context({"alphabet": "ab", "string_alphabet": "ab", "max_len": 2,
                                       "peers": ["interegular"]})
    for pattern in ("\\W", "\\D", "\\S"):  # interegular's own definition: ASCII classes
        assert sweep_patterns.check_pattern(pattern, context).peer_differences == []
    assert _explained("\\W", "\u00e9".encode(), True, "interegular")
    assert not _explained("\\W", "\u00e9".encode(), True, "llguidance")  # its classes are documented Unicode
    assert not _explained("\\w", b"a", False, "interegular")  # ASCII says yes: a wrong refusal
