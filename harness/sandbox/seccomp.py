"""The seccomp filter every confined candidate runs under: no way back to privilege.

Inside the sandbox a candidate has no capabilities, but the kernel still offers it the usual
doors to them: a user namespace of its own (where it is root and may mount a tmpfs), and
system calls no confined program needs that are the common start of a kernel exploit
(``bpf``, ``perf_event_open``, ``userfaultfd``, ``keyctl``, ``io_uring``...). This module
writes a classic-BPF seccomp program (no libseccomp) that closes them; ``confine`` hands it
to bubblewrap with ``--seccomp FD``, and bwrap installs it just before it executes the
candidate's command (after its own namespace and mount set-up, which the filter never sees;
bwrap sets ``no_new_privs`` first, which an unprivileged filter requires).

Entry point: ``build(machine=None) -> Filter`` (the running machine's by default), then
``Filter.bwrap_args()`` for bwrap's ``--seccomp FD`` and the file descriptor it reads, and
``Filter.summary()`` for the run header: ``"seccomp: 48 system calls denied (mount, unshare,
setns, ptrace, keyctl, bpf, perf_event_open, userfaultfd, io_uring_setup, ...), clone with
namespace flags denied, clone3 ENOSYS, personality() only PER_LINUX: no new namespace of any
kind"`` on x86-64 (it never says "user namespace" or "nobody", the words that tell the
modes apart). An architecture without a table here raises ``UnknownArchitecture``:
``confine`` then refuses to confine (fail closed); no candidate runs without the filter.

**What is denied, and how.** Every call in ``DENIED`` returns ``EPERM``:

- mounts and namespaces: ``mount``, ``umount2``, ``pivot_root``, ``chroot``, the new mount
  API (``open_tree``, ``move_mount``, ``fsopen``, ``fsconfig``, ``fsmount``, ``fspick``,
  ``mount_setattr``, ``open_tree_attr``), ``unshare``, ``setns``;
- another process's memory: ``ptrace``, ``process_vm_readv``, ``process_vm_writev``,
  ``pidfd_getfd`` (a ptrace-grade fd theft), ``kcmp``;
- the kernel's attack surface no candidate uses: ``keyctl``, ``add_key``, ``request_key``,
  ``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring_setup``, ``io_uring_enter``,
  ``io_uring_register`` (io_uring's operations bypass seccomp altogether, and it has been a
  leading source of kernel privilege escalations), ``fanotify_init`` (since Linux 5.13
  partly unprivileged; a candidate watches no file system);
- the machine's administration (each needs a capability the candidate lacks; denied so
  that a kernel bug in its permission check is out of reach too): ``kexec_load``,
  ``kexec_file_load``, ``init_module``, ``finit_module``, ``delete_module``, ``reboot``,
  ``swapon``, ``swapoff``, ``open_by_handle_at``, ``name_to_handle_at``, ``acct``,
  ``quotactl``, ``quotactl_fd``, ``syslog``, ``lookup_dcookie``, ``nfsservctl``, and on x86-64
  ``iopl``, ``ioperm``, ``uselib``.

Three calls are inspected rather than denied: ``clone`` with any namespace flag
(``CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
CLONE_NEWPID | CLONE_NEWNET``, ``NAMESPACE_FLAGS``) in its first argument returns ``EPERM``,
any other ``clone`` (threads, ``fork``, ``vfork``) is allowed; ``clone3`` returns ``ENOSYS``,
because its flags sit in a structure in memory a filter cannot read: glibc (2.34 and later,
for ``pthread_create`` and ``posix_spawn``) then falls back to ``clone``, whose flags the
filter sees; ``personality`` is allowed only to query (``0xffffffff``) or to set the default
``PER_LINUX`` (0), so no candidate turns address randomisation off (``ADDR_NO_RANDOMIZE``)
for the programs it starts. Everything else is allowed.

**The program's layout** (``struct seccomp_data``: ``nr`` at byte 0, ``arch`` at 4, the
arguments from 16, each 64 bits, little-endian on both architectures here)::

    ld  [4]                      arch
    jeq AUDIT_ARCH ? next : kill     a call through another ABI (int 0x80 on x86-64) kills
    ld  [0]                      nr
    jge 0x40000000 ? eperm : next    x86-64 only: the x32 ABI's numbers (its own copies of each call)
    jeq clone      ? clone_check
    jeq clone3     ? enosys
    jeq personality ? personality_check
    jeq DENIED[i]  ? eperm           one line per denied call
    ret ALLOW
  clone_check:        ld [16]; jset NAMESPACE_FLAGS ? eperm : allow   (the flags' low 32 bits)
  personality_check:  ld [16]; jeq 0 ? allow; jeq 0xffffffff ? allow : eperm
  allow: ret SECCOMP_RET_ALLOW   eperm: ret ERRNO|EPERM   enosys: ret ERRNO|ENOSYS
  kill:  ret SECCOMP_RET_KILL_PROCESS

A linear scan: 65 instructions on x86-64, of which an allowed call runs 56, jitted by the
kernel: some 50 ns a system call (``os.getppid()`` from Python, 280 ns without the filter,
330 ns with it, on a 2-core x86-64 VM). Jump offsets are 8 bits; ``assemble`` raises past
255.

**Syscall numbers** are tables here, one per ABI: x86-64 from the kernel's
``arch/x86/entry/syscalls/syscall_64.tbl``; aarch64 (and every architecture on the generic
table) from ``include/uapi/asm-generic/unistd.h``. ``tests/sandbox/test_seccomp.py`` checks them
against the system's ``<asm/unistd_64.h>`` and ``<asm-generic/unistd.h>`` where installed.
``open_tree_attr`` (467 on both) is Linux 6.15's; an older kernel answers ``ENOSYS``
to it anyway.

Example::

    >>> f = build("x86_64")
    >>> "mount" in f.denied and len(f.program) % 8 == 0
    True
"""

