"""No way back to privilege inside the sandbox (issue 48.5): the seccomp filter of
``harness.sandbox.seccomp`` and bubblewrap's ``--disable-userns`` / ``--cap-drop ALL``.

Three levels, each against an oracle of its own:

- the program: its syscall tables against the system's kernel headers, and its verdict on
  every call number, run by a small classic-BPF interpreter written here from
  ``linux/bpf_common.h`` (not the module's assembler);
- the kernel: the filter installed with ``prctl(PR_SET_SECCOMP)`` in a process of its own,
  which then tries every attack of ``tests/candidates/_privilege.py``; a control run of the
  same attacks without the filter shows they work on this machine;
- the sandbox: ``wall_regains_privilege.py`` (the gallery's README row) confined as root
  and on the ordinary-user path, through ``Candidate`` (the errno of each attempt),
  through ``check`` (the reference's verdict) and through ``check`` run by a real
  ordinary user; each with the harness's files unchanged and nothing left running.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from harness.cli import main
from harness.exitcodes import ExitCode
from harness.grading.check import CheckOptions, run_check
from harness.grading.report import render_table
from harness.sandbox import Candidate, confine, seccomp
from tests.support.helpers import CANDIDATES, ROOT, confined, left_over

PRIVILEGE = CANDIDATES / "wall_regains_privilege.py"
TWO = ("test_hand_example", "test_apply_mask")

# --------------------------------------------------------------------------- a classic-BPF interpreter

# linux/bpf_common.h and linux/filter.h: class | size | mode, class | op | source
LD, JMP, RET = 0x00, 0x05, 0x06
W, ABS = 0x00, 0x20
JA, JEQ, JGT, JGE, JSET = 0x00, 0x10, 0x20, 0x30, 0x40
K = 0x00
# linux/seccomp.h
RET_KILL_PROCESS, RET_ERRNO, RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
AUDIT_ARCH_I386 = 0x40000003  # int 0x80 from an x86-64 process


def run_filter(program: bytes, nr: int, arch: int, args: tuple[int, ...] = (0,) * 6) -> int:
    """What the kernel would return for this ``struct seccomp_data`` (the subset of classic
    BPF a seccomp program of ours may use; anything else fails the test)."""
    assert len(program) % 8 == 0 and 0 < len(program) // 8 <= 4096
    data = struct.pack("=iIQ6Q", nr, arch, 0, *args)
    code_at = [struct.unpack_from("=HBBI", program, 8 * i) for i in range(len(program) // 8)]
    pc, acc = 0, 0
    while True:
        assert 0 <= pc < len(code_at), f"ran off the program at {pc}"
        code, jt, jf, k = code_at[pc]
        if code == LD | W | ABS:
            assert k % 4 == 0 and k + 4 <= len(data), f"load outside seccomp_data: {k}"
            acc = struct.unpack_from("=I", data, k)[0]
            pc += 1
        elif code & 0x07 == JMP and code & 0x08 == K:
            taken = {JEQ: acc == k, JGT: acc > k, JGE: acc >= k, JSET: bool(acc & k)}.get(code & 0xF0)
            assert taken is not None, f"unexpected jump {code:#x}"
            pc += 1 + (jt if taken else jf)
        elif code == RET | K:
            return k
        else:
            raise AssertionError(f"unexpected instruction {code:#x} at {pc}")


def eperm(verdict: int) -> bool:
    return verdict == RET_ERRNO | errno.EPERM


# --------------------------------------------------------------------------- the program


def header_numbers(*candidates: str) -> dict[str, int]:
    """``__NR_name`` -> number from the first of these kernel headers installed, or a skip."""
    for path in map(Path, candidates):
        if path.exists():
            return {m.group(1): int(m.group(2))
                    for m in re.finditer(r"#define __NR(?:3264)?_(\w+)\s+(\d+)\b", path.read_text())}
    pytest.skip(f"no kernel header here to check the table against ({', '.join(candidates)})")


@pytest.mark.parametrize("abi,headers", [
    ("x86_64", ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h")),
    ("aarch64", ("/usr/include/asm-generic/unistd.h",)),
])
def test_the_syscall_tables_are_the_kernels(abi, headers):
    theirs = header_numbers(*headers)
    ours = seccomp.ABIS[abi].numbers
    checked = {name for name in ours if name in theirs}
    assert {name: ours[name] for name in checked} == {name: theirs[name] for name in checked}
    # only calls newer than the headers (Linux 6.15's open_tree_attr) go unchecked
    assert set(ours) - checked <= {"open_tree_attr", "quotactl_fd", "mount_setattr"}, set(ours) - checked


def test_the_filter_denies_what_the_issue_names_and_what_a_mount_needs():
    named = {"mount", "umount2", "pivot_root", "ptrace", "process_vm_readv", "process_vm_writev", "keyctl",
             "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd", "unshare", "setns", "kexec_load",
             "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff",
             "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm", "acct", "quotactl", "syslog"}
    new_mount_api = {"open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr"}
    assert named | new_mount_api <= set(seccomp.build("x86_64").denied)
    assert (named - {"iopl", "ioperm"}) | new_mount_api <= set(seccomp.build("aarch64").denied)


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_every_call_number_gets_the_documented_verdict(machine):
    f = seccomp.build(machine)
    arch, numbers = AUDIT_ARCH[machine], f.abi.numbers
    denied = {numbers[name] for name in f.denied}
    inspected = {numbers[name] for name in ("clone", "clone3", "personality")}
    assert len(denied) == len(f.denied) and not denied & inspected
    for nr in range(1024):
        verdict = run_filter(f.program, nr, arch)
        if nr in denied:
            assert eperm(verdict), (nr, hex(verdict))
        elif nr == numbers["clone3"]:
            assert verdict == RET_ERRNO | errno.ENOSYS
        elif nr not in inspected:
            assert verdict == RET_ALLOW, (nr, hex(verdict))


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_clone_is_allowed_without_namespace_flags_only(machine):
    f = seccomp.build(machine)
    arch, clone = AUDIT_ARCH[machine], f.abi.numbers["clone"]
    thread = 0x3D0F00  # CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID (glibc)
    for flags in (17, thread, 0x4111 | 17, (1 << 32) | 17):  # fork, a thread, vfork, high bits
        assert run_filter(f.program, clone, arch, (flags, 0, 0, 0, 0, 0)) == RET_ALLOW, hex(flags)
    for flag in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000):
        for flags in (flag | 17, flag | thread):  # CLONE_NEWNS ... CLONE_NEWNET
            assert eperm(run_filter(f.program, clone, arch, (flags, 0, 0, 0, 0, 0))), hex(flags)


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_personality_may_only_query_or_set_the_default(machine):
    f = seccomp.build(machine)
    arch, personality = AUDIT_ARCH[machine], f.abi.numbers["personality"]
    assert run_filter(f.program, personality, arch, (0xFFFFFFFF,) + (0,) * 5) == RET_ALLOW
    assert run_filter(f.program, personality, arch, (0,) * 6) == RET_ALLOW
    for persona in (0x0040000, 0x0400000, 0x0008, 0x0040000 | 0x0400000):  # ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC
        assert eperm(run_filter(f.program, personality, arch, (persona,) + (0,) * 5)), hex(persona)


def test_another_abi_is_killed_and_x32_numbers_are_denied():
    f = seccomp.build("x86_64")
    for nr in (0, 1, 11, 165, 272):  # i386's restart_syscall, exit, munmap... and x86-64's mount, unshare
        assert run_filter(f.program, nr, AUDIT_ARCH_I386) == RET_KILL_PROCESS
        assert run_filter(f.program, nr, AUDIT_ARCH["aarch64"]) == RET_KILL_PROCESS
    for nr in (0, 1, 165, 272, 512):  # x32: read, write, mount, unshare, its own rt_sigaction
        assert eperm(run_filter(f.program, 0x40000000 | nr, AUDIT_ARCH["x86_64"]))
    assert run_filter(seccomp.build("aarch64").program, 0x40000000, AUDIT_ARCH["aarch64"]) == RET_ALLOW


def test_an_unknown_machine_has_no_filter_and_the_assembler_refuses_bad_programs():
    with pytest.raises(seccomp.UnknownArchitecture, match="'riscv32'.*known: aarch64, x86_64"):
        seccomp.build("riscv32")
    assert seccomp.build("amd64") == seccomp.build("x86_64")
    with pytest.raises(ValueError, match="unknown label 'nowhere' at instruction 0"):
        seccomp.assemble([(seccomp.BPF_JEQ_K, 1, "nowhere", None)])
    far = [(seccomp.BPF_JEQ_K, 1, "end", None)] + [(seccomp.BPF_JEQ_K, 1, None, None)] * 256 + \
        [("label", "end"), (seccomp.BPF_RET_K, 0, None, None)]
    with pytest.raises(ValueError, match="jump from instruction 0 to 'end' is 256"):
        seccomp.assemble(far)
    with pytest.raises(ValueError, match="4097 instructions"):
        seccomp.assemble([(seccomp.BPF_RET_K, 0, None, None)] * 4097)


def test_the_summary_names_the_count_and_the_main_calls():
    f = seccomp.build("x86_64")
    line = f.summary()
    assert line.startswith(f"seccomp: {len(f.denied)} system calls denied (mount, unshare, setns, ptrace, ")
    assert "clone with namespace flags denied, clone3 ENOSYS" in line and "\n" not in line
    assert "user namespace" not in line and "nobody" not in line  # the words that tell the modes apart


def test_the_descriptor_holds_the_program_from_its_start_and_is_not_inherited():
    f = seccomp.build()
    argv, fd = f.bwrap_args()
    try:
        assert argv == ["--seccomp", str(fd)] and not os.get_inheritable(fd)
        assert os.read(fd, 1 << 16) == f.program
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- the kernel

ATTEMPT = """
import ctypes, json, sys
sys.path[:0] = {paths!r}
from harness.sandbox import seccomp
import _privilege
if {install!r}:
    program = seccomp.build().program
    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    code = ctypes.create_string_buffer(program, len(program))
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(38, 1, 0, 0, 0) == 0, "PR_SET_NO_NEW_PRIVS"
    fprog = Fprog(len(program) // 8, ctypes.addressof(code))
    assert libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) == 0, ("PR_SET_SECCOMP", ctypes.get_errno())
