"""How a candidate process is confined: the command line, environment and limits.

``plan(limits, binds)`` returns a ``Plan``: the argv prefix, the environment, the
``preexec_fn`` that sets the rlimits, and ``description``, the sentence the run header
prints. The strongest mode this machine allows is chosen:

- ``bubblewrap`` as root: ``bwrap`` (privileged) builds PID, mount, IPC, UTS, network
  and cgroup namespaces; a new root holding only the system folders ``SYSTEM_ROOTS``
  (``/usr``, ``/etc``, ``/lib``...), the interpreter's folders and the folders the caller
  binds, all read-only (so no other checkout, home or data folder on the machine is in
  the candidate's mount namespace: ``/work``, ``/home``, ``/srv``, ``/root`` are absent
  but for the bound folders' parents); the grader's temp folder and any ``hidden`` folder
  under a system folder an empty tmpfs; a private ``/tmp``, a fresh ``/proc`` (the
  grader's processes and ``/proc/<pid>/environ`` are invisible) and ``/dev``; then
  ``setpriv`` drops to ``nobody`` (uid/gid 65534, no groups, no capabilities in any set,
  ``no_new_privs``), so the candidate can neither remount nor write the harness.
  ``--die-with-parent`` and the PID namespace end every process the candidate started
  (also after ``setsid``) when its server ends or the grader dies.
- ``bubblewrap`` as an ordinary user: the same, in a user namespace (``bwrap
  --unshare-user --disable-userns``: the grader's uid mapped, no capabilities).
- ``unshare`` (no ``bwrap``, or ``CONSTRAIN_HARNESS_NO_BWRAP=1``): util-linux ``unshare``
  builds PID (with its own ``/proc``), mount, IPC, UTS and network namespaces (and a user
  namespace when not root), so the grader's processes and environment are invisible and
  the candidate's process tree ends with it; the grader's uid (as root the candidate can
  write files: they are verified after the run and restored).
- ``fallback`` (neither, or also ``CONSTRAIN_HARNESS_NO_UNSHARE=1``): a new session, the
  rlimits, ``no_new_privs`` and a parent-death signal; the grader's uid; its process tree
  is ended by process group and by a marker in its environment (a child that clears its
  environment and calls ``setsid`` can escape this mode: the description says so).

In every mode: the environment is the allowlist ``ENV_ALLOWLIST`` plus a private ``HOME``
and ``TMPDIR`` and the run marker ``CONSTRAIN_HARNESS_RUN``; rlimits ``CPU``, ``AS``,
``FSIZE``, ``NPROC`` and ``CORE=0`` (``Limits``). ``CONSTRAIN_HARNESS_AS_USER=1`` makes a
root grader use the ordinary-user mode (to test it).

Example::

    >>> p = plan(Limits(), binds=[Path("/work/checkout")], hidden=[Path("/tmp")], home=Path("/tmp/h"))
    >>> p.mode in ("bubblewrap", "bubblewrap (user namespace)", "unshare", "fallback")
    True
"""

from __future__ import annotations

import ctypes
import os
import resource
import shutil
import signal
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

