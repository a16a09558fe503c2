"""Replay golden/tools_golden.json against a Python implementation of the tools surface.

``replay_tools(doc, impl)`` checks what the L10.9 tests of the tool-calling surface
check (spec ``002_...``, section 4), one check per test name (``CHECKS``), and
returns a ``golden.replay.ReplayReport``. ``impl`` is module-like with the names of
``oracles.tools`` (``TOOLS_CONTRACT``), e.g. from ``harness.golden_replay.loading``. The
replay is a pure function of ``(doc, impl)``: it reads only attributes of what the
implementation returns (``.pattern``, ``.status``, ``.fragment``, ...), so a proxy
object that forwards calls to another process works the same.

Checks:

- ``parse_tool_request_hand_example``: each body gives the recorded request (tools'
  names, descriptions and parameters in order, choice, response_format, parallel),
  or raises an error with the recorded ``status`` whose ``to_json()`` is the OpenAI
  error shape, a 422 naming the keyword; ``param`` and ``code`` other than the
  reference's are notes (the spec does not fix them), and so is any difference on a
  case the spec does not decide (``seed_states: "none"``);
- ``grammar_by_tool_choice`` / ``json_object_grammar``: ``grammar(request)`` is None
  exactly when recorded; the trigger is the recorded one; the pattern's canonical DFA
  (compiled by the reference automaton) equals the recorded one, so the language is
  the same (different pattern text is a *note*); the witnesses are accepted/refused.
  For json_object (``seed_states: "witnesses"``) the exact language is the
  reference's reading of "nested at most 3 levels" (arrays count, compact JSON): only
  the witnesses the spec decides are failures, the DFA and ``reference_refuses`` notes;
- ``render_messages_with_tools``: the spec's rendering rules (``_turns_problem``) on
  the implementation's turns, and ``render_prompt`` equal to the ChatML template over
  them; the reference's exact wording (turns and prompt) is a note; bad conversations
  raise the recorded status in the OpenAI shape;
- ``parser_hand_example``, ``parser_holds_back_only_real_markup``,
  ``parser_parallel_calls``: each stream of that test gives the recorded events per
  piece and at ``finish()``, the folded content and calls; where the spec's text does
  not decide an answer (a stream's ``seed_states``: whitespace between calls, JSON
  whitespace inside the markup, an unterminated call), a difference is a *note*;
- ``parser_is_split_invariant``: every 2-way split and each recorded random split of
  the stream's text fold to what the whole text folds to in the implementation;
- ``message_and_delta_json_shapes``: ``message_json`` of each recorded answer,
  ``delta_json`` of each recorded event, ``finish_reason``, byte for byte;
- ``forced_call_from_a_random_model_is_valid``: each recorded walk's text is in the
  language of the implementation's named grammar, and streamed token by token
  through its parser gives exactly one ``get_weather`` call whose arguments
  ``jsonschema`` validates, and no content.

A candidate's exception is a finding, never a crash of the replay.
"""

from __future__ import annotations

import json

from golden import fileformat
from golden.replay import ReplayReport, _compare_dfa, _describe
from golden.tools_build import _event, event_record, token_pieces

CHECKS = ("parse_tool_request_hand_example", "grammar_by_tool_choice", "json_object_grammar",
          "render_messages_with_tools", "parser_hand_example", "parser_holds_back_only_real_markup",
          "parser_parallel_calls", "parser_is_split_invariant", "message_and_delta_json_shapes",
          "forced_call_from_a_random_model_is_valid")
TOOLS_CONTRACT = ("parse_tool_request", "ToolError", "grammar", "json_object_regex", "render_messages",
                  "render_prompt", "CHATML_TEMPLATE", "ToolParser", "Content", "CallStart", "Arguments",
                  "ToolCall", "collect", "finish_reason", "message_json", "delta_json")