print(json.dumps([_privilege.attempts({mount_at!r}, on_the_machine={control!r}), _privilege.still_works()]))
"""


def attempt(tmp_path: Path, *, install: bool) -> tuple[dict, dict]:
    """``_privilege``'s attempts in a process of its own, under the bare filter or (the
    control) without it, where the mount and the parent's ptrace are left out."""
    target = tmp_path / "mount-target"
    target.mkdir(exist_ok=True)
    script = ATTEMPT.format(paths=[str(ROOT), str(CANDIDATES)], install=install, control=not install,
                            mount_at=str(target) if install else None)
    try:
        proc = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, timeout=300)
    finally:
        if os.path.ismount(target):  # only if the filter let a mount through (and the attack's own umount failed)
            subprocess.run(["umount", "-l", str(target)], check=False)
    assert proc.returncode == 0, proc.stderr
    return tuple(json.loads(proc.stdout))


EXPECTED = {
    "unshare(CLONE_NEWUSER)": errno.EPERM, "unshare(CLONE_NEWUSER | CLONE_NEWNS)": errno.EPERM,
    "clone(CLONE_NEWUSER)": errno.EPERM, "unshare -U -r (the command)": errno.EPERM,
    "setns(own mount namespace)": errno.EPERM, "mount(tmpfs)": errno.EPERM,
    "ptrace(PTRACE_ATTACH, parent)": errno.EPERM, "ptrace(PTRACE_TRACEME)": errno.EPERM,
    "keyctl(KEYCTL_JOIN_SESSION_KEYRING)": errno.EPERM, "bpf(BPF_MAP_CREATE)": errno.EPERM,
    "perf_event_open(task clock, own process)": errno.EPERM, "userfaultfd(UFFD_USER_MODE_ONLY)": errno.EPERM,
    "io_uring_setup": errno.EPERM, "personality(ADDR_NO_RANDOMIZE)": errno.EPERM, "clone3": errno.ENOSYS,
}
"""What each attempt must answer under the filter: EPERM, and ENOSYS for clone3 (so glibc
falls back to clone)."""
if hasattr(os, "unshare"):  # Python 3.12+: the same call without ctypes
    EXPECTED["os.unshare(CLONE_NEWUSER)"] = errno.EPERM


