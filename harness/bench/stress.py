"""Benchmark: the stress corpus (``tests/stress/corpus.json``), worst time and worst peak RSS.

Every case (a pattern, a schema, or a schema file's text; long literals, long
alternations, nested counted repeats, nested arrays and objects, huge enums, deep
brackets) runs in its own child process for each target:

- ``reference``: ``regex_to_dfa`` (a schema first through ``json_schema_to_regex``;
  a schema's text first through the CLI's reader ``harness.argtypes.parse_json_text``);
- ``derivatives``: ``oracles.derivatives.canonical_dfa`` on the same pattern (a
  schema's pattern comes from the reference's translation).

Cases of kind ``server`` and ``conform`` (issue 25) run once, as target ``server`` or
``conform``: a hostile client of the reference server (``harness.server.reference.hostile``: the
time is the process's CPU seconds over the attack, the outcome holds when the answer
is the expected status, the server answers a normal request afterwards and logged no
traceback) or a hostile server for ``conform`` (``harness.bench.stress_conform``: wall
seconds of the conform run, the outcome holds on the expected exit code and reason).

The child measures the work alone (``time.perf_counter``, after imports and after
building the input); the parent reads the child's peak RSS from ``os.wait4`` and
kills it past ``timeout`` seconds or ``memory`` MB of address space. The promise of
issue 16 that this measures: every case answers (a result or the contract's error)
within 10 s and 500 MB peak RSS.

    constrain-harness bench stress            # the whole corpus, both targets
    constrain-harness bench stress --timeout 20 --memory 2000 --pythonpath /tmp/main
                                              # the same against another checkout

The run's settings are one frozen, validated ``StressOptions`` (a bad field: a ValueError
naming its ``bench`` option); the command line stays in ``harness.commands.bench``.

Example output line: ``reference literal-100k  error LimitExceeded  0.21 s  61 MB``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.seconds import check_seconds

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "stress" / "corpus.json"
TARGETS = ("reference", "derivatives")
WIRE_KINDS = ("server", "conform")
"""Kinds that run once, as their own target: a hostile client or a hostile server."""
BOUND_SECONDS = 10.0
BOUND_RSS_MB = 500.0


# --- the corpus ------------------------------------------------------------------------

def load_cases(path: Path = CORPUS) -> list[dict]:
    """The corpus entries, unexpanded (cheap): each has ``name`` and ``kind``."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    return doc["cases"]


def expand(case: dict):
    """The input a case describes: a str (pattern or schema text) or a JSON value (schema).

    E.g. ``{"parts": [["(", 2], ["a", 1], [")", 2]]}`` is ``"((a))"``."""
    if "text" in case:
        return case["text"]
    if "parts" in case:
        return "".join(piece * count for piece, count in case["parts"])
    if "words" in case:
        return "|".join(f"w{i}" for i in range(case["words"]))
    if "nest" in case:
        spec = case["nest"]
        schema = spec["leaf"]
        for _ in range(spec["depth"]):
            schema = _substitute(spec["wrap"], schema)
        return schema
    if "enum" in case:
        count, kind = case["enum"]["count"], case["enum"]["as"]
        return {"enum": [i if kind == "int" else f"value-{i}" for i in range(count)]}
    if "object" in case:
        return {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(case["object"])}}
    if "probe" in case:
        return case["probe"]
    if "deep_enum_value" in case:
        value: list = []
        for _ in range(case["deep_enum_value"]):
            value = [value]
        return {"enum": [value]}
    return case["schema"]


def _substitute(template, inner):
    """``template`` with every ``"$"`` replaced by ``inner``."""
    if template == "$":
        return inner
    if isinstance(template, dict):
        return {k: _substitute(v, inner) for k, v in template.items()}
    if isinstance(template, list):
        return [_substitute(v, inner) for v in template]
    return template


# --- the child: one case, one target -------------------------------------------------------