def _error_of(thunk):
    """(value, None) or (None, exception) of a call."""
    try:
        return thunk(), None
    except Exception as exc:  # noqa: BLE001 - a candidate's exception is data here
        return None, exc


def _request_record(request) -> dict:
    return {"tools": [{"name": t.name, "description": t.description,
                       "parameters_json": json.dumps(t.parameters, separators=(",", ":"), ensure_ascii=True)}
                      for t in request.tools],
            "choice": {"kind": request.choice.kind, "name": request.choice.name},
            "response_format": request.response_format, "parallel": request.parallel}


def _error_problem(exc, want: dict) -> str | None:
    """What is wrong with an error the spec decides: its status and the OpenAI shape."""
    if exc is None:
        return f"accepted; expected an error {want['status']}"
    if getattr(exc, "status", None) != want["status"]:
        return f"raised {_describe(exc)} with status {getattr(exc, 'status', None)!r}; expected {want['status']}"
    try:
        shape = json.loads(exc.to_json())
        ok = set(shape) == {"error"} and set(shape["error"]) == {"message", "type", "param", "code"}
    except Exception as err:  # noqa: BLE001
        return f"to_json() raised {_describe(err)}"
    return None if ok else f"to_json() is not the OpenAI error shape: {str(exc.to_json())[:120]}"


def _check_error(report, check: str, where: str, exc, want: dict, keyword: str, level: str) -> None:
    problem = _error_problem(exc, want)
    if problem:
        report.fail(check, where, problem, level=level)
        return
    report.passed(check)
    if keyword:  # the spec: "the 422 naming the keyword"
        named = keyword in str(getattr(exc, "message", "")) or keyword in str(getattr(exc, "param", ""))
        report.expect(check, where, None if named else f"the error does not name the keyword {keyword!r}: "
                                                       f"{str(getattr(exc, 'message', ''))[:120]!r}")
    got = (getattr(exc, "param", None), getattr(exc, "code", None))
    if got != (want["param"], want["code"]):  # the spec does not fix param and code: a note
        report.fail(check, where, f"param, code {got}, the reference's {(want['param'], want['code'])}", level="note")


# --------------------------------------------------------------------------- requests

def check_requests(report, impl, doc: dict) -> None:
    check = "parse_tool_request_hand_example"
    for case in doc["requests"]:
        where = f"request {case['name']}"
        level = "fail" if case["seed_states"] == "all" else "note"
        request, exc = _error_of(lambda: impl.parse_tool_request(case["body"]))
        if case["error"] is not None:
            _check_error(report, check, where, exc, case["error"], case["keyword"], level)
            continue
        if exc is not None:
            report.fail(check, where, f"raised {_describe(exc)}; expected a request", level=level)
            continue
        got, problem = _error_of(lambda: _request_record(request))
        if problem is not None or got != case["result"]:
            report.fail(check, where, f"request {got if problem is None else _describe(problem)!s:.200}, "
                                      f"expected {case['result']!s:.200}", level=level)
        else:
            report.passed(check)


# --------------------------------------------------------------------------- grammars

