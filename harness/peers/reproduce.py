"""A finding as a reproducer a maintainer can paste into a bug report.

Main access point: ``reproducer(finding)`` -> text: the engine and its version, the input
(pattern or schema), the witness as Python bytes, what the oracles say, what the engine
says, and a five-line Python snippet that shows it with the engine alone (no harness), over
the 256 single-byte tokens, as the adapters ask (``SNIPPETS``). A mask finding (over a
vocabulary) names the prefix, the token and the vocabulary's size, and has no snippet yet.

Example (outlines-core, a regex, a document)::

    outlines-core 0.2.14: wrong answer on regex '0(x5)?'
      witness (bytes): b'0x5'
      oracles: re.fullmatch on bytes: True; ours: True
      engine: rejects
      import outlines_core as oc
      index = oc.Index('0(x5)?', oc.Vocabulary(256, {bytes([b]): [b] for b in range(256)}))
      state = index.get_initial_state()
      for b in b'0x5': state = None if state is None else index.get_next_state(state, b)
      print(state is not None and index.is_final_state(state))  # the oracles say True
"""

from __future__ import annotations

from harness.peers.findings import Finding

__all__ = ["reproducer", "snippet", "SNIPPETS"]


def _outlines_core(f: Finding, expected: str) -> list[str]:
    regex = (repr(f.source.text) if f.source.kind == "regex"
             else f"oc.json_schema.build_regex_from_schema({f.source.text!r})")
    lines = ["import outlines_core as oc",
             f"index = oc.Index({regex}, oc.Vocabulary(256, {{bytes([b]): [b] for b in range(256)}}))"]
    if f.witness is None:
        return lines + ["print(index.get_initial_state())  # the input is valid: an index, not an error"]
    return lines + ["state = index.get_initial_state()",
                    f"for b in {f.witness!r}: state = None if state is None else index.get_next_state(state, b)",
                    f"print(state is not None and index.is_final_state(state))  # {expected}"]


def _llguidance(f: Finding, expected: str) -> list[str]:
    kind = "regex" if f.source.kind == "regex" else "json_schema"
    lines = ["import llguidance as llg",
             f"m = llg.LLMatcher(llg.LLTokenizer('byte'), llg.grammar_from({kind!r}, {f.source.text!r}))"]
    if f.witness is None:
        return lines + ["print(m.is_error(), m.get_error())  # the input is valid: expected False"]
    return lines + ["print(m.get_error())  # empty: the grammar compiled",
                    f"ok = m.consume_tokens(list({f.witness!r}))",
                    f"print(ok and m.is_accepting())  # {expected}"]


def _interegular(f: Finding, expected: str) -> list[str]:
    lines = ["import interegular", f"fsm = interegular.parse_pattern({f.source.text!r}).to_fsm().reduce()"]
    if f.witness is None:
        return lines + ["print(fsm)  # the input is valid: an FSM, not an error"]
    return lines + [f"text = {f.witness!r}.decode('utf-8')  # interegular matches characters",
                    f"print(fsm.accepts(text))  # {expected}"]


def _xgrammar(f: Finding, expected: str) -> list[str]:
    compile_call = "compile_regex" if f.source.kind == "regex" else "compile_json_schema"
    lines = ["import xgrammar as xgr",
             "info = xgr.TokenizerInfo([bytes([b]) for b in range(256)] + [b'</s>'], "
             "vocab_type=xgr.VocabType.RAW, stop_token_ids=[256])",
             f"m = xgr.GrammarMatcher(xgr.GrammarCompiler(info).{compile_call}({f.source.text!r}))"]
    if f.witness is None:
        return lines + ["print(m)  # the input is valid: a matcher, not an error"]
    return lines + [f"ok = all(m.accept_token(b) for b in {f.witness!r})",
                    f"print(ok and m.accept_token(256) and m.is_terminated())  # {expected}"]


SNIPPETS = {"outlines-core": _outlines_core, "llguidance": _llguidance, "interegular": _interegular,
            "xgrammar": _xgrammar}
"""Peer name -> the snippet's writer: at most five lines of Python using the engine alone."""


def snippet(f: Finding) -> list[str] | None:
    """The five-line snippet of ``f`` (None for an engine without one, e.g. a stand-in)."""
    write = SNIPPETS.get(f.peer)
    if write is None or f.op not in ("compile", "accepts", "load"):
        return None  # a mask finding: its vocabulary and prefix are in the finding, no five-line snippet yet
    expected = _expected(f)
    return write(f, f"the oracles say {expected}" if expected is not None else "compare with the oracles")


def _expected(f: Finding):
    """The oracles' common answer, when they have one (True/False)."""
    answers = {v for v in f.oracles.values() if isinstance(v, bool)}
    return answers.pop() if len(answers) == 1 else None


def reproducer(f: Finding) -> str:
    """The finding as text (module docstring)."""
    lines = [f"{f.peer} {f.version}: {f.kind} during {f.op} of {f.source.kind} {f.source.text!r}"]
    if f.witness is not None:
        lines.append(f"  witness (bytes): {f.witness!r}")
    if f.oracles:
        lines.append("  oracles: " + "; ".join(f"{k}: {v}" for k, v in f.oracles.items()))
    lines.append(f"  engine: {f.engine}")
    if f.detail:
        lines.append(f"  detail: {f.detail}")
    code = snippet(f)
    if code is not None:
        lines += ["  snippet:"] + [f"    {line}" for line in code]
    return "\n".join(lines)
