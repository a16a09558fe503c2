"""A finding as a reproducer a maintainer can paste into a bug report.

Main access point: ``reproducer(finding)`` -> text: the engine and its version, the input
(pattern or schema), the witness as Python bytes, what the oracles say, what the engine
says, and a five-line Python snippet that shows it with the engine alone (no harness), over
the 256 single-byte tokens, as the adapters ask (``SNIPPETS``).

A mask finding (over a vocabulary, e.g. cl100k_base) names the prefix and the token as
bytes, the token's id and the vocabulary; its snippet (``MASK_SNIPPETS``) asks the engine
alone over a vocabulary it can build without a download: the 256 single bytes plus the token
(outlines-core: ``256 in index.get_allowed_tokens(state)`` after the prefix's bytes; EOS:
``is_final_state``), or, where the engine's byte tokenizer has no multi-byte token
(llguidance), its own byte walk of the token after the prefix (the mask and the byte walk
agree unless the engine keeps only canonical tokens: a refusal its walk continues is
explained, never a finding, so the walk shows every mask finding it can). xgrammar's mask
findings have no snippet yet.

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


def _outlines_core_mask(f: Finding, expected: str) -> list[str]:
    regex = (repr(f.source.text) if f.source.kind == "regex"
             else f"oc.json_schema.build_regex_from_schema({f.source.text!r})")
    tok = f.token
    extra = f", {tok!r}: [257]" if tok is not None and len(tok) > 1 else ""
    ask = ("index.is_final_state(state)" if tok is None
           else f"{257 if extra else tok[0]} in (index.get_allowed_tokens(state) or [])")
    return ["import outlines_core as oc",
            f"index = oc.Index({regex}, oc.Vocabulary(256, {{**{{bytes([b]): [b] for b in range(256)}}{extra}}}))",
            "state = index.get_initial_state()",
            f"for b in {f.prefix!r}: state = None if state is None else index.get_next_state(state, b)",
            f"print(state is not None and {ask})  # {expected}"]


def _llguidance_mask(f: Finding, expected: str) -> list[str]:
    kind = "regex" if f.source.kind == "regex" else "json_schema"
    ask = ("m.is_accepting()" if f.token is None
           else f"m.validate_tokens(list({f.token!r})) == {len(f.token)}")
    how = "" if f.token is None else "the engine's own byte walk of the token; "
    return ["import llguidance as llg",
            f"m = llg.LLMatcher(llg.LLTokenizer('byte'), llg.grammar_from({kind!r}, {f.source.text!r}))",
            f"ok = m.consume_tokens(list({f.prefix!r}))",
            f"print(ok and {ask})  # {how}{expected}"]


MASK_SNIPPETS = {"outlines-core": _outlines_core_mask, "llguidance": _llguidance_mask}
"""Peer name -> the writer of a mask finding's snippet (module docstring)."""

SNIPPETS = {"outlines-core": _outlines_core, "llguidance": _llguidance, "interegular": _interegular,
            "xgrammar": _xgrammar}
"""Peer name -> the snippet's writer: at most five lines of Python using the engine alone."""


def snippet(f: Finding) -> list[str] | None:
    """The five-line snippet of ``f`` (None for an engine without one, e.g. a stand-in)."""
    if f.op == "mask":
        write = MASK_SNIPPETS.get(f.peer) if f.prefix is not None else None
    else:
        write = SNIPPETS.get(f.peer) if f.op in ("compile", "accepts", "load") else None
    if write is None:
        return None
    expected = _expected(f)
    return write(f, f"the oracles say {expected}" if expected is not None else "compare with the oracles")


def _expected(f: Finding):
    """The oracles' common answer, when they have one (True/False)."""
    answers = {v for v in f.oracles.values() if isinstance(v, bool)}
    return answers.pop() if len(answers) == 1 else None


def reproducer(f: Finding) -> str:
    """The finding as text (module docstring)."""
    lines = [f"{f.peer} {f.version}: {f.kind} during {f.op} of {f.source.kind} {f.source.text!r}"]
    if f.prefix is not None:
        what = "EOS" if f.token is None else f"token {f.token_id}: {f.token!r}"
        lines += [f"  prefix (bytes): {f.prefix!r}", f"  {what}, over {f.vocabulary}"]
    elif f.witness is not None:
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