def check_grammars(report, impl, doc: dict) -> None:
    from oracles.automaton import regex_to_dfa

    for case in doc["grammars"]:
        check, where = case["test"], f"grammar {case['name']}"
        g, exc = _error_of(lambda: impl.grammar(impl.parse_tool_request(case["body"])))
        if exc is not None:
            report.fail(check, where, f"raised {_describe(exc)}")
            continue
        if (g is not None) != case["grammar"]:
            report.fail(check, where, f"grammar is {'None' if g is None else 'given'}, expected "
                                      f"{'a grammar' if case['grammar'] else 'None (free text)'}")
            continue
        if g is None:
            report.passed(check)
            continue
        report.expect(check, where, None if g.trigger == case["trigger"] else
                      f"trigger {g.trigger!r}, expected {case['trigger']!r}")
        if g.pattern != case["pattern"]:
            report.fail(check, where, f"pattern text differs from the recorded one: {str(g.pattern)[:60]!r}...",
                        level="note")
        dfa, exc = _error_of(lambda: regex_to_dfa(g.pattern))
        if exc is not None:
            report.fail(check, where, f"the pattern does not compile: {_describe(exc)}")
            continue
        if case["seed_states"] == "all":
            _compare_dfa(report, check, where, dfa, case["dfa"])
        else:  # the exact language is the reference's reading of the spec: the witnesses decide
            quiet = ReplayReport(report.file)
            _compare_dfa(quiet, check, where, dfa, case["dfa"])
            for finding in quiet.findings:
                report.fail(check, where, f"the language differs from the reference's: {finding.message}", level="note")
        witnesses = [(t, True, "fail") for t in case["accepts"]] + [(t, False, "fail") for t in case["refuses"]] + \
            [(t, False, "note") for t in case["reference_refuses"]]
        for text, want, level in witnesses:
            got = dfa.matches(text.encode("utf-8"))
            if got != want:
                report.fail(check, where, f"{text!r:.60} is {'accepted' if got else 'refused'}, expected the opposite",
                            level=level)
            else:
                report.passed(check)


# --------------------------------------------------------------------------- conversations

def check_conversations(report, impl, doc: dict) -> None:
    """What the spec states about rendering, strictly; the reference's exact wording of
    the tools' description (and so the exact turns and prompt) as a note."""
    check = "render_messages_with_tools"
    conv = doc["conversations"]
    tools, exc = _error_of(lambda: impl.parse_tool_request(json.dumps({"tools": json.loads(conv["tools_json"])})).tools)
    if exc is not None:
        report.fail(check, "tools", f"parse_tool_request raised {_describe(exc)}")
        return
    names = [t["function"]["name"] for t in json.loads(conv["tools_json"])]
    for case in conv["cases"]:
        where, use = f"conversation {case['name']}", tools if case["with_tools"] else []
        messages = json.loads(case["messages_json"])
        turns, exc = _error_of(lambda: [list(t) for t in impl.render_messages(messages, use)])
        if exc is not None:
            report.fail(check, where, f"render_messages raised {_describe(exc)}")
            continue
        problem, reading = _turns_reading(turns, messages, names if case["with_tools"] else [])
        report.expect(check, where, problem)
        if problem is None and reading != "verbatim":
            report.decision(check, where, "tools_render_arguments_verbatim", False,
                            "tool-call arguments written back re-serialized as compact JSON, not as sent")
        if turns != case["turns"]:
            report.fail(check, where, f"turns differ from the reference's: {turns!s:.160}", level="note")
        prompt, exc = _error_of(lambda: impl.render_prompt(conv["template"], messages, use, "", ""))
        chatml = "".join(f"<|im_start|>{r}\n{c}<|im_end|>\n" for r, c in turns) + "<|im_start|>assistant\n"
        report.expect(check, where, f"render_prompt raised {_describe(exc)}" if exc is not None else None
                      if prompt == chatml else f"the ChatML template of its own turns gives {chatml!r:.80}, "
                                               f"render_prompt {prompt!r:.80}")
        if prompt != case["prompt"]:
            report.fail(check, where, "prompt differs from the reference's", level="note")
    for case in conv["refused"]:  # the spec states none of these refusals: the reference's choice
        _, exc = _error_of(lambda: impl.render_messages(json.loads(case["messages_json"]), tools))
        where = f"bad conversation {case['name']}"
        problem = _error_problem(exc, case["error"])
        report.decision(check, where, "tools_render_refuses_bad_messages", problem is None, problem or "")


ARGUMENT_READINGS = {
    "verbatim": lambda arguments: arguments,
    "compact": lambda arguments: json.dumps(json.loads(arguments), separators=(",", ":"), ensure_ascii=False),
}
"""How a written-back call's arguments may be spelled: as the client sent them (the reference,
the decision ``tools_render_arguments_verbatim``) or re-serialized as the compact JSON the
grammar generates (spec 002 section 2.4: "so a conversation renders the way it was generated"
allows both; key order is kept in both)."""


