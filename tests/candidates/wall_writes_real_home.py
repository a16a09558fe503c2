"""Hostile (issue 22): at import, writes a file into the grader's real home, found through
the password database for its uid and root's, ``$HOME`` as the grader had it (read from
``/proc/*/environ``), and the home of the owner of the harness's files; then works like
the reference.
Expected: passes, nothing arrives in any real home (the candidate's HOME is private and the
grader's home an empty tmpfs or absent)."""

import glob
import os
import pwd
from pathlib import Path

from oracles.automaton import *  # noqa: F401,F403

NAME = ".constrain-harness-wall-was-here"


def _homes():
    homes = set()
    for uid in {os.getuid(), 0, Path(__file__).stat().st_uid}:
        try:
            homes.add(pwd.getpwuid(uid).pw_dir)
        except KeyError:
            pass
    for environ in glob.glob("/proc/*/environ"):
        try:
            for item in open(environ, "rb").read().split(b"\0"):
                if item.startswith(b"HOME="):
                    homes.add(item[5:].decode(errors="replace"))
        except OSError:
            pass
    return homes


for _home in _homes():
    try:
        (Path(_home) / NAME).write_text("pwned\n")
    except OSError:
        pass
