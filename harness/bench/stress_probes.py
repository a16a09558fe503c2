"""The stress corpus's ``probe`` cases (issue 25): hostile inputs that are not a pattern
or a schema, each run by ``bench stress`` in its own child like the other cases.

A probe is a function that performs the attack and checks the answer the contract
promises (a ``PROBES`` entry: name -> function returning a one-line detail); a wrong
answer raises ``AssertionError``, which ``bench stress`` reports as outside the
contract. E.g. ``run_probe("sample-equal-huge-logits")`` returns
``"logprob -0.693147"``.
"""

from __future__ import annotations

import io
import math
import os
import tempfile
from pathlib import Path

__all__ = ["PROBES", "run_probe"]

CALL = '<tool_call>{"name":"f","arguments":{"s":"a\\\\\\"b"}}</tool_call>'


def _parser(pieces) -> tuple:
    from oracles.tools import ToolParser, collect

    parser = ToolParser("stress")
    events = [e for piece in pieces for e in parser.push(piece)] + parser.finish()
    return collect(events)


def tool_parser_whitespace_after_a_call() -> str:
    content, calls = _parser([CALL, *([" "] * 100_000)])  # was 16.5 s (quadratic)
    assert content is None and len(calls) == 1, (content, calls)
    return "100,000 one-byte pushes: 1 call, no content"


def tool_parser_empty_piece_after_a_backslash() -> str:
    text = CALL * 2000
    content, calls = _parser([p for ch in text for p in (ch, "")])  # an empty piece after every character
    assert content is None and len(calls) == 2000 and all(c.arguments == '{"s":"a\\\\\\"b"}' for c in calls)
    return f"{len(text)} characters, an empty piece after each: 2000 calls, escapes kept"


def _cli(*argv: str) -> tuple[int, str]:
    from harness import cli

    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return code, err.getvalue()


def _golden_replay_refuses(kind: str) -> str:
    folder = Path(tempfile.mkdtemp(prefix="constrain-stress-"))
    target = folder / "masks_golden.json"
    try:
        if kind == "folder":
            target.mkdir()
        elif kind == "dev-zero":
            target.symlink_to("/dev/zero")
        else:
            os.mkfifo(target)
        code, err = _cli("golden", "replay", "--dir", str(folder), "--file", "masks")
        assert code == 2 and len(err.strip().splitlines()) == 1 and "cannot read" in err, (code, err)
        return err.strip()[-70:]
    finally:
        if target.is_dir() and not target.is_symlink():
            target.rmdir()
        elif target.exists() or target.is_symlink():
            target.unlink()
        folder.rmdir()


def _usage_error(*argv: str) -> str:
    code, err = _cli(*argv)
    assert code == 2 and len(err.strip().splitlines()) == 1, (code, err)
    return err.strip()[-70:]


def sample_equal_huge_logits() -> str:
    import numpy as np

    from oracles.automaton.sampling import SamplingParams, sample

    _, logprob = sample([1e16, 1e16], SamplingParams(0), [], np.random.default_rng(0))
    assert abs(logprob + math.log(2)) < 1e-12, logprob  # was 0.0
    return f"logprob {logprob:.6f}"


def _contract_error(call, kind: type) -> str:
    try:
        call()
    except kind as exc:
        return f"{type(exc).__name__}: {str(exc)[:60]}"
    raise AssertionError(f"no {kind.__name__}")


def sample_history_half() -> str:
    import numpy as np

    from oracles.automaton.sampling import SamplingParams, sample

    return _contract_error(lambda: sample([1.0, 2.0], SamplingParams(0), [0.5], np.random.default_rng(0)), TypeError)


def vocab_added_token_int_content() -> str:
    from types import SimpleNamespace

    from oracles.automaton import vocab_bytes
    from oracles.automaton.errors import InvalidArgument

    class Tok:
        def get_vocab(self, with_added_tokens=True):
            return {"a": 0, "b": 1}

        def get_added_tokens_decoder(self):
            return {1: SimpleNamespace(content=7, special=False)}
    return _contract_error(lambda: vocab_bytes(Tok()), InvalidArgument)


def schema_annotation_nan() -> str:
    from oracles.automaton import json_schema_to_regex
    from oracles.automaton.errors import SchemaMalformed

    return _contract_error(lambda: json_schema_to_regex({"type": "string", "default": math.nan}), SchemaMalformed)


PROBES = {
    "tool-parser-whitespace-after-a-call": tool_parser_whitespace_after_a_call,
    "tool-parser-empty-piece-after-a-backslash": tool_parser_empty_piece_after_a_backslash,
    "golden-replay-dir-folder": lambda: _golden_replay_refuses("folder"),
    "golden-replay-dir-dev-zero": lambda: _golden_replay_refuses("dev-zero"),
    "golden-replay-dir-fifo": lambda: _golden_replay_refuses("fifo"),
    "autograder-build-points-inf": lambda: _usage_error("autograder", "build", "--points", "inf", "--timeout", "inf",
                                                        "--memory", "1e12"),
    "grade-tests-max-score-nan": lambda: _usage_error("grade-tests", "x", "--max-score", "nan"),
    "mutants-only-empty": lambda: _usage_error("mutants", "--only", ""),
    "sample-equal-huge-logits": sample_equal_huge_logits,
    "sample-history-half": sample_history_half,
    "vocab-added-token-int-content": vocab_added_token_int_content,
    "schema-annotation-default-nan": schema_annotation_nan,
}


def warm() -> None:
    """Import what the probes use before the clock starts (the CLI's verbs, the parser)."""
    from harness import cli
    from oracles import tools  # noqa: F401

    cli.build_parser()


def run_probe(name: str) -> str:
    """Run the probe ``name`` (a ``PROBES`` key); its detail line, or AssertionError."""
    return PROBES[name]()