def _turns_reading(turns: list, messages: list, tool_names: list[str]) -> tuple[str | None, str]:
    """``(problem, reading)``: None and the first reading of ``ARGUMENT_READINGS`` under which
    the turns follow the spec's rules, or the problem under the verbatim reading."""
    first = None
    for name, spell in ARGUMENT_READINGS.items():
        problem = _turns_problem(turns, messages, tool_names, spell)
        if problem is None:
            return None, name
        first = first or problem
    return first, "verbatim"


def _turns_problem(turns: list, messages: list, tool_names: list[str], spell=ARGUMENT_READINGS["verbatim"]) \
        -> str | None:
    """The spec's rules (section 2.4): the tools in a system message, appended to the
    first system message if there is one; an assistant's tool_calls written back as
    ``<tool_call>{"name":...,"arguments":...}</tool_call>`` blocks after its content (the
    arguments spelled by ``spell``); a tool message a user turn holding ``<tool_response>``
    and its content; other turns as sent."""
    expected = [m for m in messages]
    has_system = any(m["role"] == "system" for m in messages)
    if tool_names and not has_system:
        if not turns or turns[0][0] != "system":
            return "no system turn describes the tools"
        tools_turn, turns = turns[0], turns[1:]
    elif tool_names:
        tools_turn = next(t for t in turns if t[0] == "system")
    if tool_names:
        missing = [n for n in tool_names if n not in tools_turn[1]]
        if missing:
            return f"the system turn does not describe {missing}"
    if len(turns) != len(expected):
        return f"{len(turns)} turns for {len(expected)} messages"
    first_system = True
    for (role, content), message in zip(turns, expected):
        want_role = "user" if message["role"] == "tool" else message["role"]
        text = message.get("content") or ""
        if isinstance(text, list):
            text = "".join(p["text"] for p in text)
        if role != want_role:
            return f"a {message['role']} message became a {role!r} turn"
        if message["role"] == "tool":
            if "<tool_response>" not in content or text not in content:
                return f"a tool message renders as {content!r:.80}"
        elif message["role"] == "system" and first_system and tool_names:
            first_system = False
            if not content.startswith(text):
                return "the tools are not appended to the first system message"
        elif message.get("tool_calls"):
            calls = "\n".join(f'<tool_call>{{"name":{json.dumps(c["function"]["name"])},'
                               f'"arguments":{spell(c["function"]["arguments"])}}}</tool_call>'
                               for c in message["tool_calls"])
            if content != text + calls:
                return f"an assistant turn with tool_calls renders as {content!r:.120}, expected {text + calls!r:.120}"
        elif content != text:
            return f"a {role} turn renders as {content!r:.80}, not as sent"
    return None


# --------------------------------------------------------------------------- streams

def _run(impl, request_id: str, pieces):
    parser = impl.ToolParser(request_id)
    per_piece = [[event_record(e) for e in parser.push(p)] for p in pieces]
    return per_piece, [event_record(e) for e in parser.finish()]


