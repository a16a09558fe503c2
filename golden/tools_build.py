"""Build golden/tools_golden.json: the L10.9 tool-calling surface, from ``oracles.tools``.

``build_tools_golden()`` records, from the cases of ``golden.tools_cases`` and
``SEED``:

- ``requests``: each body and what ``parse_tool_request`` answers (the request, or the
  error's status, param, code and message);
- ``grammars``: per tool_choice over the conformance tools, the pattern, the trigger
  and the canonical DFA, with texts the language must accept and refuse;
- ``conversations``: ``render_messages`` turns and the ChatML prompt, and the errors
  of bad conversations;
- ``streams``: the parser's events per piece and at ``finish()``, the folded answer,
  ``message_json`` and every ``delta_json``; split-invariance streams add seeded
  random splits;
- ``vocab`` and ``forced_walks``: ``FORCED_WALKS`` walks of a random-logit model (uniform logits from
  the raw PCG64 stream of ``default_rng([SEED, k])``, greedy ``constrained_sample``)
  under the named choice ``get_weather`` through the 123-entry vocabulary.

Cross-checks (a failure raises ``GoldenDisagreement``; nothing is written): every
grammar's reference DFA equals the derivative oracle's ``canonical_dfa``; every
witness is accepted or refused as declared by both ``regex_to_dfa(...).matches`` and
``derivatives.matches``; every request's status is the one the case declares; every
stream folds to the same answer under every 2-way split and the recorded random
splits; every walk's text is in the derivative oracle's language and parses to one
``get_weather`` call whose arguments ``jsonschema`` validates.
"""

from __future__ import annotations

import codecs
import json
import random

import numpy as np

from golden import cases as constrain_cases
from golden import tools_cases as cases
from golden.fileformat import dfa_record, format_version, hex_or_null
from golden.provenance import COMMAND, NOTICE, SEEDS, GoldenDisagreement, package_version

SEED = SEEDS["tools_golden"]
"""The master seed of tools_golden.json (L10.9's tools; walk k uses ``default_rng([SEED, k])``)."""
KIND = "tools_golden"


def reference():
    import oracles.tools as impl

    return impl


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


# --------------------------------------------------------------------------- requests

def request_record(request) -> dict:
    """A ToolRequest as a golden record (schemas as compact text: their key order matters)."""
    return {"tools": [{"name": t.name, "description": t.description, "parameters_json": compact(t.parameters)}
                      for t in request.tools],
            "choice": {"kind": request.choice.kind, "name": request.choice.name},
            "response_format": request.response_format, "parallel": request.parallel}


def error_record(exc) -> dict:
    return {"status": exc.status, "param": exc.param, "code": exc.code, "message": exc.message}


def _requests() -> list[dict]:
    impl = reference()
    out = []
    for case in cases.REQUESTS:
        record = {"name": case.name, "body": case.body, "seed_states": case.seed_states, "keyword": case.keyword,
                  "result": None, "error": None}
        try:
            record["result"] = request_record(impl.parse_tool_request(case.body))
            status = 0
        except impl.ToolError as exc:
            record["error"] = error_record(exc)
            status = exc.status
        if status != case.status:
            raise GoldenDisagreement(f"request {case.name}: the reference answers status {status}, "
                                     f"the case declares {case.status}")
        if case.keyword and case.keyword not in record["error"]["message"]:
            raise GoldenDisagreement(f"request {case.name}: the error does not name {case.keyword!r}")
        out.append(record)
    return out


# --------------------------------------------------------------------------- grammars

def _grammars() -> list[dict]:
    from oracles import derivatives
    from oracles.automaton import regex_to_dfa

    impl = reference()
    out = []
    for name, body in cases.GRAMMARS:
        g = impl.grammar(impl.parse_tool_request(body))
        test = "json_object_grammar" if name == "none_json_object" else "grammar_by_tool_choice"
        reading, decided_refuses = cases.GRAMMAR_DECISIONS.get(name, (False, []))
        record = {"name": name, "test": test, "body": body, "grammar": g is not None,
                  "pattern": g.pattern if g else None, "trigger": g.trigger if g else None, "dfa": None,
                  "seed_states": "witnesses" if reading else "all", "accepts": [], "refuses": [],
                  "reference_refuses": decided_refuses}
        if g is not None:
            dfa = regex_to_dfa(g.pattern)
            trans, accept = derivatives.canonical_dfa(g.pattern)
            if not (np.array_equal(trans, dfa.trans) and np.array_equal(accept, dfa.accept)):
                raise GoldenDisagreement(f"grammar {name}: the reference DFA differs from the derivative oracle's")
            accepts, refuses = cases.GRAMMAR_WITNESSES.get(name, ([], []))
            for text, want in [(t, True) for t in accepts] + [(t, False) for t in refuses + decided_refuses]:
                data = text.encode("utf-8")
                if dfa.matches(data) != want or derivatives.matches(g.pattern, data) != want:
                    raise GoldenDisagreement(f"grammar {name}: {text!r:.80} should be "
                                             f"{'accepted' if want else 'refused'}")
            record.update(dfa=dfa_record(dfa.trans, dfa.accept), accepts=accepts, refuses=refuses)
        out.append(record)
    return out


