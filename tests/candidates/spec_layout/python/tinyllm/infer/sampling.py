"""L8.1's sampling, as the student's repository holds it (here the reference's, re-exported)."""

from oracles.automaton import SamplingParams, sample  # noqa: F401