from __future__ import annotations

import errno
import functools
import os
import struct
from dataclasses import dataclass

# ----------------------------------------------------------------------------- the kernel's constants

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000  # | the errno in the low 16 bits
SECCOMP_RET_ALLOW = 0x7FFF0000

BPF_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = the 32-bit word at offset k of seccomp_data
BPF_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K: A == k ? jt : jf
BPF_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K: A >= k ? jt : jf
BPF_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K: A & k ? jt : jf
BPF_RET_K = 0x06  # BPF_RET | BPF_K: return k

OFFSET_NR, OFFSET_ARCH, OFFSET_ARG0 = 0, 4, 16  # struct seccomp_data (little-endian: arg0's low half)
X32_SYSCALL_BIT = 0x40000000
MAX_INSTRUCTIONS = 4096  # BPF_MAXINSNS

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
NAMESPACE_FLAGS = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | \
    CLONE_NEWNET
"""Every namespace flag ``clone`` takes (``CLONE_NEWTIME``, 0x80, is only ``unshare``'s and
``clone3``'s: in ``clone`` those bits are the exit signal)."""
PER_LINUX, PERSONALITY_QUERY = 0, 0xFFFFFFFF

# ----------------------------------------------------------------------------- syscall numbers

DENIED = ("mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
          "fspick", "mount_setattr", "open_tree_attr", "unshare", "setns",
          "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
          "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
          "io_uring_setup", "io_uring_enter", "io_uring_register", "fanotify_init",
          "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
          "swapon", "swapoff", "open_by_handle_at", "name_to_handle_at", "acct", "quotactl", "quotactl_fd",
          "syslog", "lookup_dcookie", "nfsservctl", "iopl", "ioperm", "uselib")
"""The calls that return EPERM (the module docstring says why each); a name an ABI lacks
(``iopl`` on aarch64) is skipped for it."""
HEADLINE = ("mount", "unshare", "setns", "ptrace", "keyctl", "bpf", "perf_event_open", "userfaultfd", "io_uring_setup")
"""The denied calls the header names (all of them would not fit a line)."""
INSPECTED = ("clone", "clone3", "personality")

