"""A suite that tries to tell chaffs from wheats without looking at behaviour: each test
fails when it finds anything naming an implementation (a mutant, the reference, a
gallery candidate). Had it found something on the chaffs only, it would 'catch' them; on
the wheats, it would be invalid. The grader must leave it nothing to find."""

import inspect
import os
import sys

import pytest
from tinyllm.infer import constrain

TELLTALES = ("mutant_", "oracles", "brzozowski", "tests/candidates", "constrain-chaffs", "fair_impl")


def revealing(text) -> list[str]:
    text = str(text).lower()
    return [word for word in TELLTALES if word in text]


def test_module_file_and_spec():
    seen = [getattr(constrain, "__file__", ""), getattr(constrain, "__spec__", ""), getattr(constrain, "__path__", ""),
            repr(constrain), dir(constrain)]
    for name in ("regex_to_dfa", "TokenIndex", "DFA"):
        obj = getattr(constrain, name)
        for attr in ("__module__", "__file__", "__globals__", "__code__", "__qualname__", "__class__"):
            seen.append(getattr(obj, attr, ""))
        seen.append(repr(obj))
    assert not revealing(seen), seen


def test_source():
    """Any source text at all would let the suite diff implementations."""
    readable = []
    for obj in (constrain, constrain.regex_to_dfa, constrain.regex_to_dfa("ab")):
        try:
            readable.append(inspect.getsource(obj)[:200])
        except (TypeError, OSError):
            continue
    assert not readable, readable


def test_module_attributes_beyond_the_contract():
    for name in ("os", "sys", "np", "inspect", "importlib", "compile", "parser", "schema", "__name__", "__loader__"):
        try:
            value = getattr(constrain, name)
        except AttributeError:
            continue
        assert not revealing(value), (name, value)


def test_error_messages():
    messages = []
    for call in (lambda: constrain.regex_to_dfa("^a"), lambda: constrain.regex_to_dfa("a{"),
                 lambda: constrain.json_schema_to_regex({"type": "string", "pattern": "x"}),
                 lambda: constrain.regex_to_dfa(b"bytes"), lambda: constrain.TokenIndex(None, None)):
        try:
            call()
        except BaseException as exc:  # noqa: BLE001
            messages.append(f"{type(exc).__name__} {type(exc).__module__} {exc}")
    assert not revealing(messages), messages


def test_environment():
    assert not revealing(dict(os.environ)), dict(os.environ)
    assert not revealing(sys.path), sys.path


def test_process_list():
    seen = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            for part in ("cmdline", "environ"):
                try:
                    with open(f"/proc/{pid}/{part}", "rb") as f:
                        seen.append(f.read().replace(b"\0", b" ").decode("latin-1"))
                except OSError:
                    pass
    assert not revealing(seen), seen


SYSTEM = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "proc", "sys", "dev", "boot"}


SHOWN = 20
"""Findings enough to fail and to show: the walk stops at this many (one is enough to tell)."""


def test_filesystem():
    """Every folder of the machine outside the system's own (other checkouts, homes, data),
    walked breadth first: shallow copies are found before a budget runs out. It stops at
    ``SHOWN`` findings: one already fails the test, and a machine shared by many checkouts
    would otherwise be walked whole (4-6 CPU s a walk)."""
    roots = ["/tmp", os.path.expanduser("~"), os.getcwd(), *(f"/{n}" for n in os.listdir("/") if n not in SYSTEM)]
    found = []
    for root in roots:
        level, budget = [root], 200_000
        while level and budget > 0 and len(found) < SHOWN:
            deeper = []
            for folder in level:
                if len(found) >= SHOWN:
                    break
                try:
                    entries = list(os.scandir(folder))
                except OSError:
                    continue
                budget -= len(entries)
                found += [e.path for e in entries if revealing(e.path)]
                deeper += [e.path for e in entries if e.is_dir(follow_symlinks=False)]
            level = deeper
    assert not found, found[:SHOWN]


def test_raw_channel():
    """Skip the shim: send the grader requests it should never serve."""
    shim = sys.modules.get("_gradewall")
    if shim is None:
        pytest.skip("no shim package to bypass")
    link = sys.modules[constrain.__name__].__served__[0]
    answers = []
    for request in (["getattr", 1, "__file__"], ["getattr", 1, "__name__"], ["repr", 1, None], ["str", 1, None],
                    ["getattr", 1, "os"], ["load", 0, "oracles.automaton"], ["getattr", 2, "__globals__"],
                    ["call", 1, "regex_to_dfa"], ["getattr", 99, "x"]):
        try:
            answers.append(link.request(*request))
        except BaseException as exc:  # noqa: BLE001
            answers.append(f"{type(exc).__name__}: {exc}")
    assert not revealing(answers), answers
