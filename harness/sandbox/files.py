"""The harness's files: a manifest before a candidate runs, verification and restore after.

``Manifest.take(roots)`` records every entry under each root (the installed packages
``harness``, ``oracles``, ``strategies``, ``golden``, which hold the golden files): its
path, type (file, dir, link), mode, sha256 and content (files) or target (links), read
with ``lstat`` and ``O_NOFOLLOW`` (never through a link). ``manifest.verify()`` lists
every change since: a file changed, added, removed, relinked, retyped or re-moded.
``manifest.restore()`` puts the recorded tree back from the in-memory copy, never
following a link: what is in the way is removed with ``unlink``/``rmdir`` on ``lstat``
results, files are recreated with ``O_CREAT | O_EXCL | O_NOFOLLOW``, parents first.

``verify`` reads a file again only when its ``lstat`` signature changed: device, inode, size,
mode, mtime and ctime in nanoseconds. Any write, truncation, rename over it, ``chmod`` or
``utime`` moves the ctime, which no process can set back (the kernel stamps it), so an equal
signature is an unchanged file. One exception is guarded as git guards its index: a file whose
ctime falls within ``RACY_SECONDS`` of ``take`` (the kernel stamps file times from a coarse
clock) could be changed again within the same tick; such "racy" files are read and hashed
again whatever their signature. The harness's installed files are far older than a run, so
``verify`` costs one ``lstat`` an entry (0.15 -> ~0.01 CPU s for the installed tree).

Bounds: ``MAX_BYTES`` of content kept in memory (a tree larger than that is refused
with ValueError at ``take``: the harness is about a megabyte).

The grader calls ``take`` before the candidate process starts and ``verify`` +
``restore`` after it ended; any change is the run's verdict "tampered"
(``harness.exitcodes.ExitCode.TAMPERED``), but for Python's bytecode cache: a
``__pycache__`` folder and the ``.pyc`` files in it, added, changed or removed, are not
listed by ``verify`` (another process using the same checkout, a test run beside a check,
writes them there while a check runs; they are not the harness's files), and ``verify``
deletes every ``.pyc`` file added or changed since ``take`` (a cache: Python writes it
again; a forged ``.pyc`` does not outlive the run). A link, anything but a folder named
``__pycache__``, or anything but a regular ``.pyc`` file in one, is listed as any other entry is.
So ``take`` keeps a ``.pyc`` file's ``lstat`` signature only, not its content (about half the
tree's bytes once the harness is compiled: ``harness.sandbox.bytecode``): ``verify`` deletes it
when the signature moved and ``restore`` never writes one back. A racy one (above) is read and
hashed as any file is, so that ``verify`` can tell it unchanged.

Example::

    >>> m = Manifest.take([Path("golden")])
    >>> m.verify()
    []
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

MAX_BYTES = 256 << 20
RACY_SECONDS = 2.0
"""A file whose ctime is this close to ``take`` (or later) is hashed again by ``verify``
whatever its ``lstat`` signature says (coarse file-time ticks; the module docstring)."""


@dataclass(frozen=True)
class Entry:
    kind: str  # "file", "dir", "link", "other"
    mode: int
    sha256: str = ""
    content: bytes = b""
    target: str = ""
    signature: tuple = field(default=(), compare=False)  # _signature() of the lstat it was read from
    content_kept: bool = field(default=True, compare=False)  # False: a .pyc recorded by its signature only


@dataclass
class Manifest:
    roots: list[Path]
    entries: dict[Path, Entry]
    racy_after_ns: int = 0  # entries with a ctime at or after this are re-read by verify

    @classmethod
    def take(cls, roots: list[Path]) -> "Manifest":
        racy_after_ns = time.time_ns() - int(RACY_SECONDS * 1e9)
        entries: dict[Path, Entry] = {}
        total = 0
        for root in roots:
            for path in _walk(root):
                entry = _entry(path, signature_only_before_ns=racy_after_ns)
                total += len(entry.content)
                if total > MAX_BYTES:
                    raise ValueError(f"the protected tree under {root} holds more than {MAX_BYTES} bytes")
                entries[path] = entry
        return cls(list(roots), entries, racy_after_ns)

    def verify(self) -> list[str]:
        """One line per difference, e.g. ``golden/x.json: changed (sha256 1a2b...)``; the
        bytecode cache's changes are not listed, its new or changed files are deleted (the
        module docstring)."""
        now = {path: self._now(path) for root in self.roots for path in _walk(root)}
        changes = []
        for path, was in self.entries.items():
            got = now.get(path)
            if _bytecode_cache(path, was) and (got is None or _bytecode_cache(path, got)):
                if got is not None and got.kind == "file" and got.sha256 != was.sha256:
                    _drop_cache_file(path)
                continue
            if got is None:
                changes.append(f"{self._name(path)}: removed")
            elif got.kind != was.kind:
                changes.append(f"{self._name(path)}: a {was.kind} replaced by a {got.kind}"
                               + (f" to {got.target}" if got.kind == "link" else ""))
            elif got.kind == "link" and got.target != was.target:
                changes.append(f"{self._name(path)}: relinked to {got.target}")
            elif got.kind == "file" and got.sha256 != was.sha256:
                changes.append(f"{self._name(path)}: changed (sha256 {got.sha256[:12]})")
            elif got.mode != was.mode:
                changes.append(f"{self._name(path)}: mode {oct(was.mode)} -> {oct(got.mode)}")
        for path in sorted(set(now) - set(self.entries)):
            if not _bytecode_cache(path, now[path]):
                changes.append(f"{self._name(path)}: added ({now[path].kind})")
            elif now[path].kind == "file":
                _drop_cache_file(path)
        return changes

    def restore(self) -> None:
        """Make the tree what ``take`` saw (see the module docstring); never follows a link."""
        for root in self.roots:
            for path in sorted(_walk(root), key=lambda p: -len(p.parts)):
                if path not in self.entries or self.entries[path].kind != _entry(path).kind:
                    _remove(path)
        for path, entry in sorted(self.entries.items(), key=lambda item: len(item[0].parts)):
            if entry.content_kept:  # a .pyc kept by its signature alone is never written back
                _put(path, entry)

    def _now(self, path: Path) -> Entry:
        """The entry at ``path`` now: the recorded one when its signature is unchanged and
        not racy (the module docstring), else read again."""
        was = self.entries.get(path)
        if was is not None and was.signature:
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                return Entry("missing", 0)
            if _signature(info) == was.signature and info.st_ctime_ns < self.racy_after_ns:
                return was
        return _entry(path)

    def _name(self, path: Path) -> str:
        for root in self.roots:
            if path == root or root in path.parents:
                return str(path.relative_to(root.parent))
        return str(path)


def _bytecode_cache(path: Path, entry: Entry) -> bool:
    """Whether ``entry`` at ``path`` is Python's bytecode cache: a folder ``__pycache__``,
    or a regular ``.pyc`` file in one."""
    if entry.kind == "dir":
        return path.name == "__pycache__"
    return entry.kind == "file" and path.suffix == ".pyc" and path.parent.name == "__pycache__"


def _drop_cache_file(path: Path) -> None:
    """Delete a bytecode file (never through a link: ``unlink`` removes the entry itself)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _walk(root: Path):
    """Every entry under ``root`` (itself included), without following links."""
    try:
        info = os.lstat(root)
    except FileNotFoundError:
        return
    yield root
    if not stat.S_ISDIR(info.st_mode):
        return
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:  # a link to a folder is listed, never entered
            yield Path(dirpath) / name