X86_64 = {  # arch/x86/entry/syscalls/syscall_64.tbl ("common" and "64" rows)
    "clone": 56, "uselib": 134, "personality": 135, "ptrace": 101, "syslog": 103, "pivot_root": 155,
    "chroot": 161, "acct": 163, "mount": 165, "umount2": 166, "swapon": 167, "swapoff": 168, "reboot": 169,
    "iopl": 172, "ioperm": 173, "init_module": 175, "delete_module": 176, "quotactl": 179, "nfsservctl": 180,
    "lookup_dcookie": 212, "kexec_load": 246, "add_key": 248, "request_key": 249, "keyctl": 250,
    "unshare": 272, "perf_event_open": 298, "fanotify_init": 300, "name_to_handle_at": 303,
    "open_by_handle_at": 304, "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "finit_module": 313, "kexec_file_load": 320, "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
    "fsconfig": 431, "fsmount": 432, "fspick": 433, "clone3": 435, "pidfd_getfd": 438, "mount_setattr": 442,
    "quotactl_fd": 443, "open_tree_attr": 467,
}
GENERIC = {  # include/uapi/asm-generic/unistd.h (aarch64, riscv64, loongarch64 share it)
    "lookup_dcookie": 18, "umount2": 39, "mount": 40, "pivot_root": 41, "nfsservctl": 42, "chroot": 51,
    "quotactl": 60, "acct": 89, "personality": 92, "unshare": 97, "kexec_load": 104, "init_module": 105,
    "delete_module": 106, "syslog": 116, "ptrace": 117, "reboot": 142, "add_key": 217, "request_key": 218,
    "keyctl": 219, "clone": 220, "swapon": 224, "swapoff": 225, "perf_event_open": 241, "fanotify_init": 262,
    "name_to_handle_at": 264, "open_by_handle_at": 265, "setns": 268, "process_vm_readv": 270,
    "process_vm_writev": 271, "kcmp": 272, "finit_module": 273, "bpf": 280, "userfaultfd": 282,
    "kexec_file_load": 294, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "clone3": 435, "pidfd_getfd": 438, "mount_setattr": 442, "quotactl_fd": 443, "open_tree_attr": 467,
}


@dataclass(frozen=True)
class Abi:
    """One architecture's system-call ABI: its ``AUDIT_ARCH_*`` value (what the kernel puts
    in ``seccomp_data.arch``), its numbers, and whether it carries the x32 numbers beside."""

    name: str
    audit_arch: int
    numbers: dict
    has_x32: bool


ABIS = {
    "x86_64": Abi("x86_64", 0xC000003E, X86_64, True),  # AUDIT_ARCH_X86_64 = EM_X86_64 | 64BIT | LE
    "aarch64": Abi("aarch64", 0xC00000B7, GENERIC, False),  # AUDIT_ARCH_AARCH64 = EM_AARCH64 | 64BIT | LE
}
MACHINE_ALIASES = {"amd64": "x86_64", "arm64": "aarch64"}


class UnknownArchitecture(RuntimeError):
    """No syscall table here for this machine: no filter can be written, so no candidate may
    run confined (``str`` names the machine)."""


# ----------------------------------------------------------------------------- the filter


@dataclass(frozen=True)
class Filter:
    """A built filter: its ABI, the calls it denies (in program order) and the program
    (``struct sock_filter`` records, 8 bytes each, native byte order: what bwrap reads)."""

    abi: Abi
    denied: tuple[str, ...]
    program: bytes

    def summary(self) -> str:
        """One line for the run header: the count, the best-known names (``HEADLINE``)."""
        named = [name for name in HEADLINE if name in self.denied]
        return (f"seccomp: {len(self.denied)} system calls denied ({', '.join(named)}, ...), clone with "
                f"namespace flags denied, clone3 ENOSYS, personality() only PER_LINUX: no new namespace of any kind")

    def bwrap_args(self) -> tuple[list[str], int]:
        """What bwrap needs: ``["--seccomp", fd]`` and that new file descriptor (``open``),
        which the caller passes to the child (``pass_fds``) and closes after the spawn."""
        fd = self.open()
        return ["--seccomp", str(fd)], fd

    def open(self) -> int:
        """A new file descriptor holding the program, read from its start (close-on-exec:
        only a child given it in ``pass_fds`` inherits it). The caller closes it."""
        try:
            fd = os.memfd_create("constrain-harness-seccomp", os.MFD_CLOEXEC)
        except (AttributeError, OSError):  # no memfd (an old kernel): an unlinked temporary file
            import tempfile

            fd = os.dup(tempfile.TemporaryFile().fileno())  # dup: closing the file object keeps ours
            os.set_inheritable(fd, False)
        os.write(fd, self.program)  # < 1 KB: one write
        os.lseek(fd, 0, os.SEEK_SET)
        return fd