def _pattern_of(case: dict, value, target: str) -> str:
    """The pattern a case asks to compile (schemas through the reference's translation)."""
    from oracles.automaton import json_schema_to_regex

    if case["kind"] == "pattern":
        return value
    if case["kind"] == "schema_text":
        try:
            from harness.argtypes import parse_json_text
        except ImportError:  # an older checkout: the plain reader
            parse_json_text = json.loads
        value = parse_json_text(value)
    return json_schema_to_regex(value)


def _work(case: dict, value, target: str) -> str:
    if case["kind"] == "probe":  # issue 25: an attack and its promised answer (harness/bench/stress_probes.py)
        from harness.bench.stress_probes import run_probe

        return run_probe(case["probe"])
    pattern = _pattern_of(case, value, target)
    if target == "reference":
        from oracles.automaton import regex_to_dfa

        return f"{regex_to_dfa(pattern).n_states} states"
    from oracles import derivatives

    trans, _ = derivatives.canonical_dfa(pattern)
    return f"{trans.shape[0]} states"


def contract_error(exc: BaseException) -> bool:
    """Return True if and only if ``exc`` is one of the errors the contract promises:
    the reference's ``ConstrainError`` family, the derivative oracle's own
    ``ConstrainError`` family (``PatternError``, ``LimitExceeded``), the CLI reader's
    ``InputError``, or a ``TypeError``. A bare ``ValueError`` (e.g. a
    ``UnicodeEncodeError``), a ``RecursionError`` or a ``MemoryError`` is not."""
    if isinstance(exc, TypeError):
        return True
    module = type(exc).__module__
    return isinstance(exc, ValueError) and module in ("oracles.automaton.errors", "oracles.derivatives.errors",
                                                      "harness.commands.args", "harness.files_in")


def _warm_imports(probe: bool = False) -> None:
    """Import what the work needs before the clock starts (imports are not the work):
    the oracles, and for a probe what the probes use (the CLI's parser: 0.15 CPU s that
    a pattern or a schema never needs)."""
    import numpy.ma  # noqa: F401 - np.unique (the minimization) loads it on first use

    from oracles import derivatives  # noqa: F401
    from oracles.automaton import json_schema_to_regex, regex_to_dfa  # noqa: F401 - loaded on first use

    try:
        from harness.argtypes import parse_json_text  # noqa: F401 - a schema's text (see _pattern_of)
    except ImportError:  # an older checkout
        pass
    if probe:
        from harness.bench import stress_probes

        stress_probes.warm()


def wire_main(case: dict) -> None:
    """A ``server`` or ``conform`` case: its scenario measures and judges itself."""
    if case["kind"] == "server":
        from harness.server.reference.hostile import run_scenario
    else:
        from harness.bench.stress_conform import run_scenario
    try:
        doc = run_scenario(case)
    except BaseException as exc:  # noqa: BLE001 - the child reports whatever happened
        doc = {"outcome": "error", "contract": False, "detail": f"{type(exc).__name__}: {str(exc)[:120]}",
               "seconds": 0.0}
    print(json.dumps(doc), flush=True)


def targets_of(case: dict, targets=TARGETS) -> tuple[str, ...]:
    """The targets a case runs on: its own kind for a wire case, else ``targets``."""
    if case["kind"] == "probe":  # issue 25: not a pattern, it runs once (harness/bench/stress_probes.py)
        return (TARGETS[0],)
    return (case["kind"],) if case["kind"] in WIRE_KINDS else tuple(targets)


def child_main(target: str, name: str) -> None:
    case = next(c for c in load_cases() if c["name"] == name)
    if case["kind"] in WIRE_KINDS:
        wire_main(case)
        return
    value = expand(case)
    _warm_imports(probe=case["kind"] == "probe")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    start = time.perf_counter()
    try:
        detail = _work(case, value, target)
        outcome, contract = "ok", True
    except BaseException as exc:  # noqa: BLE001 - the child reports whatever happened
        detail, outcome, contract = f"{type(exc).__name__}: {str(exc)[:120]}", "error", contract_error(exc)
    seconds = time.perf_counter() - start
    answer = "ok" if outcome == "ok" else detail.split(":")[0]
    if "expect" in case and answer != case["expect"]:  # issue 25: both oracles give the expected answer
        detail, contract = f"{detail} (expected {case['expect']})", False
    print(json.dumps({"outcome": outcome, "contract": contract, "detail": detail, "seconds": seconds}), flush=True)


