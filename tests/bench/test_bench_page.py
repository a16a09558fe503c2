"""The dated performance page is written from bench output only (issue 51, item 6)."""

from __future__ import annotations

import io
import types

from harness.bench.page import HEAD, add_section, section
from harness.bench.timing import Report, Row, Timing
from harness.commands import bench as bench_verb


def _report() -> Report:
    report = Report(io.StringIO())
    report.add(Row("compile", "ours", Timing(0.002, 0.001, 7)))
    report.add(Row("compile", "peer", Timing(0.004, 0.003, 7), peer_of="ours", target="ratio <= 1"))
    return report


def test_the_table_holds_each_row_with_its_ratio_against_the_peer():
    rows = _report().table()
    assert rows[0][:2] == ("compile", "ours") and rows[0][4] == ""
    assert rows[1][4] == "0.500"  # ours 2 ms over the peer's 4 ms, measured in the same run


def test_sections_go_newest_first_and_earlier_ones_stay(tmp_path):
    page = tmp_path / "performance.md"
    add_section(page, section("2026-12-01 10:00 UTC", ["compile"], "machine: m", "0.1", "0.2", _report().table()))
    add_section(page, section("2026-12-02 10:00 UTC", ["check"], "machine: m", "0.3", "0.4", _report().table()))
    text = page.read_text()
    assert text.startswith(HEAD)
    assert text.index("## 2026-12-02") < text.index("## 2026-12-01")
    assert text.count("| compile | peer | 4.00 ms | 7 | 0.500 | ratio <= 1 |") == 2


def test_a_cell_cannot_break_the_table():
    text = section("d", ["x"], "m", "0", "0", [("a|b", "c\nd", "1 s", 1, "", "")])
    assert "| a\\|b | c d | 1 s | 1 |  |  |" in text


def test_bench_page_writes_a_dated_section(tmp_path, monkeypatch):
    """The verb itself, with one benchmark standing in for the real ones (their cost is theirs)."""
    fake = types.SimpleNamespace(run=lambda report, quick: report.add(Row("fake", "ours", Timing(1.0, 1.0, 3))))
    monkeypatch.setitem(bench_verb.BENCHMARKS, "fake", "fake_bench_module")
    monkeypatch.setattr(bench_verb.importlib, "import_module", lambda name: fake)
    page = tmp_path / "performance.md"
    args = types.SimpleNamespace(names=["fake"], quick=True, page=page)
    assert bench_verb.run(args, io.StringIO(), io.StringIO()) == 0
    text = page.read_text()
    assert "bench fake" in text and "| fake | ours | 1.00 s | 3 |" in text and "load average" in text
