"""The deep tier's malformed-schema check behind the wall (``harness/suite/test_deep.py``,
``test_deep_malformed_schemas_are_refused``): its lone-surrogate cases reach the candidate.

Before the channel carried a str that is not UTF-8 (``harness.sandbox.channel``: a text
extension, ``surrogatepass``), the grader's own UnicodeEncodeError, a ValueError, was taken for
the candidate's refusal, and the cases passed for any candidate. Oracle: the spec (a schema value
or property name with no JSON text is refused with ValueError or TypeError); the faulty candidate
``tests/candidates/wrong_accepts_lone_surrogates.py`` reads a lone surrogate as ``?`` and departs
from the spec there only. ``tests/suite/test_deep_exact.py`` checks the same in process."""

from __future__ import annotations

import pytest

from harness.sandbox import Candidate, RemoteError
from harness.suite import inputs, test_deep, tiers
from tests.support.helpers import CANDIDATES, fresh_catalogue_state

MALFORMED_SCHEMAS = test_deep.test_deep_malformed_schemas_are_refused
SURROGATE_SCHEMAS = [{"const": "\ud800"}, {"type": "object", "properties": {"\ud800": {"type": "null"}}}]


@pytest.fixture(autouse=True)
def default_tier():
    fresh_catalogue_state()
    yield
    fresh_catalogue_state()


def test_the_catalogue_sends_the_two_lone_surrogates():
    assert [s for s in inputs.SCHEMAS_WITH_NO_JSON if s in SURROGATE_SCHEMAS] == SURROGATE_SCHEMAS


@pytest.mark.e2e
def test_a_candidate_reading_lone_surrogates_fails_the_malformed_schema_check_behind_the_wall():
    with Candidate(str(CANDIDATES / "wrong_accepts_lone_surrogates.py")) as cand:
        MALFORMED_SCHEMAS(cand.module)  # the default tier: each departure a note
        notes = tiers.drain_notes()
        assert notes == [f"contract decision not met: malformed_schema_valueerror: json_schema_to_regex({schema!r}) "
                         "(no JSON): nothing was raised" for schema in SURROGATE_SCHEMAS]
        tiers.set_strict(True)  # the deep pass of mutants --generated: --deep --strict
        with pytest.raises(AssertionError, match="malformed_schema_valueerror"):
            MALFORMED_SCHEMAS(cand.module)
    with Candidate(None) as cand:  # the reference refuses both: no note, and strict passes
        MALFORMED_SCHEMAS(cand.module)
        assert tiers.drain_notes() == []


@pytest.mark.e2e
def test_a_schema_holding_an_int_past_4300_digits_reaches_the_candidate():
    # no catalogue check sends one (docs/mutants-kill-rate.md: schema.py:288); before the channel sent an
    # int as its bytes, the grader's own str(int) raised ValueError before anything was sent
    with Candidate(None) as cand:
        for value in (10 ** 5000, -(10 ** 5000)):
            try:
                cand.module.json_schema_to_regex({"const": value})
            except ValueError as exc:
                assert isinstance(exc, RemoteError) and exc.remote_type, "the grader's ValueError, not the candidate's"
        assert cand.alive and cand.incident is None


def test_a_test_whose_request_the_grader_could_not_send_is_an_error_never_the_candidates_failure():
    # the catalogue's record of a test that met HarnessCannotSend: "error" (the harness's), which the
    # mutant runner never counts as a kill (``runner._suspect``), not "failed"
    from types import SimpleNamespace

    from harness.sandbox import HarnessCannotSend
    from harness.suite import plugin

    exc = HarnessCannotSend("harness error: the grader could not send call json_schema_to_regex: TypeError: ...")
    run = SimpleNamespace(candidate=None, incident_before=None)
    item = SimpleNamespace(config=SimpleNamespace(stash={plugin.RUN_KEY: run}))
    report = SimpleNamespace(failed=True, skipped=False, when="call", longreprtext="")
    hook = plugin.pytest_runtest_makereport(item, SimpleNamespace(when="call", excinfo=SimpleNamespace(value=exc)))
    next(hook)
    with pytest.raises(StopIteration):
        hook.send(SimpleNamespace(get_result=lambda: report))
    outcome, reason, _ = plugin._summarize([report])
    assert (outcome, reason) == ("error", f"HarnessCannotSend: {exc}")
