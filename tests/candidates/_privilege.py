"""The ways back to privilege a confined candidate may try (issue 48.5), for
``wall_regains_privilege.py`` and ``tests/test_seccomp.py``; not a candidate itself.

``attempts()`` tries each and answers ``{what: 0 if it worked, else the errno}``; every
attempt runs in a forked child of its own, so a success changes nothing of the caller (no
namespace joined, no keyring, no personality) and leaves no process behind.
``still_works()`` answers the same for what a confined program must still be able to do
(a thread, ``posix_spawn``, a subprocess importing numpy: glibc 2.34+ starts each with
``clone3`` and falls back to ``clone`` on ENOSYS). Imports nothing of the harness, so a
test can run it in a process of its own under the bare filter.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import subprocess
import sys
import threading

# the kernel's numbers (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h),
# written out here apart from harness.sandbox.seccomp's tables
NUMBERS = {
    "x86_64": {"clone": 56, "keyctl": 250, "perf_event_open": 298, "bpf": 321, "userfaultfd": 323,
               "io_uring_setup": 425, "clone3": 435},
    "aarch64": {"clone": 220, "keyctl": 219, "perf_event_open": 241, "bpf": 280, "userfaultfd": 282,
                "io_uring_setup": 425, "clone3": 435},
}[os.uname().machine]
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
SIGCHLD = 17
PTRACE_TRACEME, PTRACE_ATTACH, PTRACE_DETACH = 0, 16, 17
KEYCTL_JOIN_SESSION_KEYRING = 1
BPF_MAP_CREATE, BPF_MAP_TYPE_ARRAY = 0, 2
PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK = 1, 1
UFFD_USER_MODE_ONLY = 1
ADDR_NO_RANDOMIZE = 0x0040000
MS_NOSUID = 2

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(name: str, *args) -> int:
    """0 if the call worked (any result but -1), else its errno."""
    result = _libc.syscall(ctypes.c_long(NUMBERS[name]), *[ctypes.c_long(a) for a in args])
    return ctypes.get_errno() if result == -1 else 0


def _libc_call(function, *args) -> int:
    return ctypes.get_errno() if function(*args) == -1 else 0


def _os_call(function, *args) -> int:
    try:
        function(*args)
    except OSError as exc:
        return exc.errno
    return 0


def in_child(action) -> int:
    """``action()``'s answer (0 or an errno), run in a forked child; a child that died of a
    signal answers minus the signal's number."""
    pid = os.fork()
    if pid == 0:
        code = 250
        try:
            code = action()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _clone_new_user() -> int:
    """What ``unshare -U`` does through ``clone``: a child in a user namespace of its own."""
    flags, no_stack = ctypes.c_long(CLONE_NEWUSER | SIGCHLD), ctypes.c_long(0)  # no stack: a fork's copy of it
    pid = _libc.syscall(ctypes.c_long(NUMBERS["clone"]), flags, no_stack, *[ctypes.c_long(0)] * 3)
    if pid == 0:  # the new child, with every capability in its namespace
        os._exit(0)
    if pid == -1:
        return ctypes.get_errno()
    os.waitpid(pid, 0)
    return 0


def _unshare_command() -> int:
    proc = subprocess.run(["unshare", "-U", "-r", "true"], capture_output=True, text=True, timeout=30)
    if proc.returncode == 0:
        return 0
    known = {os.strerror(e): e for e in (errno.EPERM, errno.ENOSYS, errno.EINVAL, errno.ENOSPC, errno.EACCES)}
    return next((e for text, e in known.items() if text in proc.stderr), 255)


def _mount_tmpfs(target: str) -> int:
    result = _libc_call(_libc.mount, b"none", target.encode(), b"tmpfs", ctypes.c_ulong(MS_NOSUID), None)
    if result == 0:  # it worked: take it down again (only a broken filter gets here)
        _libc.umount2(target.encode(), 2)
    return result


def _ptrace(request: int, pid: int) -> int:
    result = _libc_call(_libc.ptrace, ctypes.c_long(request), ctypes.c_long(pid), None, None)
    if result == 0 and request == PTRACE_ATTACH:
        _libc.ptrace(ctypes.c_long(PTRACE_DETACH), ctypes.c_long(pid), None, None)
    return result


def _bpf_map() -> int:
    attr = ctypes.create_string_buffer(struct.pack("=IIII", BPF_MAP_TYPE_ARRAY, 4, 4, 1), 16)
    return _syscall("bpf", BPF_MAP_CREATE, ctypes.addressof(attr), 16)


