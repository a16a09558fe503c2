"""A suite that floods its output, then kills its own process mid-run."""

import fcntl
import os
import signal

from tinyllm.infer import constrain


def test_floods_stdout():
    chunk = b"flood " * 10_000
    pipes = []
    for fd in map(int, os.listdir("/proc/self/fd")):
        try:
            if fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:") and \
                    fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                pipes.append(fd)  # the stdout pytest saved
        except OSError:
            continue
    for _ in range(500):  # 30 MB straight to the process's stdout, past pytest's capture
        for fd in pipes or [1]:
            os.write(fd, chunk)
    assert constrain.regex_to_dfa("a").matches(b"a")


def test_kills_its_process():
    os.kill(os.getpid(), signal.SIGKILL)


def test_never_reached():
    assert True
