"""The Rust port's tool-surface mutants l10_9:s12-s16 (spec ``002_...`` section 5),
simulated on the Python reference ``oracles.tools`` and killed by ``golden replay
--file tools`` (``golden.tools_replay``).

Each entry is a ``mutant.Mutant`` whose edits are anchored on syntax
(``anchors.Anchor``: a function of ``oracles/tools/<file>`` and the node in it, so a
reformatted reference never makes them stale); ``apply.materialize`` copies
``oracles/tools`` for them (their kind is ``TOOLS_REPLAY``). ``killers`` lists every
replay check that fails on a mutant, the check the spec names first
(``tests/mutants/test_tools_mutants.py`` checks the failing set is exactly ``killers`` and
that ``example`` changes). Ids carry the ``l10_9:`` namespace
so they cannot be confused with L8.7's ``s01``-``s27``.

====  ==============================================  ==========================================
id    pitfall (seed)                                  killed by (spec's killer first)
====  ==============================================  ==========================================
s12   parameters outside the subset accepted          parse_tool_request_hand_example
s13   a named tool_choice allowing every tool         grammar_by_tool_choice
s14   dropping argument fragments                     parser_hand_example (+ parallel, split,
                                                      forced call, the malformed-markup streams of
                                                      holds-back: every stream that closes a call)
s15   not holding back a partial <tool_call>          parser_holds_back_only_real_markup (+ hand
                                                      example, split, forced call)
s16   content: "" next to tool_calls                  message_and_delta_json_shapes
====  ==============================================  ==========================================

Rejected ideas: s14 as "only the header's piece streams arguments" (the spec's table
names the symptom, not the bug; dropping the closing fragment is the smaller edit
with the same symptom); s15 as "no hold-back at all" (the call after the partial
opener is then lost too: two mistakes in one mutant).

Example::

    >>> package = apply.materialize(BY_ID["l10_9:s16"], tmp_path)
    >>> replay_tools(doc, apply.load(package)).failures
    {'message_and_delta_json_shapes': 88}
"""

from __future__ import annotations

from pathlib import Path

from harness.mutants.anchors import Anchor
from harness.mutants.mutant import TOOLS_REPLAY, Mutant

BAD_PARAMETERS = ('{"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object",'
                  '"properties":{"city":{"type":"string","pattern":"^P"}}}}}]}')
NAMED = ('{"tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"b"}}],'
         '"tool_choice":{"type":"function","function":{"name":"a"}}}')


def _status(m):
    try:
        m.parse_tool_request(BAD_PARAMETERS)
    except m.ToolError as exc:
        return exc.status
    return "accepted"


def _named_pattern(m):
    return m.grammar(m.parse_tool_request(NAMED)).pattern


def _fold(*pieces):
    def run(m):
        parser = m.ToolParser("x")
        return m.collect([e for p in pieces for e in parser.push(p)] + parser.finish())
    return run


def _message(m):
    return m.message_json(None, [m.ToolCall("call_x_0", "f", "{}")])


TOOLS_MUTANTS: tuple[Mutant, ...] = (
    Mutant("l10_9:s12", "tools.request", "parameters outside the subset accepted (e.g. 'pattern' gives no 422: "
           "the tool silently takes no arguments)", ("parse_tool_request_hand_example",),
           (Anchor("request.py", "_parameters_pattern", 'raise ...(422, where, "unsupported_parameter", ...) from None',
                   "return json_schema_to_regex(DEFAULT_PARAMETERS)"),),
           _status, kind=TOOLS_REPLAY),
    Mutant("l10_9:s13", "tools.grammar", "a named tool_choice allowing every tool (named 'a' also allows 'b')",
           ("grammar_by_tool_choice",),
           (Anchor("grammar.py", "grammar", "return Grammar(call_pattern(tool.name, _arguments(tool)))",
                   "return Grammar(_any_of([call_pattern(t.name, _arguments(t)) for t in tools]))"),),
           _named_pattern, kind=TOOLS_REPLAY),
    Mutant("l10_9:s14", "tools.parser", "dropping argument fragments (the fragment that closes the arguments is "
           "lost: '{\"city\":\"Pa' arrives without 'ris\"}')",
           ("parser_hand_example", "parser_parallel_calls", "parser_is_split_invariant",
            "forced_call_from_a_random_model_is_valid", "parser_holds_back_only_real_markup"),
           (Anchor("parser.py", "ToolParser._args", "if fragment:\n    events.append(_arguments(self.calls - 1, fragment))",
                   "if fragment and end is None:\n    events.append(_arguments(self.calls - 1, fragment))"),),
           _fold('<tool_call>{"name":"f","arguments":{"a":', '1}}</tool_call>'), kind=TOOLS_REPLAY),
    Mutant("l10_9:s15", "tools.parser", "not holding back a partial <tool_call> ('Sure.<tool_' shows '<tool_' as "
           "content)",
           ("parser_holds_back_only_real_markup", "parser_hand_example", "parser_is_split_invariant",
            "forced_call_from_a_random_model_is_valid"),
           (Anchor("parser.py", "ToolParser._text",
                   "if cut >= 0 and OPENER.startswith(text[cut:]):\n    self._held = text[cut:]\n    text = text[:cut]",
                   "if cut >= 0 and OPENER.startswith(text[cut:]):\n    self._held = text[cut:]"),),
           _fold("Sure.<tool_", 'call>{"name":"f","arguments":{}}</tool_call>'), kind=TOOLS_REPLAY),
    Mutant("l10_9:s16", "tools.parser", "content: \"\" next to tool_calls (clients treat the turn as text)",
           ("message_and_delta_json_shapes",),
           (Anchor("parser.py", "message_json", "if calls and not content:\n    content = None",
                   'if calls and not content:\n    content = ""'),),
           _message, kind=TOOLS_REPLAY),
)
BY_ID = {m.id: m for m in TOOLS_MUTANTS}


def kill_matrix(doc: dict, root: Path) -> dict[str, set[str]]:
    """For each mutant, the replay checks that fail on it (in-process: the mutants are ours)."""
    from golden.tools_replay import replay_tools
    from harness.mutants.apply import load, materialize

    return {m.id: set(replay_tools(doc, load(materialize(m, root))).failures) for m in TOOLS_MUTANTS}


if __name__ == "__main__":  # python -m harness.mutants.tools_mutants: the kill matrix
    import tempfile

    from golden import fileformat

    table = kill_matrix(fileformat.load(fileformat.GOLDEN_DIR / fileformat.FILES["tools_golden"], "tools_golden"),
                        Path(tempfile.mkdtemp(prefix="tools-mutants-")))
    for mutant in TOOLS_MUTANTS:
        killed = table[mutant.id]
        print(f"{mutant.id}  {'killed' if mutant.killers[0] in killed else 'SURVIVED'}  by {', '.join(sorted(killed))}")