# --------------------------------------------------------------------------- conversations

def _conversations() -> dict:
    impl = reference()
    tools = impl.parse_tool_request(cases.body(tools=cases.CONFORMANCE_TOOLS)).tools
    good = []
    for case in cases.CONVERSATIONS:
        use = tools if case.with_tools else []
        turns = impl.render_messages(case.messages, use)
        prompt = impl.render_prompt(impl.CHATML_TEMPLATE, case.messages, use, "", "")
        good.append({"name": case.name, "messages_json": compact(case.messages), "with_tools": case.with_tools,
                     "turns": [list(t) for t in turns], "prompt": prompt})
    bad = []
    for name, messages in cases.BAD_CONVERSATIONS:
        try:
            impl.render_messages(messages, tools)
        except impl.ToolError as exc:
            bad.append({"name": name, "messages_json": compact(messages), "error": error_record(exc)})
            continue
        raise GoldenDisagreement(f"bad conversation {name}: the reference renders it")
    return {"template": impl.CHATML_TEMPLATE, "tools_json": compact(cases.CONFORMANCE_TOOLS), "cases": good,
            "refused": bad}


# --------------------------------------------------------------------------- streams

_ABSENT = object()


def event_record(event) -> list:
    """``["content", text]``, ``["call_start", index, id, name]`` or ``["arguments", index, fragment]``.
    Each attribute is read once (``fragment`` and ``id`` were read twice, by ``hasattr`` and
    again: behind the wall a round trip each, some 5,500 of a tools replay's 51,700)."""
    fragment = getattr(event, "fragment", _ABSENT)
    if fragment is not _ABSENT:
        return ["arguments", event.index, fragment]
    call_id = getattr(event, "id", _ABSENT)
    if call_id is not _ABSENT:
        return ["call_start", event.index, call_id, event.name]
    return ["content", event.text]


def run_stream(impl, request_id: str, pieces) -> tuple[list[list], list, object]:
    parser = impl.ToolParser(request_id)
    per_piece = [[event_record(e) for e in parser.push(p)] for p in pieces]
    return per_piece, [event_record(e) for e in parser.finish()], parser


def fold_record(impl, request_id: str, pieces) -> dict:
    per_piece, tail, parser = run_stream(impl, request_id, pieces)
    events = [e for events in per_piece for e in events] + tail
    content, calls = impl.collect([_event(impl, e) for e in events])
    return {"content": content, "calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls],
            "incomplete": parser.incomplete}


def _event(impl, record: list):
    kind = record[0]
    if kind == "content":
        return impl.Content(record[1])
    if kind == "call_start":
        return impl.CallStart(record[1], record[2], record[3])
    return impl.Arguments(record[1], record[2])


def random_splits(text: str, seed: list[int], count: int) -> list[list[str]]:
    """``count`` seeded splits of ``text`` into 2 to 12 pieces (``random.Random`` seeded
    with a string: stable across Python versions)."""
    rng = random.Random(":".join(map(str, seed)))
    out = []
    for _ in range(count):
        k = min(rng.randint(2, 12), len(text))
        cuts = sorted(rng.sample(range(1, len(text)), k - 1))
        out.append([text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])])
    return out


def _streams() -> list[dict]:
    impl = reference()
    out = []
    for i, case in enumerate(cases.STREAMS):
        per_piece, tail, _ = run_stream(impl, case.request_id, case.pieces)
        folded = fold_record(impl, case.request_id, case.pieces)
        events = [e for events in per_piece for e in events] + tail
        calls = [impl.ToolCall(c["id"], c["name"], c["arguments"]) for c in folded["calls"]]
        record = {"name": case.name, "test": case.test, "seed_states": case.seed_states,
                  "request_id": case.request_id, "pieces": list(case.pieces),
                  "events": per_piece, "finish_events": tail, **folded,
                  "finish_reason": impl.finish_reason(len(calls), "stop"),
                  "message_json": impl.message_json(folded["content"], calls),
                  "deltas": [impl.delta_json(_event(impl, e)) for e in events], "splits": []}
        text = "".join(case.pieces)
        if case.test == "parser_is_split_invariant":
            record["splits"] = random_splits(text, [SEED, i], cases.RANDOM_SPLITS)
        for pieces in [[text[:c], text[c:]] for c in range(len(text) + 1)] + record["splits"]:
            if fold_record(impl, case.request_id, pieces) != folded:
                raise GoldenDisagreement(f"stream {case.name}: the split {pieces!r:.120} folds differently")
        out.append(record)
    return out


