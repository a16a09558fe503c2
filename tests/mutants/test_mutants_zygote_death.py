"""A catalogue run whose zygote died during it (its candidate processes SIGKILLed with its PID
namespace) is the harness's failure, not the mutant's: the pass is run once more with fresh
candidates and the second run decides (``runner._zygote_died``, ``_catalogue_pass``). Found
2026-12-07 (issue 52 item 4's check): before, a test whose candidate died so was "crashed", a kill."""

from __future__ import annotations

from pathlib import Path

from harness.mutants import runner, warm
from harness.sandbox import zygote


class _FakeGrader:
    """A warm grader whose run ends as ``reply`` says (the output file written as a run's)."""

    alive = True

    def __init__(self, reply: dict):
        self.reply, self.asked = reply, []

    def run(self, argv, env, cwd, cpu, wall, output, module="pytest", zygote=False):
        self.asked.append(zygote)
        Path(output).write_text("1 failed\n", encoding="utf-8")
        return dict(self.reply)


def _run_warm(monkeypatch, off: str | None, zygote_on: bool = True) -> tuple[int | None, str]:
    reply = {"code": 1, "cpu": 0.2, "backstop": False, "zygote_cpu": 0.1, **({"zygote_off": off} if off else {})}
    monkeypatch.setattr(warm, "server", lambda env, cwd: _FakeGrader(reply))
    monkeypatch.setattr(runner, "_ZYGOTE_SAID", ["said"])   # nothing printed
    return runner._run_warm("pytest", ["-q"], 30.0, 10.0, None, zygote=zygote_on)


def test_a_run_whose_zygote_died_is_the_harness_s_failure(monkeypatch):
    for off in ("the zygote process ended", "the zygote stopped answering (EOFError)"):
        code, problem = _run_warm(monkeypatch, off)
        assert code is None and problem.startswith(runner.HARNESS_ERROR) and "zygote died" in problem, problem
        assert runner._stopped(problem) == problem   # the pass's problem: run again (``_suspect``)
        assert runner._suspect({}, problem, {}, ("test_x",)) == problem


def test_a_zygote_that_stopped_otherwise_leaves_the_verdict_alone(monkeypatch):
    """It could not start, or a child left something after its run: the candidates ran (fresh, or
    whole), so the run's answer stands; so does any run without the zygote."""
    for off in (None, "a child left 2 processes", "it could not start: no bubblewrap"):
        assert _run_warm(monkeypatch, off) == (1, "1 failed\n"), off
    assert _run_warm(monkeypatch, "the zygote process ended", zygote_on=False) == (1, "1 failed\n")


def test_the_words_are_the_zygote_s_own():
    """``Zygote.after_run`` of a zygote whose process is gone says so in ``ZYGOTE_DIED``'s words."""
    dead = zygote.Zygote()
    assert runner._zygote_died(dead.after_run())


def test_the_second_pass_runs_fresh_and_decides(monkeypatch, tmp_path):
    """``_catalogue_pass``: the first run's zygote died, the second (fresh candidates) passes."""
    calls = []

    def fake(package, tests, deep, timeout, **kwargs):
        calls.append(kwargs.get("zygote", False))
        if len(calls) == 1:
            return {"test_x": "crashed"}, runner._zygote_died("the zygote process ended")
        return {"test_x": "passed"}, None
    monkeypatch.setattr(runner, "run_catalogue_against", fake)
    monkeypatch.setattr(warm, "ZYGOTE", True)
    found, problem, why, _ = runner._catalogue_pass(tmp_path, ("test_x",), False, 30.0, True)
    assert calls == [True, False] and found == {"test_x": "passed"} and problem is None
    assert "zygote died" in why