def batch_main(target: str, path: str) -> None:
    """Run every input of a JSON Lines file (``{"kind", "value"}`` a line) in turn, printing
    a ``{"start": i}`` line before each and a result line after (see ``run_batch``). One
    input is read at a time: the child's peak RSS is the work's, not the inputs' (the
    thorough fuzz's 400 inputs are 95 MB of JSON, ~300 MB as Python objects)."""
    _warm_imports()
    with open(path, encoding="utf-8") as lines:
        for i, line in enumerate(lines):
            _batch_one(i, json.loads(line), target)


def _batch_one(i: int, item: dict, target: str) -> None:
    print(json.dumps({"start": i}), flush=True)
    start = time.perf_counter()
    try:
        detail = _work({"kind": item["kind"]}, item["value"], target)
        outcome, contract = "ok", True
    except BaseException as exc:  # noqa: BLE001 - reported, judged by the parent
        detail, outcome, contract = f"{type(exc).__name__}: {str(exc)[:120]}", "error", contract_error(exc)
    print(json.dumps({"index": i, "outcome": outcome, "contract": contract, "detail": detail,
                      "seconds": time.perf_counter() - start}), flush=True)


def _warm_for(cases: list[dict]) -> None:
    """What the children of ``fork_main`` would each import, imported once before they fork."""
    kinds = {case["kind"] for case in cases}
    if kinds - set(WIRE_KINDS):
        _warm_imports(probe="probe" in kinds)
    if "server" in kinds:
        import harness.server.reference.app  # noqa: F401
        import harness.server.reference.decode  # noqa: F401
        import harness.server.reference.hostile  # noqa: F401
        import harness.server.reference.model  # noqa: F401
        import harness.server.reference.runner  # noqa: F401

        harness.server.reference.hostile.warm()  # the engine and its first request, inherited by every case
    if "conform" in kinds:
        from harness.bench import stress_conform

        stress_conform.warm(any("server" in case for case in cases if case["kind"] == "conform"))


def fork_main(timeout: str, memory_mb: str, *specs: str) -> None:
    """Run each ``target:name`` of ``specs`` in a process of its own, forked from this one
    after the imports the cases need (``run_cases``): each child is ``child_main`` under
    RLIMIT_AS ``memory_mb``, killed past ``timeout`` wall seconds, its peak RSS counted from
    its own start (``/proc/self/clear_refs``: a fork inherits its parent's peak)."""
    by_name = {case["name"]: case for case in load_cases()}
    _warm_for([by_name[spec.split(":", 1)[1]] for spec in specs])
    for spec in specs:
        target, name = spec.split(":", 1)
        print(json.dumps({"start": spec}), flush=True)
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: one case, then out without the parent's exit handlers
            code = 0
            try:
                _limit_memory(int(memory_mb))()
                try:
                    with open("/proc/self/clear_refs", "w") as f:
                        f.write("5")  # its peak RSS from now (else the inherited peak: an upper bound)
                except OSError:
                    pass
                child_main(target, name)
                print(f"#vmhwm {_vmhwm_kib(os.getpid())}", flush=True)
            except BaseException:  # noqa: BLE001 - no line: the parent reports the case as killed
                code = 1
            finally:
                os._exit(code)
        killed, polled = _reap(pid, time.monotonic() + float(timeout))
        print(json.dumps({"end": spec, "killed": killed, "polled_kib": polled}), flush=True)


def _reap(pid: int, deadline: float, kill=os.kill) -> tuple[bool, int]:
    """Wait for ``pid`` (``kill(pid, SIGKILL)`` past ``deadline``; ``os.killpg`` for its whole
    session): (killed, the peak RSS polled meanwhile, KiB). ``os.wait4``, not ``Popen.poll``:
    reaped here, its peak RSS read while it runs."""
    killed, polled_kib = False, 0
    while True:
        done, _, _ = os.wait4(pid, os.WNOHANG)
        if done:
            return killed, polled_kib
        if time.monotonic() > deadline and not killed:
            kill(pid, signal.SIGKILL)
            killed = True
        else:
            polled_kib = max(polled_kib, _vmhwm_kib(pid))
            time.sleep(0.02)