def _fold(impl, request_id: str, pieces) -> dict:
    per_piece, tail = _run(impl, request_id, pieces)
    content, calls = impl.collect([_event(impl, e) for events in [*per_piece, tail] for e in events])
    return {"content": content, "calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls]}


def content_runs(events: list) -> list:
    """A piece's events with each run of adjacent content events joined into one and empty
    content dropped: the spec fixes the text a piece releases and where the calls' events fall
    in it, not how a run of text is cut into events (a client concatenates the deltas)."""
    out: list = []
    for event in events:
        if event[0] == "content" and out and out[-1][0] == "content":
            out[-1] = ["content", out[-1][1] + event[1]]
        elif event[0] != "content" or event[1]:
            out.append(list(event))
    return out


def check_streams(report, impl, doc: dict) -> None:
    for case in doc["streams"]:
        check, where = case["test"], f"stream {case['name']}"
        if check == "parser_is_split_invariant":
            _check_splits(report, impl, case, check, where)
            continue
        # what the spec does not decide is a note (see golden/tools_cases.Stream)
        events_level = "fail" if case["seed_states"] == "all" else "note"
        calls_level = "fail" if case["seed_states"] != "none" else "note"
        # parser_parallel_calls checks "the newline between calls" (spec 002 section 4): between
        # calls it separates them and is no content, so a parser emitting it as content fails
        content_level = "fail" if events_level == "fail" or (
            check == "parser_parallel_calls" and case["seed_states"] == "calls" and case["content"] is None) \
            else "note"
        got, exc = _error_of(lambda: _run(impl, case["request_id"], case["pieces"]))
        if exc is not None:
            report.fail(check, where, f"raised {_describe(exc)}", level=calls_level)
            continue
        per_piece, tail = got
        for i, (events, expected) in enumerate(zip([*per_piece, tail], [*case["events"], case["finish_events"]])):
            at = f"{where} {'finish()' if i == len(per_piece) else f'piece {i + 1}'}"
            if content_runs(events) != content_runs(expected):
                report.fail(check, at, f"events {events!s:.160}, expected {expected!s:.160}", level=events_level)
            else:
                report.passed(check)
        folded, exc = _error_of(lambda: _fold(impl, case["request_id"], case["pieces"]))
        if exc is not None:
            report.fail(check, where, f"collect raised {_describe(exc)}", level=calls_level)
            continue
        for key, level in (("calls", calls_level), ("content", content_level)):
            if folded[key] != case[key]:
                report.fail(check, where, f"folded {key} {folded[key]!s:.160}, expected {case[key]!s:.160}",
                            level=level)
            else:
                report.passed(check)


def _check_splits(report, impl, case: dict, check: str, where: str) -> None:
    """Every 2-way split and each recorded random split fold to what the whole text
    folds to in the implementation itself (split invariance is its own property); the
    whole text's fold is compared with the recorded one too (a note when the spec does
    not decide it)."""
    text = "".join(case["pieces"])
    whole, exc = _error_of(lambda: _fold(impl, case["request_id"], [text]))
    if exc is not None:
        report.fail(check, where, f"raised {_describe(exc)}")
        return
    want = {"content": case["content"], "calls": case["calls"]}
    if whole != want:
        report.fail(check, where, f"the whole text folds to {whole!s:.160}, recorded {want!s:.160}",
                    level="fail" if case["seed_states"] == "all" else "note")
    for pieces in [[text[:c], text[c:]] for c in range(len(text) + 1)] + case["splits"]:
        got, exc = _error_of(lambda: _fold(impl, case["request_id"], pieces))
        problem = f"raised {_describe(exc)}" if exc is not None else None if got == whole else \
            f"folds to {got!s:.160}, the whole text to {whole!s:.160}"
        report.expect(check, f"{where} split {[len(p) for p in pieces]}", problem)


def check_shapes(report, impl, doc: dict) -> None:
    check = "message_and_delta_json_shapes"
    for case in doc["streams"]:
        where = f"stream {case['name']}"
        calls, exc = _error_of(lambda: [impl.ToolCall(c["id"], c["name"], c["arguments"]) for c in case["calls"]])
        if exc is not None:
            report.fail(check, where, f"ToolCall(...) raised {_describe(exc)}")
            continue
        got, exc = _error_of(lambda: impl.message_json(case["content"], calls))
        _check_json_text(report, check, where, "message", got, exc, case["message_json"])
        reason, exc = _error_of(lambda: impl.finish_reason(len(calls), "stop"))
        report.expect(check, where, None if exc is None and reason == case["finish_reason"] else
                      f"finish_reason {reason!r}, expected {case['finish_reason']!r}")
        events = [e for events in [*case["events"], case["finish_events"]] for e in events]
        for event, want in zip(events, case["deltas"]):
            got, exc = _error_of(lambda: impl.delta_json(_event(impl, event)))
            _check_json_text(report, check, f"{where} delta {event!s:.60}", "delta", got, exc, want)


def _json_shape(text: str):
    """A message or delta as data, with what the spec leaves open taken out: key order (dicts
    compare without it) and a ``tool_calls`` list that is empty (written or omitted)."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if not (k == "tool_calls" and v == [])}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads(text))


def _check_json_text(report, check: str, where: str, what: str, got, exc, want: str) -> None:
    """The shape (keys, values, ``content`` null beside calls, arguments as a string) fails;
    the byte form beyond it (key order, an empty ``tool_calls``) is the reference's choice:
    the decision ``tools_json_byte_form``, a note unless strict."""
    if exc is not None:
        report.fail(check, where, f"{what}_json raised {_describe(exc)}")
        return
    if got == want:
        report.passed(check)
        return
    try:
        same_shape = _json_shape(got) == _json_shape(want)
    except (TypeError, ValueError) as err:
        report.fail(check, where, f"{what} {got!r:.120} is not JSON: {_describe(err)}")
        return
    if not same_shape:
        report.fail(check, where, f"{what} {got!r:.160}, expected {want!r:.160}")
    else:
        report.decision(check, where, "tools_json_byte_form", False, f"{what} {got!r:.120} is the expected "
                                                                      f"shape written otherwise than {want!r:.120}")


# --------------------------------------------------------------------------- forced walks

def check_forced_walks(report, impl, doc: dict) -> None:
    import jsonschema

    from oracles.automaton import regex_to_dfa

    check = "forced_call_from_a_random_model_is_valid"
    walks = doc["forced_walks"]
    g, exc = _error_of(lambda: impl.grammar(impl.parse_tool_request(walks["body"])))
    dfa, exc = (None, exc) if exc is not None else _error_of(lambda: regex_to_dfa(g.pattern))
    if exc is not None:
        report.fail(check, "named grammar", f"raised {_describe(exc)}")
        return
    vocab = [None if h is None else bytes.fromhex(h) for h in doc["vocab"]["tokens_hex"]]
    schema = json.loads(walks["parameters_json"])
    for walk in walks["walks"]:
        where = f"walk {walk['seed']}"
        text = bytes.fromhex(walk["text_hex"])
        if not dfa.matches(text):
            report.fail(check, where, "the walk's text is not in the named grammar's language")
            continue
        pieces = token_pieces(vocab, walk["tokens"], doc["vocab"]["eos_id"])
        got, exc = _error_of(lambda: _fold(impl, "w", pieces))
        if exc is not None:
            report.fail(check, where, f"the parser raised {_describe(exc)}")
            continue
        calls = got["calls"]
        if got["content"] is not None or len(calls) != 1 or calls[0]["name"] != "get_weather":
            report.fail(check, where, f"expected one get_weather call and no content, got {got!s:.160}")
            continue
        try:
            jsonschema.validate(json.loads(calls[0]["arguments"]), schema)
        except (ValueError, jsonschema.ValidationError) as err:
            report.fail(check, where, f"arguments {calls[0]['arguments']!r:.60} invalid: {str(err).splitlines()[0]}")
            continue
        report.passed(check)


# --------------------------------------------------------------------------- entry point

def replay_tools(doc: dict, impl, *, strict: bool = False) -> ReplayReport:
    """Replay tools_golden.json (a loaded document) against ``impl`` (see the module docstring);
    ``strict``: the reference's choices the spec does not state fail, else they are notes."""
    report = ReplayReport(fileformat.FILES["tools_golden"], strict=strict)
    for step in (check_requests, check_grammars, check_conversations, check_streams, check_shapes,
                 check_forced_walks):
        step(report, impl, doc)
    return report


__all__ = ["CHECKS", "TOOLS_CONTRACT", "replay_tools"]
