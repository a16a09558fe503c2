"""Every file a verb reads: a regular file, at most a documented size, opened and read once.

``read_bytes(path, limit=...)`` opens the path once (``O_NONBLOCK``, so opening a FIFO
never waits for a writer), checks *the opened file* with ``fstat`` (a folder, a
device such as a link to ``/dev/zero``, a FIFO or a socket is refused; checking the
path first and opening it after would let it change in between), and reads at most
``limit + 1`` bytes (a file that grows past the limit is refused, never read whole).
``read_text`` adds UTF-8 decoding. Every refusal is an ``InputError`` (a ValueError)
naming the file and the problem in one line, e.g.::

    cannot read golden/masks_golden.json: it is a folder
    cannot read golden/masks_golden.json: it is not a regular file (a character device)
    cannot read golden/masks_golden.json: it is over 67108864 bytes

Used by ``golden check`` / ``golden replay --dir``, ``harness.commands.args``'s readers
(schemas, batch and compare inputs) and the autograder's configuration.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["InputError", "read_bytes", "read_text", "MAX_INPUT_BYTES", "MAX_GOLDEN_BYTES"]

MAX_INPUT_BYTES = 16 << 20
"""Largest input file read by default (schemas, configurations, batch inputs), bytes."""
MAX_GOLDEN_BYTES = 64 << 20
"""Largest golden file read (``golden/*.json`` are about 2 MB; a candidate's spec may bring its own)."""


class InputError(ValueError):
    """An input file that cannot be read as asked; ``str`` names the file and the problem."""


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "not a regular file (a character device)"),
          (stat.S_ISBLK, "not a regular file (a block device)"), (stat.S_ISFIFO, "not a regular file (a FIFO)"),
          (stat.S_ISSOCK, "not a regular file (a socket)"))


def _kind(mode: int) -> str | None:
    """Why a file of this mode is not read, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((why for test, why in _KINDS if test(mode)), "not a regular file")


def read_bytes(path: Path | str, *, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit``; InputError otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        why = _kind(os.fstat(fd).st_mode)
        if why is not None:
            raise InputError(f"cannot read {path}: it is {why}")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise InputError(f"cannot read {path}: it is over {limit} bytes")
    return b"".join(chunks)


def read_text(path: Path | str, *, limit: int = MAX_INPUT_BYTES) -> str:
    """``read_bytes`` decoded as UTF-8; InputError naming the first bad byte's offset."""
    data = read_bytes(path, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read {path}: it is not UTF-8 (byte {exc.start})") from None