# --- the parent ---------------------------------------------------------------------------

@dataclasses.dataclass
class Result:
    target: str
    name: str
    outcome: str        # ok, error, timeout, killed
    contract: bool      # ok, or an error of the contract
    detail: str
    seconds: float      # the work alone, measured in the child (the timeout when killed)
    rss_mb: float       # the child's peak resident set size

    def within_bound(self) -> bool:
        return self.contract and self.seconds <= BOUND_SECONDS and self.rss_mb <= BOUND_RSS_MB

    def line(self) -> str:
        mark = "" if self.within_bound() else "  OVER THE BOUND" if self.contract else "  NOT THE CONTRACT"
        return (f"  {self.target:<12} {self.name:<30} {self.outcome:<7} {self.seconds:>7.2f} s "
                f"{self.rss_mb:>7.0f} MB  {self.detail[:70]}{mark}")


def run_case(name: str, target: str, *, timeout: float = 30.0, memory_mb: int = 2000,
             pythonpath: str | None = None) -> Result:
    """Run one case in a child under RLIMIT_AS ``memory_mb`` and ``timeout`` wall seconds."""
    out, killed, rss_mb = _run_child("child_main", [target, name], timeout, memory_mb, pythonpath)
    return _result(target, name, out, killed, timeout, rss_mb)


def run_cases(specs: list[tuple[str, str]], *, timeout: float = 30.0, memory_mb: int = 2000) -> list[Result]:
    """``run_case`` for each ``(name, target)`` of ``specs``, in order, the same work and
    measures, each case still in a process of its own: forked from one child that made the
    imports once (``fork_main``), not a new interpreter each (~0.3 to 0.8 CPU s of imports a
    case). One such child per kind of case (a fork holds what its parent imported: a server
    case's peak RSS would count conform's imports). A case that dies or hangs is reported as
    ``run_case`` reports it; the next runs."""
    kinds = {case["name"]: case["kind"] for case in load_cases()}
    lines: dict[str, list[str]] = {}
    ends: dict[str, dict] = {}
    for kind in dict.fromkeys(kinds[name] for name, _ in specs):
        mine = [f"{target}:{name}" for name, target in specs if kinds[name] == kind]
        out, killed, _ = _run_child("fork_main", [str(timeout), str(memory_mb), *mine], timeout * (len(mine) + 1),
                                    memory_mb, None)
        current = None
        for line in out.splitlines():
            doc = json.loads(line) if line.startswith("{") else None
            if doc is not None and "start" in doc:
                current = doc["start"]
                lines[current] = []
            elif doc is not None and "end" in doc:
                ends[doc["end"]] = doc
                current = None
            elif current is not None:
                lines[current].append(line)
        for spec in mine:
            ends.setdefault(spec, {"killed": killed, "polled_kib": 0})
    results = []
    for name, target in specs:
        spec = f"{target}:{name}"
        end = ends[spec]
        said = lines.get(spec, [])
        printed = [int(line.split()[1]) for line in said if line.startswith("#vmhwm ")]
        rss_mb = max([end["polled_kib"], *printed]) / 1024
        results.append(_result(target, name, "\n".join(said), end["killed"], timeout, rss_mb))
    return results


def run_batch(items: list[dict], target: str, *, timeout: float, memory_mb: int = 2000) -> tuple[list[Result], float]:
    """Run many inputs (``{"kind": "pattern" | "schema" | "schema_text", "value": ...}``)
    in one child; returns a Result per input started (a killed child's last input is
    reported as ``timeout``) and the child's peak RSS in MB."""
    with tempfile.TemporaryDirectory(prefix="constrain-stress-") as folder:
        path = Path(folder) / "inputs.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            for item in items:
                f.write(json.dumps(item) + "\n")
        out, killed, rss_mb = _run_child("batch_main", [target, str(path)], timeout, memory_mb, None)
    results, started = [], None
    for line in out.splitlines():
        doc = json.loads(line) if line.startswith("{") else {}
        if "start" in doc:
            started = doc["start"]
        elif "index" in doc:
            results.append(Result(target, str(doc["index"]), doc["outcome"], doc["contract"], doc["detail"],
                                  doc["seconds"], rss_mb))
            started = None
    if started is not None:
        reason = f"killed after {timeout:g} s" if killed else "the child died (memory limit?)"
        results.append(Result(target, str(started), "timeout" if killed else "killed", False, reason, timeout, rss_mb))
    return results, rss_mb