@pytest.mark.e2e  # starts processes
def test_the_kernel_takes_the_filter_and_refuses_every_attempt_while_threads_and_spawns_work(tmp_path):
    tried, works = attempt(tmp_path, install=True)
    assert tried == EXPECTED
    assert works == dict.fromkeys(works, 0) and len(works) == 3


@pytest.mark.e2e  # starts processes
def test_without_the_filter_the_same_attempts_work_here(tmp_path):
    # the control: what the filter's answers above are worth on this machine
    tried, works = attempt(tmp_path, install=False)
    assert works == dict.fromkeys(works, 0)
    worked = {what for what, answer in tried.items() if answer == 0}
    assert tried["clone3"] == errno.EINVAL  # the kernel's own answer to a clone3 without arguments: not ENOSYS
    if os.geteuid() == 0:  # root outside any namespace: each of these works unless the machine forbids it
        assert {"unshare(CLONE_NEWUSER)", "clone(CLONE_NEWUSER)", "keyctl(KEYCTL_JOIN_SESSION_KEYRING)",
                "personality(ADDR_NO_RANDOMIZE)"} <= worked, tried
    else:
        assert {"keyctl(KEYCTL_JOIN_SESSION_KEYRING)", "personality(ADDR_NO_RANDOMIZE)"} <= worked, tried


