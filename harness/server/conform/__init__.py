"""Conformance of a live OpenAI-compatible server: the tools.* cases of the L10.9 spec.

Main access point: ``run_conformance(base_url)`` (``harness.server.conform.run``), or the
command ``constrain-harness conform --base-url URL``. One module per concern:

    exchange   the requests, through the official openai client, bounded in time and size
    cases      the cases tools.call, tools.stream, tools.choice, tools.errors, response_format
    verdict    Failure (rule, request, excerpt) and CaseResult
    run        runs the cases, turns every exchange problem into a verdict
    report     table, JSON and JUnit XML

The reference server these cases are tested against is ``harness.server.reference``.
"""
