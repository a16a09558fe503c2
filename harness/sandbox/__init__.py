"""The wall between the grader and a candidate: one module set used by ``check``,
``golden replay --impl``, the mutant runner and ``grade-tests``.

The candidate's code runs only in a confined candidate process; the tests, the replay
and every assertion run in the grader's process and reach the candidate over a
data-only channel (no pickle, no code).

API::

    from harness.sandbox import Candidate, Limits, CandidateGone, RemoteError, call_many, repeat_call, Fresh

    with Candidate("submission/constrain.py", ref_deps=False, limits=Limits(memory_mb=2048)) as cand:
        cand.load["problems"]          # contract names missing (the rest still works)
        cand.load["confinement"]       # the sentence for the run header
        impl = cand.module             # a proxy of the candidate's module
        cand.deadline = time.monotonic() + 60      # bounds every call until reset
        dfa = impl.regex_to_dfa("(cat|dog)s?")     # a proxy: the DFA stays there
        trans = dfa.trans                          # data: a numpy array
        call_many(index.next_state, [(s, t) for t in range(n)])   # one round trip
        draws = list(repeat_call(impl.constrained_sample, 3000, logits, Fresh(impl.Constraint, index),
                                 params, [], rng))            # one round trip, the loop's draws
        try:
            dfa.step(99, b"a")
        except ValueError as exc:      # a RemoteError subclassing ValueError
            ...
    # Candidate(spec, contract="tools"): the tool-calling surface (golden/tools_replay.py's
    # TOOLS_CONTRACT, the reference oracles.tools); a ToolError it raises keeps a proxy of the
    # candidate's exception, so exc.status and exc.to_json() are read through the channel.
    # CandidateFolderError (a ValueError): the candidate's folder cannot be handed to its
    # process (too large to copy for nobody to read): a usage error, before anything runs.
    # HarnessCouldNotStart (a CandidateGone): the machine had no process or memory to start it,
    # twice (start tries once more): the course staff's business, not the student's.
    # CandidateGone (crashed / timeout / protocol): the process was ended; start a new
    # Candidate for the next test. cand.output() is what it printed, escaped.

Modules: ``channel`` (frames and values), ``server`` (the candidate process),
``client`` (the grader's side: ``Candidate``, ``Proxy``), ``confine`` (bubblewrap, which
comes with the install, or a refusal; ``--unconfined``; environment, rlimits), ``files``
(the manifest of the harness's files, verify and restore), ``guard`` (verify and restore
however a run ends), ``isolated`` (the grader's own processes: nothing of the current
folder or the user's PYTHONPATH), ``text`` (escaping what the candidate wrote).
"""

_FROM_CLIENT = ("Candidate", "CandidateCrashed", "CandidateFolderError", "CandidateGone", "CandidateProtocolError",
                "CandidateTimeout", "HarnessCouldNotStart",
                "Fresh", "Prefetched", "Proxy", "RemoteError", "call_and_read", "call_many",
                "calls_while", "explore", "generation", "repeat_call", "sweep", "walk_constraint")
__all__ = ["Candidate", "CandidateCrashed", "CandidateFolderError", "CandidateGone", "CandidateProtocolError",
           "CandidateTimeout", "HarnessCouldNotStart",
           "Fresh", "Limits", "Prefetched", "Proxy", "RemoteError", "call_and_read", "call_many",
           "calls_while", "explore", "generation", "repeat_call", "sweep", "walk_constraint"]


def __getattr__(name: str):
    """The grader's side of the wall (``client``), imported on first use: it brings numpy
    and the channel, which a process that only confines or verifies files (``check``'s
    parent, about 0.15 CPU s) never needs. ``Limits`` (``confine``) on first use too: the
    candidate process imports this package for ``server`` and needs neither (``confine``
    brings ctypes, subprocess and the policy: some 10 ms of every candidate's start)."""
    if name in _FROM_CLIENT:
        from harness.sandbox import client

        return getattr(client, name)
    if name == "Limits":
        from harness.sandbox.confine import Limits

        return Limits
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
