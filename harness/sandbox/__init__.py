"""The wall between the grader and a candidate: one module set used by ``check``,
``golden replay --impl``, the mutant runner and ``grade-tests``.

The candidate's code runs only in a confined candidate process; the tests, the replay
and every assertion run in the grader's process and reach the candidate over a
data-only channel (no pickle, no code).

**Inputs in, answers out.** Whatever runs in the candidate's process is the candidate:
its module, and the channel's server code too (``server``, ``plans``), which the module can
rewrite at import. That process receives the inputs of the contract's calls and nothing
else: never an expected answer, a golden value, an oracle's verdict, or anything one can be
derived from. Batched loops stay (they are ``check``'s speed): the candidate's process
makes, in one round trip, the calls the grader's loop would make, given only those calls'
inputs (a loop's next input may be computed from the candidate's own earlier answers: that
is the candidate calling its own module), and sends back its answers; the grader takes them
in its own order and checks every one as if it had asked for it alone, calling one at a
time past any point where its own path goes another way (``harness.suite.batched.Prefetched``).

Where it is enforced: the server offers only the operations below, each of which carries
inputs (``server``'s docstring); the catalogue's batched loops are all plans, built in one
module whose table says what each sends (``harness.suite.batched``); and
``tests/sandbox/test_knowledge.py`` records every frame a whole catalogue run sends and checks each
batched request's shape and that no expected answer is in any frame, and grades a candidate
whose server echoes its requests exactly as its honest twin. What each request carries:

==============  ==========================================  ==================================
operation       what the candidate's process is sent        where the loop stops early
==============  ==========================================  ==================================
``call``        one call's arguments                        -
``many``        argument lists, one call each               -
``repeat``      a count, one call's arguments (``Fresh``    the candidate's exception
                ones built anew), a generator's state
``plan``        a list of steps, each one request's op,     an exception; an answer the next
                target (a handle, or an earlier answer),    step's reading needs and lacks
                name, arguments and the generic reading     (``plans``)
                of its answer the loop needs; or a bounded
                loop, whose body is such steps and whose
                next inputs are references to the
                candidate's own answers (a work list, the
                values kept) or logits drawn from a
                generator state and shape the plan names
                (``plans``)
==============  ==========================================  ==================================

A loop stops early on what its own answers say (the shape the contract gives an answer),
never on a comparison with what the grader expects: that comparison is made in the
grader, after the reply. One thing a batch shows sooner than single calls would: a
walk's later tokens arrive before its earlier masks are answered (a token taken is one
the mask before it allows; the golden file's masks allow more than a path takes, and
``tests/sandbox/test_knowledge.py`` holds a candidate that adds the path's tokens to its masks to
its honest verdict). ``generate`` draws each step's logits in the candidate's process from
the grader's generator state (``rng.normal(size) * scale + bias``, the state as the
previous call left it), and says, per draw, where the call left the generator and a
digest of the logits and history it gave the call; the grader draws the same logits
itself from those states and the tokens it received, compares, and ends the process as a
protocol violation where they differ (``harness.suite.batched.generation``). That digest is the process's
own word (a server the candidate rewrote can hand its calls other logits and report the
grader's): the catalogue takes a draw made ahead only as the answer to the logits it drew
itself (its logprob the spec's under them, ``harness.suite.test_sampling``) and otherwise
makes the generation again one call at a time. The grader's generator goes, draw by draw
as the answers are taken, where each call left it.

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
    # HarnessCannotSend (a BaseException, no CandidateGone): the grader could not encode its
    # own request (an object the channel does not carry): the harness's error, nothing sent.

Modules, one concern each. The wall itself:

- ``channel`` (frames and values), ``proxying`` (the proxy both ends share), ``server`` (the
  candidate process: the generic operations), ``plans`` (the generic batched operation it
  carries out: steps and bounded loops), ``client`` (the grader's side: ``Candidate``,
  ``Proxy``, the call's CPU budget);
- confinement: ``confine`` (bubblewrap, which comes with the install, or a refusal;
  ``--unconfined``; environment, rlimits), ``seccomp`` (the filter bubblewrap installs: no new
  namespaces, mounts, ptrace, bpf...), ``resources`` (a cgroup and a uid per candidate),
  ``cputime`` (CPU seconds of a tree, the load test), ``isolated`` (the grader's own processes:
  nothing of the current folder or the user's PYTHONPATH);
- what the candidate's process sees: ``view`` (the file system: the harness as lent, the
  golden answers read as empty, the candidate's folders or their readable copies), ``lending``
  (which of the harness's files it is lent), ``candidate`` (loading the candidate and the
  contract check, ``CONTRACTS``);
- the harness's files: ``files`` (the manifest, verify and restore), ``guard`` (verify and
  restore however a run ends), ``bytecode`` (compiled before a run, never during one).

Beside it, what the wall carries or says but does not decide:

- ``arguments`` (the catalogue's argument types that are not data, both sides: tokenizers,
  ``SamplingParams``), ``shapes`` (the spec's tokenizer shapes);
- ``failures`` (the ``CandidateGone`` family of verdicts; the machine's refusal to start told
  from a crash), ``hangs`` (a call that ran out of time is not asked again), ``wording`` (the
  student's words: which call on which input, how the process ended), ``text`` (escaping what
  the candidate wrote);
- ``cpulog`` (the candidates' CPU log, for benchmarks and the mutants verb);
- ``zygote`` and ``zygote_server`` (generated mutants only: a warm confined process forked per
  candidate process; in a grader fork that holds its link, ``CONSTRAIN_HARNESS_ZYGOTE``, the
  package's ``Candidate`` is ``zygote.ZygoteCandidate``, so the catalogue's start needs no hook).
"""

import os

_WHERE = {name: "client" for name in ("Candidate", "Fresh", "Proxy", "RemoteError", "call_many", "repeat_call")}
_WHERE.update({name: "failures" for name in ("CandidateCrashed", "CandidateGone", "CandidateProtocolError",
                                             "CandidateTimeout", "HarnessCannotSend", "HarnessCouldNotStart")})
_WHERE.update(CandidateFolderError="view", Limits="confine")
__all__ = sorted(_WHERE)   # each name of the package's API, from the module that defines it


def __getattr__(name: str):
    """The grader's side of the wall (``client``, ``failures``, ``view``), imported on first
    use: it brings numpy and the channel, which a process that only confines or verifies files (``check``'s
    parent, about 0.15 CPU s) never needs. ``Limits`` (``confine``) on first use too: the
    candidate process imports this package for ``server`` and needs neither (``confine``
    brings ctypes, subprocess and the policy: some 10 ms of every candidate's start)."""
    if name == "Candidate" and os.environ.get("CONSTRAIN_HARNESS_ZYGOTE"):
        # a grader fork of a mutant worker that holds a zygote (generated mutants only): the
        # catalogue's candidate processes are forks of it (``zygote.candidate_class``)
        from harness.sandbox.zygote import candidate_class

        return candidate_class()
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"harness.sandbox.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
