"""The fairness gallery's tool surface (``harness/grading/gradetests/wheats/tools_fair_seed.py``,
spec 002 L10.9 written apart from ``oracles.tools``) against ``golden replay --file tools``:
it passes in the default tier, its departures from the reference are notes naming the
decisions it departs from, and ``--strict`` fails it on exactly those. The two readings the
replay learned from it are tested on their own: each accepts what the spec allows and still
fails what it does not.
"""

from __future__ import annotations

import io
import json
import os
import re
import types
from pathlib import Path

import pytest

from golden import fileformat
from golden.tools_replay import CHECKS, content_runs, replay_tools
from harness.cli import main
from harness.golden_replay.loading import load_tools_impl
from harness.suite import tiers

GALLERY = Path(__file__).resolve().parents[2] / "harness" / "grading" / "gradetests" / "wheats"
TOOLS_FAIR = GALLERY / "tools_fair_seed.py"
NOTE_KEY = re.compile(r"contract decision not met: ([a-z0-9_]+):")
DEPARTS = {"tools_json_byte_form", "tools_render_arguments_verbatim"}


@pytest.fixture(scope="module")
def doc():
    return fileformat.load(fileformat.GOLDEN_DIR / fileformat.FILES["tools_golden"], "tools_golden")


@pytest.fixture(scope="module")
def fair():
    return load_tools_impl(str(TOOLS_FAIR))