# --------------------------------------------------------------------------- the sandbox

modes = pytest.mark.parametrize("as_user", [False, True], ids=["root-or-user", "user-namespace"])


def status_of(cand) -> dict[str, str]:
    return dict(line.split(":\t", 1) for line in cand.module.status_lines())


@pytest.mark.e2e
@confined
@modes
def test_every_way_back_to_privilege_is_refused_inside_the_sandbox(harness_unchanged, monkeypatch, as_user):
    if as_user:
        monkeypatch.setenv("CONSTRAIN_HARNESS_AS_USER", "1")
    with Candidate(str(PRIVILEGE)) as cand:
        marker = cand.marker
        assert cand.module.attempts() == EXPECTED
        works = cand.module.still_works()
        assert works == dict.fromkeys(works, 0) and len(works) == 3
        assert seccomp.build().summary() + "; the harness: " in cand.load["confinement"]
        assert ("user namespace" in cand.load["confinement"]) == as_user
    assert left_over(marker) == [], "processes of the candidate are still running"


@pytest.mark.e2e
@confined
@modes
def test_the_candidate_has_no_capability_no_new_privs_and_the_filter(monkeypatch, as_user, tmp_path):
    if as_user:  # uid 0 in its own namespace: bwrap kept every capability before --cap-drop ALL
        monkeypatch.setenv("CONSTRAIN_HARNESS_AS_USER", "1")
    probe = tmp_path / "probe.py"
    probe.write_text("from oracles.automaton import *  # noqa: F401,F403\n"
                     "def status_lines():\n    return open('/proc/self/status').read().splitlines()\n")
    with Candidate(str(probe)) as cand:
        status = status_of(cand)
        marker = cand.marker
    assert status["Seccomp"] == "2" and status["Seccomp_filters"] == "1" and status["NoNewPrivs"] == "1"
    assert {status[c] for c in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")} == {"0000000000000000"}
    assert left_over(marker) == []


@pytest.mark.e2e
@confined
def test_check_gives_the_attacker_the_references_verdict(harness_unchanged):
    verdicts = {}
    for impl in (str(PRIVILEGE), None):  # None: the reference, the same module without the attacks
        result = run_check(CheckOptions(impl=impl, only=TWO))
        assert left_over(result.marker) == [], f"processes of {impl} are still running"
        verdicts[impl] = (result.exit_code, {t.name: t.status for t in result.tests})
        assert seccomp.build().summary() + "; the harness: " in result.isolation, result.isolation
    assert verdicts[str(PRIVILEGE)] == verdicts[None] == (ExitCode.OK, dict.fromkeys(TWO, "passed"))
    assert "seccomp: " in render_table(result)


ORDINARY_UID = 4242
SANDBOXED = """
import json, sys
sys.path[:0] = [{candidates!r}]
import _privilege
print(json.dumps([_privilege.attempts(), _privilege.still_works(numpy=False)]))
"""


def as_ordinary_user() -> list[str]:
    """setpriv's command line that runs the rest as ``ORDINARY_UID``, or a skip."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to become an ordinary user")
    return [setpriv, f"--reuid={ORDINARY_UID}", f"--regid={ORDINARY_UID}", "--clear-groups", "--"]


@pytest.mark.e2e
@confined
def test_a_real_ordinary_user_grader_keeps_the_candidate_out_of_privilege_too(harness_unchanged):
    """``check`` run by uid 4242 (setpriv): bwrap in a user namespace of that user; the
    attacker's verdict says every attempt was refused (it raises otherwise)."""
    drop, uid = as_ordinary_user(), ORDINARY_UID
    probe = subprocess.run([*drop, sys.executable, "-c", "import sys, harness; print(sys.base_prefix)"],
                           capture_output=True, text=True, cwd="/", timeout=60)
    if probe.returncode != 0 or probe.stdout.strip() != sys.base_prefix:
        pytest.skip(f"an ordinary user cannot run this interpreter as it is (its base {sys.base_prefix} is not "
                    f"readable to uid {uid}): the machine does not allow this run")
    work = Path(tempfile.mkdtemp(prefix="seccomp-user-", dir="/var/tmp"))
    try:
        for folder in (work / "home", work / "tmp"):
            folder.mkdir()
            os.chown(folder, uid, uid)
        work.chmod(0o755)
        env = {**os.environ, "HOME": str(work / "home"), "TMPDIR": str(work / "tmp"),
               "CONSTRAIN_HARNESS_MARKER": "seccomp-user-7c1e"}
        env.pop("CONSTRAIN_HARNESS_BWRAP_WORKS", None)  # root's answer: this user asks again
        proc = subprocess.run([*drop, str(Path(sys.executable).parent / "constrain-harness"), "check", "--impl",
                               str(PRIVILEGE), "--only", ",".join(TWO)],
                              cwd=str(work / "tmp"), env=env, capture_output=True, text=True, timeout=600)
        if proc.returncode == ExitCode.USAGE and "refusing" in proc.stderr:
            pytest.skip(f"no confinement for uid {uid} here: {proc.stderr.strip()}")
        assert proc.returncode == ExitCode.OK, proc.stdout + proc.stderr
        header = next(line for line in proc.stdout.splitlines() if line.startswith("confinement: "))
        assert header.startswith("confinement: bubblewrap (user namespace)") and "seccomp: " in header, header
        assert left_over("seccomp-user-7c1e") == []
    finally:
        shutil.rmtree(work)


@pytest.mark.e2e
@confined
def test_an_ordinary_users_sandbox_refuses_every_attempt_too(monkeypatch):
    """The ordinary-user command line (``bwrap --unshare-user --disable-userns --cap-drop ALL
    --seccomp FD``) started by uid 4242 itself, the attempts run by the system's python (an
    ordinary user may not reach every venv's interpreter: ``check`` itself below)."""
    drop = as_ordinary_user()
    python = next((p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.access(p, os.X_OK)), None)
    if python is None or subprocess.run([*drop, python, "-I", "-c", "import ctypes"], cwd="/").returncode != 0:
        pytest.skip(f"no interpreter uid {ORDINARY_UID} can run here")
    monkeypatch.setenv("CONSTRAIN_HARNESS_AS_USER", "1")
    assert confine.unavailable() is None  # root's probe of this path, with the venv's interpreter
    monkeypatch.setattr(confine, "interpreter_paths", list)  # the system's python lives in /usr, bound anyway
    work = Path(tempfile.mkdtemp(prefix="seccomp-user-", dir="/var/tmp"))
    try:
        work.chmod(0o755)
        os.chown(work, ORDINARY_UID, ORDINARY_UID)
        plan = confine.plan(confine.Limits(), [CANDIDATES], [], work, "seccomp-user-3b9d")
        assert plan.mode == "bubblewrap (user namespace)" and "--disable-userns" in plan.prefix
        script = SANDBOXED.format(candidates=str(CANDIDATES))
        proc = subprocess.run([*drop, *plan.prefix, python, "-I", "-c", script], env=plan.env, cwd=str(work),
                              pass_fds=plan.pass_fds, capture_output=True, text=True, timeout=300)
        plan.release_fds()
        plan.release()  # its cgroup and uid
        assert proc.returncode == 0, proc.stderr
        tried, works = json.loads(proc.stdout)
        has_unshare = subprocess.run([python, "-I", "-c", "import os; print(hasattr(os, 'unshare'))"],
                                     capture_output=True, text=True).stdout.strip() == "True"
        # the system's python, not this one: os.unshare is there from Python 3.12 on
        assert tried == {k: v for k, v in EXPECTED.items() if has_unshare or not k.startswith("os.")}
        assert works == dict.fromkeys(works, 0) and len(works) == 2
        assert left_over("seccomp-user-3b9d") == []
    finally:
        shutil.rmtree(work)


# --------------------------------------------------------------------------- fail closed


def test_no_filter_for_the_machine_means_no_confinement(monkeypatch):
    monkeypatch.setattr(seccomp, "ABIS", {})
    seccomp.build.cache_clear()
    try:
        reason = confine.unavailable()
        assert reason is not None and reason.startswith("no seccomp filter: no seccomp syscall table for machine ")
        with pytest.raises(confine.ConfinementUnavailable, match="no seccomp filter"):
            confine.plan(confine.Limits(), [], [], Path("/tmp/h"), "m")
        out, err = io.StringIO(), io.StringIO()
        assert main(["check", "--only", "test_apply_mask"], out, err) == ExitCode.USAGE
        assert err.getvalue().count("\n") == 1 and "no seccomp filter" in err.getvalue(), err.getvalue()
    finally:
        seccomp.build.cache_clear()


@confined
@pytest.mark.e2e  # starts processes
def test_a_spawn_without_the_filters_descriptor_fails_closed(tmp_path):
    plan = confine.plan(confine.Limits(), [], [], tmp_path, "seccomp-fd-test")
    argv = plan.prefix + [sys.executable, "-I", "-c", "pass"]
    ok = subprocess.run(argv, pass_fds=plan.pass_fds, capture_output=True, env=plan.env, timeout=60)
    assert ok.returncode == 0, ok.stderr
    forgotten = subprocess.run(argv, capture_output=True, env=plan.env, timeout=60)  # no pass_fds
    assert forgotten.returncode != 0 and b"seccomp" in forgotten.stderr.lower(), forgotten.stderr
    fds = set(os.listdir("/proc/self/fd"))
    plan.release_fds()
    assert plan.pass_fds == () and len(set(os.listdir("/proc/self/fd"))) == len(fds) - 1
    plan.release_fds()  # twice is fine: the descriptor is closed once
    plan.release()  # its cgroup and uid


@confined
@pytest.mark.e2e  # starts processes
def test_a_filter_the_kernel_refuses_means_no_confinement(monkeypatch):
    # a load past the end of seccomp_data: the kernel's check of the program refuses it (EINVAL), so bwrap
    # cannot start the sandbox and every verb refuses (the probe loads the filter, as every spawn does)
    real = seccomp.build()
    broken = seccomp.Filter(real.abi, real.denied, struct.pack("=HBBI", LD | W | ABS, 0, 0, 1000) +
                            struct.pack("=HBBI", RET | K, 0, 0, RET_ALLOW))
    monkeypatch.setattr(seccomp, "build", lambda machine=None: broken)
    monkeypatch.setattr(confine, "_WORKS", {})
    monkeypatch.setattr(confine, "_FAILURES", {})
    monkeypatch.delenv("CONSTRAIN_HARNESS_BWRAP_WORKS", raising=False)
    reason = confine.unavailable()
    assert reason is not None and "cannot build its sandbox here" in reason and "seccomp" in reason.lower(), reason
    line = confine.refusal("check")
    assert line.startswith("check: refusing to run untrusted code without confinement: ") and "\n" not in line
    with pytest.raises(confine.ConfinementUnavailable, match="(?i)seccomp"):
        confine.plan(confine.Limits(), [], [], Path("/tmp/h"), "m")