@functools.lru_cache(maxsize=None)
def build(machine: str | None = None) -> Filter:
    """The filter for ``machine`` (``uname -m``'s answer, the running machine's by default);
    ``UnknownArchitecture`` where this module has no table for it."""
    machine = machine if machine is not None else os.uname().machine
    abi = ABIS.get(MACHINE_ALIASES.get(machine, machine))
    if abi is None:
        raise UnknownArchitecture(f"no seccomp syscall table for machine {machine!r} "
                                  f"(known: {', '.join(sorted(ABIS))})")
    denied = tuple(name for name in DENIED if name in abi.numbers)
    return Filter(abi, denied, assemble(instructions(abi, denied)))


def instructions(abi: Abi, denied: tuple[str, ...]) -> list[tuple]:
    """The program as ``(code, k, jt, jf)`` with jumps to labels (str) or ``None`` for the
    next instruction; ``("label", name)`` marks a place. The layout is the module docstring's."""
    nr = abi.numbers
    program: list[tuple] = [
        (BPF_LD_W_ABS, OFFSET_ARCH, None, None),
        (BPF_JEQ_K, abi.audit_arch, None, "kill"),
        (BPF_LD_W_ABS, OFFSET_NR, None, None),
    ]
    if abi.has_x32:
        program.append((BPF_JGE_K, X32_SYSCALL_BIT, "eperm", None))
    program += [(BPF_JEQ_K, nr["clone"], "clone_check", None),
                (BPF_JEQ_K, nr["clone3"], "enosys", None),
                (BPF_JEQ_K, nr["personality"], "personality_check", None)]
    program += [(BPF_JEQ_K, nr[name], "eperm", None) for name in denied]
    program += [(BPF_RET_K, SECCOMP_RET_ALLOW, None, None),
                ("label", "clone_check"), (BPF_LD_W_ABS, OFFSET_ARG0, None, None),
                (BPF_JSET_K, NAMESPACE_FLAGS, "eperm", "allow"),
                ("label", "personality_check"), (BPF_LD_W_ABS, OFFSET_ARG0, None, None),
                (BPF_JEQ_K, PER_LINUX, "allow", None),
                (BPF_JEQ_K, PERSONALITY_QUERY, "allow", "eperm"),
                ("label", "allow"), (BPF_RET_K, SECCOMP_RET_ALLOW, None, None),
                ("label", "eperm"), (BPF_RET_K, SECCOMP_RET_ERRNO | errno.EPERM, None, None),
                ("label", "enosys"), (BPF_RET_K, SECCOMP_RET_ERRNO | errno.ENOSYS, None, None),
                ("label", "kill"), (BPF_RET_K, SECCOMP_RET_KILL_PROCESS, None, None)]
    return program


def assemble(program: list[tuple]) -> bytes:
    """``struct sock_filter`` records for ``instructions``' program: labels resolved to the
    forward offsets BPF jumps take (``target - here - 1``, 0 to 255). Raises ``ValueError``
    for an unknown or backward label, an offset past 255 or a program past 4096 instructions."""
    places, count = {}, 0
    for item in program:
        if item[0] == "label":
            places[item[1]] = count
        else:
            count += 1
    if count > MAX_INSTRUCTIONS:
        raise ValueError(f"seccomp program of {count} instructions: the kernel takes at most {MAX_INSTRUCTIONS}")
    records, here = [], 0
    for item in program:
        if item[0] == "label":
            continue
        code, k, jt, jf = item
        records.append(struct.pack("=HBBI", code, _offset(jt, here, places), _offset(jf, here, places), k))
        here += 1
    return b"".join(records)


def _offset(target, here: int, places: dict) -> int:
    if target is None:
        return 0
    if target not in places:
        raise ValueError(f"seccomp program: jump to unknown label {target!r} at instruction {here}")
    offset = places[target] - here - 1
    if not 0 <= offset <= 255:
        raise ValueError(f"seccomp program: jump from instruction {here} to {target!r} is {offset} "
                         f"(a BPF jump goes 0 to 255 instructions forward)")
    return offset