@pytest.fixture(scope="module", autouse=True)
def compiled_once():
    """The replay compiles each grammar's pattern with the reference (``check_grammars``: the
    oracle's DFA, half of a replay's CPU); this module replays the same grammars seven times, so
    each pattern text is compiled once here and its DFA (read only) handed out again. A pattern
    that does not compile raises each time, as before."""
    import oracles.automaton

    compile_pattern, dfas = oracles.automaton.regex_to_dfa, {}

    def regex_to_dfa(pattern):
        key = (type(pattern), pattern)
        if key not in dfas:
            dfas[key] = compile_pattern(pattern)
        return dfas[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(oracles.automaton, "regex_to_dfa", regex_to_dfa)
        yield


@pytest.mark.golden
def test_the_tool_surface_from_the_spec_passes_the_replay_with_notes_and_fails_only_its_decisions_when_strict(doc,
                                                                                                              fair):
    for strict in (False, True):
        report = replay_tools(doc, fair, strict=strict)
        keys = {k for f in report.findings for k in NOTE_KEY.findall(f.message)}
        assert keys == DEPARTS and keys <= set(tiers.DECISIONS), keys
        fails = [f for f in report.findings if f.level == "fail"]
        if not strict:
            assert report.ok and not fails, report.lines()
        else:
            assert fails and all(NOTE_KEY.findall(f.message) for f in fails), [f.message for f in fails]
    assert set(report.assertions) == set(CHECKS) and sum(report.assertions.values()) > 1500


@pytest.mark.golden
def test_the_tool_surface_shares_no_code_with_the_reference():
    source = TOOLS_FAIR.read_text(encoding="utf-8")
    assert "oracles" not in re.sub(r'""".*?"""', "", source, flags=re.S)  # no import of the reference's modules


def _golden(*argv):
    out, err = io.StringIO(), io.StringIO()
    return main(["golden", *argv], stdout=out, stderr=err), out.getvalue(), err.getvalue()


@pytest.mark.e2e
@pytest.mark.golden
def test_the_tool_surface_passes_behind_the_wall_and_strict_fails_it(tmp_path):
    """The verb, on the gallery file itself (it loads its schema translation from beside it):
    exit 0 with notes; ``--strict`` exit 1 on its decisions only; the harness's files unchanged and
    nothing of the candidate left running."""
    from tests.support.helpers import left_over, tree_digest

    before = tree_digest()
    results = {}
    for flags in ((), ("--strict",)):
        marker = f"tools-fair-{os.getpid()}-{len(flags)}"
        os.environ["CONSTRAIN_HARNESS_MARKER"] = marker
        try:
            results[flags] = _golden("replay", "--file", "tools", "--impl", str(TOOLS_FAIR), "--timeout", "300",
                                     *flags)
        finally:
            del os.environ["CONSTRAIN_HARNESS_MARKER"]
        assert left_over(marker) == []
    assert tree_digest() == before
    code, out, err = results[()]
    assert code == 0 and " 0 failed" in out.splitlines()[-1], out + err
    assert "contract name missing" not in out and "confinement:" in out
    code, out, err = results[("--strict",)]
    failed_keys = {k for line in out.splitlines() if line.startswith("FAIL [") or line.startswith("FAIL ")
                   for k in NOTE_KEY.findall(line)}
    assert code == 1 and failed_keys == DEPARTS, out + err


# --------------------------------------------------------------------------- the readings on their own

REFERENCE = load_tools_impl(None)


def _reference_but(**overrides):
    return types.SimpleNamespace(**{**{n: getattr(REFERENCE, n) for n in dir(REFERENCE) if not n.startswith("_")},
                                    **overrides})


class _SplitContent:
    """The reference's parser with each content event cut in two (another cut of the same text)."""

    def __init__(self, request_id):
        self.inner = REFERENCE.ToolParser(request_id)

    def _cut(self, events):
        out = []
        for e in events:
            if hasattr(e, "text") and len(e.text) > 1:
                out += [REFERENCE.Content(e.text[:1]), REFERENCE.Content(e.text[1:])]
            else:
                out.append(e)
        return out

    def push(self, piece):
        return self._cut(self.inner.push(piece))

    def finish(self):
        return self._cut(self.inner.finish())


class _DropsHeldText(_SplitContent):
    """Content held back at a piece's end is lost (a wrong parser)."""

    def finish(self):
        return [e for e in self.inner.finish() if not hasattr(e, "text")]


@pytest.mark.golden
def test_content_cut_otherwise_passes_and_content_lost_fails(doc):
    assert content_runs([["content", "a"], ["content", ""], ["content", "b"], ["call_start", 0, "i", "f"],
                         ["content", "c"]]) == [["content", "ab"], ["call_start", 0, "i", "f"], ["content", "c"]]
    report = replay_tools(doc, _reference_but(ToolParser=_SplitContent))
    assert report.ok and not report.findings, report.lines()
    report = replay_tools(doc, _reference_but(ToolParser=_DropsHeldText))
    assert report.failures.get("parser_holds_back_only_real_markup", 0) > 0, report.lines()


def _render_with(spell) -> dict:
    """The reference's rendering with each written-back call's arguments respelled by ``spell``
    (``render_prompt``: ChatML over those turns)."""
    def render_messages(messages, tools):
        return [(role, re.sub(r'"arguments":(\{.*?\})\}</tool_call>',
                              lambda m: f'"arguments":{spell(m.group(1))}}}</tool_call>', content))
                for role, content in REFERENCE.render_messages(messages, tools)]

    def render_prompt(template, messages, tools, bos, eos):
        return "".join(f"<|im_start|>{r}\n{c}<|im_end|>\n" for r, c in render_messages(messages, tools)) + \
            "<|im_start|>assistant\n"
    return {"render_messages": render_messages, "render_prompt": render_prompt}


@pytest.mark.golden
def test_arguments_written_back_compact_are_a_note_and_other_arguments_fail(doc):
    compact = _render_with(lambda a: json.dumps(json.loads(a), separators=(",", ":"), ensure_ascii=False))
    report = replay_tools(doc, _reference_but(**compact))
    keys = {k for f in report.findings for k in NOTE_KEY.findall(f.message)}
    assert report.ok and keys == {"tools_render_arguments_verbatim"}, report.lines()
    assert not replay_tools(doc, _reference_but(**compact), strict=True).ok
    dropped = replay_tools(doc, _reference_but(**_render_with(lambda a: "{}")))
    assert dropped.failures.get("render_messages_with_tools", 0) > 0, dropped.lines()


@pytest.mark.golden
def test_the_tool_surfaces_vocab_bytes_follows_the_sections_rule(fair):
    """The port's ``vocab_bytes(tok, specials)`` (spec 002 section 4: the specials passed apart,
    the tokenizer giving each id's bytes) over constrain_golden.json's cl100k_base section: None for
    each special, the recorded bytes otherwise; a wrong specials list changes the answer."""
    section = fileformat.load(fileformat.GOLDEN_DIR / fileformat.FILES["constrain_golden"],
                              "constrain_golden")["vocab_bytes"]
    token_bytes = [t.encode() if h is None else bytes.fromhex(h)  # a special's bytes are its text
                   for t, h in zip(section["tokens"], section["tokens_hex"])]
    want = [None if h is None else bytes.fromhex(h) for h in section["tokens_hex"]]
    assert fair.vocab_bytes(token_bytes, section["special_ids"]) == want
    tokenizer = type("Tokenizer", (), {"__len__": lambda self: len(token_bytes),  # L1.5's token_bytes(id)
                                       "token_bytes": lambda self, i: token_bytes[i]})()
    assert fair.vocab_bytes(tokenizer, section["special_ids"]) == want
    assert fair.vocab_bytes(token_bytes, section["special_ids"][1:])[section["special_ids"][0]] == b"<|endoftext|>"