NOBODY = 65534
ENV_ALLOWLIST = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
FIXED_ENV = {"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONFAULTHANDLER": "1",
             "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
             "RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
SANDBOX_HOME = "/tmp/home"  # inside bubblewrap: on the private /tmp tmpfs
# What a bubblewrap sandbox's new root holds besides the interpreter and the bound folders:
# the system's programs, libraries and configuration (read-only). Nothing else of the
# machine's filesystem (other checkouts, homes, data) exists inside.
SYSTEM_ROOTS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys")


@dataclass(frozen=True)
class Limits:
    """Resource limits of one candidate process (rlimits; the wall clock is per call)."""

    cpu_seconds: int = 900
    memory_mb: int = 2048
    file_mb: int = 64
    processes: int = 256  # RLIMIT_NPROC counts every process of the uid: as nobody, this many
    call_seconds: float = 60.0  # the default deadline of one call when no test deadline is set


@dataclass
class Plan:
    mode: str
    prefix: list[str]
    env: dict[str, str]
    preexec: object
    description: str
    notes: list[str] = field(default_factory=list)


ROOT_WRITES = " (root: it can write files, which are verified after the run)"

def bwrap_path() -> str | None:
    if os.environ.get("CONSTRAIN_HARNESS_NO_BWRAP"):
        return None
    return shutil.which("bwrap")


def plan(limits: Limits, binds: list, hidden: list[Path], home: Path, marker: str) -> Plan:
    """The confinement for one candidate process (see the module docstring). ``binds``
    are folders the candidate may read, each a ``Path`` or a ``(source, seen_as)`` pair."""
    bwrap = bwrap_path()
    as_root = os.geteuid() == 0 and not os.environ.get("CONSTRAIN_HARNESS_AS_USER")
    nproc = limits.processes if as_root else _own_processes() + limits.processes
    env = _environment(marker)
    rlimits = f"rlimits CPU {limits.cpu_seconds} s, AS {limits.memory_mb} MB, FSIZE {limits.file_mb} MB, " \
              f"NPROC {nproc}, CORE 0"
    if bwrap is not None and _bwrap_works(bwrap, as_root):
        env.update(HOME=SANDBOX_HOME, TMPDIR="/tmp")
        prefix = _bwrap_argv(bwrap, as_root, binds, hidden)
        who = f"user nobody ({NOBODY}), no capabilities, no_new_privs" if as_root else \
            "the grader's uid in a user namespace, no capabilities, no_new_privs"
        mode = "bubblewrap" if as_root else "bubblewrap (user namespace)"
        description = (f"{mode}: {who}; PID, mount, IPC, UTS and network namespaces; a new root "
                       f"with only the system folders, the interpreter and the bound folders (read-only), private "
                       f"HOME and /tmp; {rlimits}; environment: {len(env)} allowlisted names")
        return Plan(mode, prefix, env, _preexec(limits, nproc, False), description)
    env.update(HOME=str(home), TMPDIR=str(home))
    why = "CONSTRAIN_HARNESS_NO_BWRAP is set" if os.environ.get("CONSTRAIN_HARNESS_NO_BWRAP") else \
        "bwrap not found (apt-get install bubblewrap)" if bwrap is None else "bwrap cannot create namespaces here"
    unshare = _unshare_argv(as_root)
    if unshare is not None:
        description = (f"unshare ({why}): PID, mount, IPC, UTS and network namespaces (the grader's processes "
                       f"and their environments are invisible, the candidate's process tree ends with it); "
                       f"the grader's uid{ROOT_WRITES if as_root else ''}"
                       f"; new session, no_new_privs; private HOME and TMPDIR; {rlimits}; "
                       f"environment: {len(env)} allowlisted names")
        return Plan("unshare", unshare, env, _preexec(limits, nproc, True), description)
    description = (f"fallback ({why}; unshare unavailable): the grader's uid, no namespaces (the grader's files "
                   f"are protected only by verification after the run; a child that clears its environment and "
                   f"calls setsid can outlive the run); new session, no_new_privs; private HOME and TMPDIR; "
                   f"{rlimits}; environment: {len(env)} allowlisted names")
    return Plan("fallback", [], env, _preexec(limits, nproc, True), description)


def _unshare_argv(as_root: bool) -> list[str] | None:
    """util-linux ``unshare`` with PID, mount, IPC, UTS and network namespaces (a user
    namespace too when not root), when it works here and is not switched off
    (``CONSTRAIN_HARNESS_NO_UNSHARE=1``)."""
    import subprocess

    unshare = shutil.which("unshare")
    if unshare is None or os.environ.get("CONSTRAIN_HARNESS_NO_UNSHARE"):
        return None
    argv = [unshare, "--fork", "--pid", "--mount-proc", "--kill-child", "--ipc", "--uts", "--net"]
    if not as_root:
        argv[1:1] = ["--user", "--map-current-user"] if _unshare_knows("--map-current-user") else ["--user"]
    key = ("unshare", tuple(argv))
    if key not in _WORKS:
        try:
            _WORKS[key] = subprocess.run(argv + ["true"], capture_output=True, timeout=30).returncode == 0
        except (OSError, subprocess.SubprocessError):
            _WORKS[key] = False
    return argv + ["--"] if _WORKS[key] else None


def _unshare_knows(option: str) -> bool:
    import subprocess

    try:
        return option in subprocess.run([shutil.which("unshare") or "unshare", "--help"], capture_output=True,
                                        text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False


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


def interpreter_paths() -> list[Path]:
    """What the interpreter needs to run: its prefixes and site folders, links resolved."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent}
    for key in ("stdlib", "platstdlib", "purelib", "platlib", "include"):
        value = sysconfig.get_paths().get(key)
        if value:
            paths.add(Path(value))
    paths |= {Path(p) for p in sys.path
              if p and Path(p).is_dir() and Path(p).name in ("site-packages", "dist-packages")}
    resolved = set()
    for path in paths:
        resolved |= {path, path.resolve()}
    return sorted(p for p in resolved if p.exists())


def probe() -> None:
    """Find out once whether bubblewrap works here (its answer is inherited by children)."""
    bwrap = bwrap_path()
    if bwrap is not None:
        _bwrap_works(bwrap, os.geteuid() == 0 and not os.environ.get("CONSTRAIN_HARNESS_AS_USER"))


def runs_as_nobody() -> bool:
    """Whether the candidate will run as ``nobody`` (so its files must be world-readable)."""
    return os.geteuid() == 0 and not os.environ.get("CONSTRAIN_HARNESS_AS_USER") and bwrap_path() is not None \
        and _bwrap_works(bwrap_path(), True)


def _bwrap_argv(bwrap: str, as_root: bool, binds: list, hidden: list[Path]) -> list[str]:
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-net", "--unshare-cgroup-try"]
    if not as_root:
        argv += ["--unshare-user", "--disable-userns"]
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
            if parent not in made and (not _within(parent, real) or any(t in parent.parents for t in tmpfs)):
                argv += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        argv += ["--ro-bind-try", str(source), str(path)]
    argv += ["--chdir", "/tmp"]
    if as_root:
        argv += ["--", shutil.which("setpriv") or "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                 "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
    else:
        argv += ["--"]
    return argv


def _within(path: Path, roots: list[Path]) -> bool:
    return any(root == path or root in path.parents for root in roots)


_WORKS: dict = {}


def _bwrap_works(bwrap: str, as_root: bool) -> bool:
    """Whether bwrap can build the sandbox here (tried once per process tree: the answer
    is left in ``CONSTRAIN_HARNESS_BWRAP_WORKS`` for the grader's children; the candidate
    never sees it, its environment is the allowlist)."""
    import subprocess

    key = (bwrap, as_root)
    inherited = os.environ.get("CONSTRAIN_HARNESS_BWRAP_WORKS", "")
    if key not in _WORKS and inherited.startswith(f"{bwrap}:{int(as_root)}:"):
        _WORKS[key] = inherited.endswith(":1")
    if key not in _WORKS:
        argv = _bwrap_argv(bwrap, as_root, [], []) + [sys.executable, "-I", "-c", "pass"]
        try:
            _WORKS[key] = subprocess.run(argv, capture_output=True, timeout=30).returncode == 0
        except (OSError, subprocess.SubprocessError):
            _WORKS[key] = False
        os.environ["CONSTRAIN_HARNESS_BWRAP_WORKS"] = f"{bwrap}:{int(as_root)}:{int(_WORKS[key])}"
    return _WORKS[key]


def _preexec(limits: Limits, nproc: int, fallback: bool):
    def apply() -> None:  # in the child between fork and exec
        _lower(resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 5)
        _lower(resource.RLIMIT_AS, limits.memory_mb << 20, limits.memory_mb << 20)
        _lower(resource.RLIMIT_FSIZE, limits.file_mb << 20, limits.file_mb << 20)
        _lower(resource.RLIMIT_CORE, 0, 0)
        _lower(resource.RLIMIT_NPROC, nproc, nproc)
        if fallback:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: die with the grader
    return apply


def _lower(which: int, soft: int, hard: int) -> None:
    """Set a limit, never above the one the grader itself runs under (e.g. the mutant
    runner's CPU limit on its pytest child): a limit can only be lowered, e.g. a 900 s CPU
    limit inside a 120 s one becomes 120 s."""
    _, current = resource.getrlimit(which)
    if current != resource.RLIM_INFINITY:
        hard, soft = min(hard, current), min(soft, current)
    resource.setrlimit(which, (soft, hard))


def kill_marked(marker: str) -> int:
    """SIGKILL every process whose environment carries ``marker`` (the fallback's sweep);
    returns how many were found."""
    needle = f"CONSTRAIN_HARNESS_RUN={marker}".encode()
    found = 0
    for pid in marked_processes(needle):
        try:
            os.kill(pid, signal.SIGKILL)
            found += 1
        except OSError:
            pass
    return found


def marked_processes(needle: bytes) -> list[int]:
    """Processes whose environment or command line contains ``needle``."""
    pids = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        for part in ("environ", "cmdline"):
            try:
                with open(f"/proc/{entry.name}/{part}", "rb") as f:
                    if needle in f.read():
                        pids.append(int(entry.name))
                        break
            except OSError:
                continue
    return pids
