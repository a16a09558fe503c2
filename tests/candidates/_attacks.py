"""The attacks of the hostile gallery, one function each, for the candidates here to call.
Each fails quietly (only the harness may notice). Not a candidate itself."""

import ctypes
import glob
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import golden
import harness

GOLDEN = Path(golden.__file__).parent
HARNESS = Path(harness.__file__).parent
VICTIM = Path(os.environ.get("CONSTRAIN_HARNESS_VICTIM", "/tmp/constrain-harness-victim.txt"))
FAKE_ROW = "\r\x1b[2K\x1b[32m 1  test_hand_example  unit, smoke  PASS\x1b[0m\nverdict: passed (exit 0)\n"


def quietly(action) -> None:
    try:
        action()
    except Exception:  # noqa: BLE001
        pass


def remount() -> None:
    """Detach or remount read-write the tree around the harness (libc and the commands)."""
    libc = ctypes.CDLL(None, use_errno=True)
    root = str(GOLDEN.parent).encode()
    libc.umount2(root, 2)  # MNT_DETACH
    libc.mount(b"none", root, None, 32, None)  # MS_REMOUNT without MS_RDONLY
    for command in (["mount", "-o", "remount,rw", str(GOLDEN.parent)], ["umount", "-l", str(GOLDEN.parent)]):
        quietly(lambda: subprocess.run(command, capture_output=True, timeout=5))


def write_harness() -> None:
    quietly(lambda: (GOLDEN / "masks_golden.json").write_text("{}\n"))
    quietly(lambda: (HARNESS / "suite" / "test_dfa.py").write_text("def test_nothing():\n    pass\n"))


def plant_files() -> None:
    quietly(lambda: (GOLDEN / "planted.json").write_text("{}\n"))
    quietly(lambda: (HARNESS / "suite" / "test_planted.py").write_text("def test_planted():\n    pass\n"))
    quietly(lambda: (GOLDEN.parent / "oracles" / "planted.py").write_text("PLANTED = True\n"))
    quietly(lambda: (HARNESS / "__pycache__").mkdir())
    quietly(lambda: (HARNESS / "__pycache__" / "check.cpython-311.pyc").write_bytes(b"planted"))


def relink_golden() -> None:
    """Replace a golden file by a symlink to a file outside the checkout."""
    target = GOLDEN / "constrain_golden.json"
    quietly(target.unlink)
    quietly(lambda: target.symlink_to(VICTIM))


HOME_TARGETS = (Path("/root/constrain-harness-was-here"),
                Path(os.path.expanduser("~root"), ".constrain-harness-was-here"))


def write_home() -> None:
    """Write new files into the grader's home (never run this where it is not confined)."""
    for target in HOME_TARGETS:
        quietly(lambda: target.write_text("pwned\n"))


def leave_daemon() -> None:
    """A setsid + double-fork child that sleeps forever."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in (0, 1, 2):
                quietly(lambda: os.close(fd))
            while True:
                time.sleep(1)
        os._exit(0)
    os.wait()


def kill_graders() -> None:
    """SIGKILL the parent and every process whose command line names pytest or constrain-harness."""
    for path in glob.glob("/proc/[0-9]*/cmdline"):
        pid = int(path.split("/")[2])
        try:
            cmdline = open(path, "rb").read()
        except OSError:
            continue
        if pid != os.getpid() and (pid == os.getppid() or b"pytest" in cmdline or b"constrain-harness" in cmdline):
            quietly(lambda: os.kill(pid, signal.SIGKILL))
    quietly(lambda: os.kill(os.getppid(), signal.SIGKILL))


def find_secret() -> str | None:
    """CONSTRAIN_HARNESS_TEST_SECRET from any environment under /proc it can read."""
    for path in glob.glob("/proc/*/environ"):
        try:
            for entry in open(path, "rb").read().split(b"\0"):
                if entry.startswith(b"CONSTRAIN_HARNESS_TEST_SECRET="):
                    return entry.split(b"=", 1)[1].decode(errors="replace")
        except OSError:
            continue
    return None


def flood_stdout(megabytes: int = 20) -> None:
    chunk = "x" * (1 << 20) + "\n"
    for _ in range(megabytes):
        sys.stdout.write(chunk)
    sys.stdout.flush()


def print_fake_row() -> None:
    sys.stdout.write(FAKE_ROW)
    sys.stderr.write(FAKE_ROW)
    sys.stdout.flush()
