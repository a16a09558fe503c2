"""The ``constrain-harness dfa`` verb, driven through ``main(argv, stdout, stderr)``."""

from __future__ import annotations

import io
import json
import re

from harness.cli import main
from harness.exitcodes import ExitCode


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def parse_dump(text: str) -> dict[int, tuple[bool, str]]:
    states = {}
    for line in text.splitlines()[1:]:
        m = re.match(r"^(.)(.)(\d{4})\s*(.*)$", line)
        states[int(m.group(3))] = (m.group(2) == "*", m.group(4))
    return states


def test_dfa_prints_the_hand_example():
    code, out, _ = run("dfa", "(cat|car|dog)s?")
    assert code == ExitCode.OK
    assert out.splitlines()[0] == "DFA: 7 states, 2 accepting, start 0"
    states = parse_dump(out)
    assert [s for s, (acc, _) in states.items() if acc] == [5, 6]
    assert states[0][1] == "c -> 1, d -> 2" and states[3][1] == "r t -> 5" and states[6][1] == ""
    assert out.splitlines()[1].startswith(">")


def test_dfa_groups_byte_ranges():
    _, out, _ = run("dfa", r"[0-9a-f]x")
    assert "0-9 a-f -> 1" in out


def test_dfa_schema_and_dot(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"type": "array", "items": {"type": "boolean"}, "maxItems": 1}))
    code, out, _ = run("dfa", "--schema", str(path))
    assert code == ExitCode.OK and out.startswith("regex: \\[")
    code, out, _ = run("dfa", "a|b", "--dot")
    assert code == ExitCode.OK and out.startswith("digraph") and '0 -> 1 [label="a b"];' in out


def test_dfa_errors_are_usage_errors_with_a_caret(tmp_path):
    code, _, err = run("dfa", "a(?=b)")
    assert code == ExitCode.USAGE and "lookahead" in err and "   ^" in err
    code, _, err = run("dfa", "--schema", str(tmp_path / "missing.json"))
    assert code == ExitCode.USAGE and "cannot read" in err
    code, _, err = run("dfa")
    assert code == ExitCode.USAGE
    bad = tmp_path / "bad.json"
    bad.write_text('{"type":"string","pattern":"x"}')
    code, _, err = run("dfa", "--schema", str(bad))
    assert code == ExitCode.USAGE and "/pattern" in err


def test_usage_errors_help_and_version_go_to_the_streams_main_was_given(capsys):
    code, out, err = run("no-such-verb")
    assert code == ExitCode.USAGE and "invalid choice: 'no-such-verb'" in err and out == ""
    code, out, err = run("dfa", "--help")
    assert code == 0 and out.startswith("usage: constrain-harness dfa") and err == ""
    code, out, err = run("--version")
    assert code == 0 and out.startswith("constrain-harness ") and err == ""
    real = capsys.readouterr()
    assert real.out == "" and real.err == ""