def _run_child(entry: str, arguments: list[str], timeout: float, memory_mb: int,
               pythonpath: str | None) -> tuple[str, bool, float]:
    """Run ``entry(*arguments)`` of this file in a child: (stdout, killed, peak RSS MB)."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, root, env.get("PYTHONPATH")]))
    # another checkout must win over an editable install of this one, whose finder
    # comes before sys.path: drop that finder when a checkout is named
    drop = "sys.meta_path[:] = [f for f in sys.meta_path if '__editable__' not in getattr(f, '__module__', '')]; "
    # the child's own peak RSS: its VmHWM, printed at exit (ru_maxrss of a child also holds the
    # RSS its parent had when it forked: under a large pytest process every case read 615 MB)
    peak = ("import atexit; atexit.register(lambda: print('#vmhwm', next((l.split()[1] for l in "
            "open('/proc/self/status') if l.startswith('VmHWM')), '0'), flush=True)); ")
    code = ("import sys; sys.path[:0] = [p for p in sys.argv[1].split(':') if p]; " + peak
            + (drop if pythonpath else "")
            + "import runpy; m = runpy.run_path(sys.argv[2]); m[sys.argv[3]](*sys.argv[4:])")
    command = [sys.executable, "-c", code, env["PYTHONPATH"], str(Path(__file__).resolve()), entry, *arguments]
    # stdout goes to a file, not a pipe: nobody reads a pipe while ``_reap`` waits, so a child
    # that printed more than the pipe holds (64 KiB: ~300 inputs of ``run_batch``) blocked in
    # ``print`` until it was killed, reported as a timeout of the input it had just finished
    with tempfile.TemporaryFile() as stdout:
        proc = subprocess.Popen(command, stdout=stdout, stderr=subprocess.DEVNULL, env=env,
                                start_new_session=True, preexec_fn=_limit_memory(memory_mb))
        killed, polled_kib = _reap(proc.pid, time.monotonic() + timeout, os.killpg)
        proc.returncode = 0  # reaped by _reap
        stdout.seek(0)
        out = stdout.read().decode("utf-8", "replace")
    printed = [int(line.split()[1]) for line in out.splitlines() if line.startswith("#vmhwm ")]
    return out, killed, max([polled_kib, *printed]) / 1024  # KiB


def _vmhwm_kib(pid: int) -> int:
    """The peak RSS (``VmHWM``, KiB) of a live process, 0 when it cannot be read."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _limit_memory(memory_mb: int):
    def apply() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def _result(target: str, name: str, out: str, killed: bool, timeout: float, rss_mb: float) -> Result:
    if killed:
        return Result(target, name, "timeout", False, f"killed after {timeout:g} s", timeout, rss_mb)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        return Result(target, name, "killed", False, "the child died (memory limit?)", 0.0, rss_mb)
    doc = json.loads(lines[-1])
    return Result(target, name, doc["outcome"], doc["contract"], doc["detail"], doc["seconds"], rss_mb)