def _perf_event() -> int:
    flags = 1 | 1 << 5 | 1 << 6  # disabled, exclude_kernel, exclude_hv: what an unprivileged caller may ask
    attr = ctypes.create_string_buffer(struct.pack("=IIQQQQQIIQ", PERF_TYPE_SOFTWARE, 64, PERF_COUNT_SW_TASK_CLOCK,
                                                   0, 0, 0, flags, 0, 0, 0), 64)
    return _syscall("perf_event_open", ctypes.addressof(attr), 0, -1, -1, 0)


def _io_uring() -> int:
    params = ctypes.create_string_buffer(120)  # struct io_uring_params, zeroed
    return _syscall("io_uring_setup", 1, ctypes.addressof(params))


def attempts(mount_at: str | None = "/tmp", *, on_the_machine: bool = False) -> dict[str, int]:
    """Every way back, each in its own child: ``{what: 0 or errno}``. ``mount_at=None``
    leaves the tmpfs out; ``on_the_machine`` (a control run outside any sandbox) leaves it
    and the ptrace of the caller's parent out (they would work on the machine itself)."""
    parent = os.getppid()
    tries = {
        "unshare(CLONE_NEWUSER)": lambda: _libc_call(_libc.unshare, CLONE_NEWUSER),
        "unshare(CLONE_NEWUSER | CLONE_NEWNS)": lambda: _libc_call(_libc.unshare, CLONE_NEWUSER | CLONE_NEWNS),
        "clone(CLONE_NEWUSER)": _clone_new_user,
        "unshare -U -r (the command)": _unshare_command,
        "setns(own mount namespace)": lambda: _libc_call(_libc.setns, os.open("/proc/self/ns/mnt", os.O_RDONLY),
                                                        CLONE_NEWNS),
        "ptrace(PTRACE_ATTACH, parent)": lambda: _ptrace(PTRACE_ATTACH, parent),
        "ptrace(PTRACE_TRACEME)": lambda: _ptrace(PTRACE_TRACEME, 0),
        "keyctl(KEYCTL_JOIN_SESSION_KEYRING)": lambda: _syscall("keyctl", KEYCTL_JOIN_SESSION_KEYRING, 0),
        "bpf(BPF_MAP_CREATE)": _bpf_map,
        "perf_event_open(task clock, own process)": _perf_event,
        "userfaultfd(UFFD_USER_MODE_ONLY)": lambda: _syscall("userfaultfd", os.O_CLOEXEC | UFFD_USER_MODE_ONLY),
        "io_uring_setup": _io_uring,
        "personality(ADDR_NO_RANDOMIZE)": lambda: _libc_call(_libc.personality, ctypes.c_ulong(ADDR_NO_RANDOMIZE)),
        "clone3": lambda: _syscall("clone3", 0, 0),
    }
    if hasattr(os, "unshare"):  # Python 3.12+
        tries["os.unshare(CLONE_NEWUSER)"] = lambda: _os_call(os.unshare, CLONE_NEWUSER)
    if on_the_machine:
        del tries["ptrace(PTRACE_ATTACH, parent)"]
    elif mount_at is not None:
        tries["mount(tmpfs)"] = lambda: _mount_tmpfs(mount_at)
    return {what: in_child(action) for what, action in tries.items()}


def _thread() -> int:
    ran = []
    worker = threading.Thread(target=lambda: ran.append(True))
    worker.start()
    worker.join()
    return 0 if ran else 1


def _posix_spawn() -> int:
    pid = os.posix_spawn("/bin/sh", ["sh", "-c", "exit 0"], {})
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def _numpy_in_a_subprocess() -> int:
    code = "import numpy, threading; t = threading.Thread(target=numpy.arange(9).sum); t.start(); t.join()"
    return subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, timeout=120).returncode


def still_works(*, numpy: bool = True) -> dict[str, int]:
    """What a confined program needs, each in its own child: ``{what: 0 if it worked}``
    (``numpy=False``: an interpreter without numpy, the subprocess left out)."""
    tries = {"a thread (pthread_create: clone3, then clone)": _thread, "posix_spawn": _posix_spawn}
    if numpy:
        tries["a subprocess importing numpy and starting a thread"] = _numpy_in_a_subprocess
    return {what: in_child(action) for what, action in tries.items()}