def _entry(path: Path, signature_only_before_ns: int = 0) -> Entry:
    """The entry at ``path`` now, content read; a ``.pyc`` of a ``__pycache__`` folder whose
    ctime is before ``signature_only_before_ns`` by its signature alone (``take``)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return Entry("missing", 0)
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        return Entry("link", mode, target=os.readlink(path), signature=_signature(info))
    if stat.S_ISDIR(info.st_mode):
        return Entry("dir", mode)  # a folder's own mode is all verify compares: lstat'ed each time
    if not stat.S_ISREG(info.st_mode):
        return Entry("other", mode)
    if info.st_ctime_ns < signature_only_before_ns and path.suffix == ".pyc" and path.parent.name == "__pycache__":
        return Entry("file", mode, signature=_signature(info), content_kept=False)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        with os.fdopen(fd, "rb") as f:
            opened = os.fstat(f.fileno())
            content = f.read(MAX_BYTES + 1)
    except OSError:
        return Entry("file", mode, hashlib.sha256(b"").hexdigest(), b"")
    return Entry("file", mode, hashlib.sha256(content).hexdigest(), content, signature=_unchanged_since(path, opened))


def _unchanged_since(path: Path, opened: os.stat_result) -> tuple:
    """The signature of the file that was read, if the entry at ``path`` is still that file,
    unchanged since it was opened; else ``()`` (no signature: ``verify`` reads it again)."""
    try:
        after = os.lstat(path)
    except FileNotFoundError:
        return ()
    return _signature(opened) if _signature(after) == _signature(opened) else ()


def _signature(info: os.stat_result) -> tuple:
    """What ``verify`` compares before reading a file again: any change to the entry moves one."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mode, info.st_mtime_ns, info.st_ctime_ns)


def _remove(path: Path) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)  # rmtree never follows links (it unlinks them)
    else:
        os.unlink(path)


def _put(path: Path, entry: Entry) -> None:
    current = _entry(path)
    if entry.kind == "dir":
        if current.kind != "dir":
            _remove(path)
            os.mkdir(path, entry.mode)
        if current.kind == "dir" and current.mode != entry.mode:
            os.chmod(path, entry.mode)
    elif entry.kind == "link":
        if current.kind != "link" or current.target != entry.target:
            _remove(path)
            os.symlink(entry.target, path)
    elif entry.kind == "file":
        if current.kind == "file" and current.sha256 == entry.sha256:
            if current.mode != entry.mode:
                os.chmod(path, entry.mode)
            return
        _remove(path)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, entry.mode)
        with os.fdopen(fd, "wb") as f:
            f.write(entry.content)
        os.chmod(path, entry.mode)