@dataclasses.dataclass(frozen=True)
class StressOptions:
    """One stress run: each child killed past ``timeout`` seconds (a finite number > 0) or
    ``memory_mb`` MB of address space (1 .. 1,048,576), run against the checkout
    ``pythonpath`` (None: this one; folders joined by ``os.pathsep``, each existing), on the
    cases named by ``only`` (None: all; each must be a case of the corpus) and the ``targets``
    (a non-empty subset of ``TARGETS``; a wire case runs as its own target). A bad field is a
    ``ValueError`` (``TypeError`` for a wrong type) naming its ``bench`` option."""

    timeout: float = 30.0
    memory_mb: int = 2000
    pythonpath: str | None = None
    only: tuple[str, ...] | None = None
    targets: tuple[str, ...] = TARGETS

    def __post_init__(self):
        check_seconds("--timeout", self.timeout)
        memory = self.memory_mb
        if isinstance(memory, bool) or not isinstance(memory, int) or not 1 <= memory <= 1 << 20:
            raise ValueError(f"--memory must be an integer number of MB in 1 .. {1 << 20}, not {memory!r}")
        if self.pythonpath is not None:
            object.__setattr__(self, "pythonpath", str(self.pythonpath))
            if not all(Path(part).is_dir() for part in self.pythonpath.split(os.pathsep) if part):
                raise ValueError(f"--pythonpath must be a checkout's folder (or folders joined by "
                                 f"{os.pathsep!r}), not {self.pythonpath!r}")
        for option, value in (("--cases", self.only), ("--targets", self.targets)):
            if value is not None and (isinstance(value, str) or not all(isinstance(x, str) for x in value)):
                raise TypeError(f"{option} takes a sequence of names, not {value!r}")
        if self.only is not None:
            known = {case["name"] for case in load_cases()}
            unknown = [name for name in self.only if name not in known]
            if unknown or not self.only:
                raise ValueError(f"--cases: no stress case {', '.join(unknown) or '(none named)'}")
            object.__setattr__(self, "only", tuple(self.only))
        unknown = [t for t in self.targets if t not in TARGETS]
        if unknown or not self.targets:
            raise ValueError(f"--targets must be among {', '.join(TARGETS)}, not {', '.join(unknown) or 'none'}")
        object.__setattr__(self, "targets", tuple(dict.fromkeys(self.targets)))


def run_corpus(*, targets=TARGETS, timeout: float = 30.0, memory_mb: int = 2000, pythonpath=None,
               out=sys.stdout, only: list[str] | None = None) -> list[Result]:
    results = []
    for case in load_cases():
        if only and case["name"] not in only:
            continue
        for target in targets_of(case, targets):
            result = run_case(case["name"], target, timeout=timeout, memory_mb=memory_mb, pythonpath=pythonpath)
            print(result.line(), file=out, flush=True)
            results.append(result)
    return results


def summarize(results: list[Result], out=sys.stdout) -> None:
    for target in sorted({r.target for r in results}):
        mine = [r for r in results if r.target == target]
        slow = max(mine, key=lambda r: r.seconds)
        big = max(mine, key=lambda r: r.rss_mb)
        bad = [r.name for r in mine if not r.within_bound()]
        print(f"  {target}: {len(mine)} cases; worst time {slow.seconds:.2f} s ({slow.name}); worst peak RSS "
              f"{big.rss_mb:.0f} MB ({big.name}); outside the bound (10 s, 500 MB, contract errors): "
              f"{len(bad)}{' ' + ', '.join(bad) if bad else ''}", file=out, flush=True)


def run(report, quick: bool = False, options: StressOptions | None = None) -> None:
    """The ``bench stress`` entry: the corpus once per target (worst cases are not
    medians: each case runs once, in its own child), as ``options`` says (default ``StressOptions()``)."""
    from harness.bench.timing import Row, Timing

    options = options or StressOptions()
    results = run_corpus(targets=options.targets, timeout=options.timeout, memory_mb=options.memory_mb,
                         pythonpath=options.pythonpath, out=report.out, only=options.only)
    summarize(results, out=report.out)
    for target in [t for t in (*TARGETS, *WIRE_KINDS) if any(r.target == t for r in results)]:
        mine = [r for r in results if r.target == target]
        slow = max(mine, key=lambda r: r.seconds)
        big = max(mine, key=lambda r: r.rss_mb)
        report.add(Row("stress worst time", target, Timing(slow.seconds, slow.seconds, 1), note=slow.name,
                       target="<= 10 s"))
        report.add(Row("stress worst peak RSS", f"{target} {big.rss_mb:.0f} MB", Timing(big.seconds, big.seconds, 1),
                       note=f"{big.name} (the time column is that case's time)", target="<= 500 MB"))