# --------------------------------------------------------------------------- forced walks

def forced_walk(index, eos_id: int, seed: list[int], limit: int) -> list[int]:
    """One walk of a random-logit model: at each step uniform logits for every token
    (the top 53 bits of the raw PCG64 stream: stable across numpy versions), then the
    reference's greedy ``constrained_sample``; ends at EOS (or ``limit`` tokens)."""
    from oracles.automaton import Constraint, SamplingParams, constrained_sample

    rng = np.random.default_rng(seed)
    constraint = Constraint(index)
    greedy = SamplingParams(temperature=0.0)
    tokens: list[int] = []
    while not constraint.done and len(tokens) < limit:
        raw = rng.bit_generator.random_raw(index.vocab_size)
        logits = (raw >> np.uint64(11)).astype(np.float64) / float(1 << 53)
        token, _ = constrained_sample(logits, constraint, greedy, tokens, rng)
        tokens.append(int(token))
    return tokens


def walk_text(vocab, tokens: list[int], eos_id: int) -> bytes:
    return b"".join(vocab[t] for t in tokens if t != eos_id)


def token_pieces(vocab, tokens: list[int], eos_id: int) -> list[str]:
    """The text of each token as a server streams it: bytes through an incremental UTF-8
    decoder (a token holding half a character yields ``""`` until the rest arrives)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    return [decoder.decode(vocab[t]) for t in tokens if t != eos_id] + [decoder.decode(b"", final=True)]


def check_forced_call(impl, text_pieces: list[str], request_id: str) -> str | None:
    """None if the pieces parse to exactly one valid get_weather call and no content."""
    import jsonschema

    per_piece, tail, _ = run_stream(impl, request_id, text_pieces)
    content, calls = impl.collect([_event(impl, e) for events in [*per_piece, tail] for e in events])
    if content is not None or len(calls) != 1 or calls[0].name != "get_weather":
        return f"expected one get_weather call and no content, got content {content!r:.40} and {len(calls)} calls"
    try:
        jsonschema.validate(json.loads(calls[0].arguments), cases.WEATHER_PARAMETERS)
    except (ValueError, jsonschema.ValidationError) as exc:
        return f"arguments {calls[0].arguments!r:.60} are not valid: {str(exc).splitlines()[0]}"
    return None


def _forced_walks() -> dict:
    from oracles import derivatives
    from oracles.automaton import TokenIndex, regex_to_dfa

    impl = reference()
    body = dict(cases.GRAMMARS)["named_get_weather"]
    pattern = impl.grammar(impl.parse_tool_request(body)).pattern
    vocab, eos = constrain_cases.CONSTRAIN_VOCAB, constrain_cases.CONSTRAIN_EOS
    index = TokenIndex(regex_to_dfa(pattern), vocab, eos)
    walks = []
    for k in range(cases.FORCED_WALKS):
        tokens = forced_walk(index, eos, [SEED, k], cases.FORCED_LIMIT)
        text = walk_text(vocab, tokens, eos)
        if tokens[-1] != eos or not derivatives.matches(pattern, text):
            raise GoldenDisagreement(f"forced walk {k}: did not end in a whole call ({len(tokens)} tokens)")
        problem = check_forced_call(impl, token_pieces(vocab, tokens, eos), f"walk{k}")
        if problem:
            raise GoldenDisagreement(f"forced walk {k}: {problem}")
        walks.append({"seed": [SEED, k], "tokens": tokens, "text_hex": text.hex()})
    return {"grammar": "named_get_weather", "body": body, "parameters_json": compact(cases.WEATHER_PARAMETERS),
            "walks": walks}


def _vocab() -> dict:
    """The 123-entry vocabulary of the walks (constrain_golden.json's): hex tokens, null for EOS and specials."""
    vocab, eos = constrain_cases.CONSTRAIN_VOCAB, constrain_cases.CONSTRAIN_EOS
    return {"size": len(vocab), "eos_id": eos, "tokens_hex": [hex_or_null(t) for t in vocab]}


# --------------------------------------------------------------------------- the document

def build_tools_golden() -> dict:
    """The tools_golden document (see the module docstring)."""
    return {"format": KIND, "format_version": format_version(KIND), "notice": NOTICE,
            "generated_by": {"command": COMMAND, "generator": "golden.tools_build.build_tools_golden", "seed": SEED,
                             "package_version": package_version(),
                             "oracle": "oracles.tools (grammars cross-checked against oracles.derivatives)"},
            "conformance_tools_json": compact(cases.CONFORMANCE_TOOLS),
            "requests": _requests(), "grammars": _grammars(), "conversations": _conversations(),
            "streams": _streams(), "vocab": _vocab(), "forced_walks": _forced_walks()}
