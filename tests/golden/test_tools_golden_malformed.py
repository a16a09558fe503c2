"""The tools golden file's power over malformed markup (issue 52 item 6): a streaming parser
that mishandles a call whose closer is broken, or the text after it, fails ``golden replay
--file tools``, on the malformed-markup streams and nowhere else (format version 2's other
streams let it pass: that was the gap)."""

from __future__ import annotations

import types

import pytest

import oracles.tools as REFERENCE
from golden import fileformat, tools_replay
from golden.tools_replay import replay_tools
from oracles.tools.parser import CLOSE, CLOSER, MAX_CLOSE, TEXT, ToolParser, match_tokens

MALFORMED = {"a_call_missing_its_closing_brace", "a_call_missing_its_closing_brace_in_pieces",
             "braces_and_escapes_then_a_broken_closer", "a_misspelt_closer_then_text", "a_closer_cut_by_text",
             "text_instead_of_a_closer", "a_broken_closer_then_a_second_call", "split_everywhere_broken_closers"}


@pytest.fixture(scope="module")
def doc():
    return fileformat.load(fileformat.GOLDEN_DIR / fileformat.FILES["tools_golden"], "tools_golden",
                           validate=False)  # valid: test_golden's test_files_satisfy_their_json_schemas


def _with_parser(parser) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{**{n: getattr(REFERENCE, n) for n in dir(REFERENCE) if not n.startswith("_")},
                                    "ToolParser": parser})


class DropsTextAfterABrokenCloser(ToolParser):
    """After the arguments close, text that is not ``}</tool_call>`` is thrown away (a wrong parser)."""

    def _close(self, text: str, events: list) -> str:
        status, _, _, _ = match_tokens(text[:MAX_CLOSE], ("}", CLOSER))
        if status != "ok" and not (status == "more" and len(text) < MAX_CLOSE):
            self._mode = TEXT
            return ""
        return ToolParser._close(self, text, events)

    _STEP = {**ToolParser._STEP, CLOSE: _close}


class SwallowsUpToTheNextCloser(ToolParser):
    """After the arguments close, everything up to the next ``</tool_call>`` is taken as the
    closer's markup, however broken (a wrong parser: the text between is lost)."""

    def _close(self, text: str, events: list) -> str:
        k = text.find(CLOSER)
        if k < 0:
            self._held = text
            return ""
        self._held = ""
        return ToolParser._close(self, "}" + CLOSER + text[k + len(CLOSER):], events)

    def finish(self) -> list:
        if self._mode is CLOSE:
            self._mode, self._held = TEXT, ""
        return ToolParser.finish(self)

    _STEP = {**ToolParser._STEP, CLOSE: _close}


def _failing_streams(report) -> set[str]:
    return {f.where.split(" ")[1] for f in report.findings if f.level == "fail" and f.where.startswith("stream ")}


@pytest.mark.golden
def test_the_reference_passes_every_malformed_stream(doc):
    names = {case["name"] for case in doc["streams"]}
    assert MALFORMED <= names and doc["format_version"] == 2
    report = replay_tools(doc, REFERENCE)
    assert report.ok, report.lines()


STREAM_STEPS = {"check_streams", "check_shapes"}
"""The steps of ``replay_tools`` that read the document's streams (the others never do)."""
OTHER_STEPS = ("check_requests", "check_grammars", "check_conversations", "check_forced_walks")
OTHER_CHECKS = {"parse_tool_request_hand_example", "grammar_by_tool_choice", "json_object_grammar",
                "render_messages_with_tools", "forced_call_from_a_random_model_is_valid"}
"""What the other steps count."""


@pytest.mark.golden
@pytest.mark.parametrize("parser", [DropsTextAfterABrokenCloser, SwallowsUpToTheNextCloser])
def test_a_parser_that_mishandles_a_broken_closer_fails_only_on_the_malformed_streams(doc, parser, monkeypatch):
    """The whole replay fails the parser on malformed streams only; on format version 2's
    streams alone it passes. That second replay runs only the steps that read the streams:
    the others see the same document as the first replay, which they passed (asserted)."""
    report = replay_tools(doc, _with_parser(parser))
    assert not report.ok and report.failures.get("parser_holds_back_only_real_markup", 0) > 0, report.lines()
    failing = _failing_streams(report)
    assert failing and failing <= MALFORMED, failing
    assert "a_call_missing_its_closing_brace" in failing   # a stream whose every event the spec decides
    assert OTHER_CHECKS <= set(report.assertions) and not any(report.failures.get(c) for c in OTHER_CHECKS)
    for step in OTHER_STEPS:
        monkeypatch.setattr(tools_replay, step, lambda *args, **kwargs: None)
    older = dict(doc, streams=[case for case in doc["streams"] if case["name"] not in MALFORMED])
    again = replay_tools(older, _with_parser(parser))
    assert again.ok and not set(again.assertions) & OTHER_CHECKS  # version 2's streams alone let it pass
