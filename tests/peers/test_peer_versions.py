"""Each peer adapter against a release a year or more older than the newest, installed from
the package registry into a temporary venv and asked through the isolated child (marker
``peer_versions``: not in the default run; ``python -m pytest -n 0 -m peer_versions
tests/peers/test_peer_versions.py``). Skipped cleanly when the registry cannot be reached.

The newest releases are what the ``peers`` extra installs, tested by every other peer test;
here: the version is read (``importlib.metadata``), the API spelling the release answers to
is named, and the answers on shared ASCII patterns (and a schema) are Python ``re``'s and
``jsonschema``'s.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.peers.isolation import IsolatedPeer

pytestmark = pytest.mark.peer_versions

OLDER = {  # peer -> (the older release, what else its adapter needs, the API spelling it must answer to)
    "outlines-core": ("0.1.26", ["interegular"], "outlines_core.fsm.regex:make_byte_level_fsm"),
    "llguidance": ("0.7.19", [], "llguidance:LLMatcher"),
    "interegular": ("0.3.2", [], "interegular:parse_pattern"),
}
PATTERNS = {"(cat|car|dog)s?": [b"cat", b"cars", b"dog", b"do", b"cats!"],
            "[0-9]{2,3}": [b"1", b"12", b"123", b"1234"], "a*b+": [b"", b"b", b"aab", b"ba"]}
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def _venv(root: Path, distribution: str, release: str, extra: list[str]) -> str:
    python = root / "bin" / "python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                           "--disable-pip-version-check", f"{distribution}=={release}", "numpy", *extra],
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        pytest.skip(f"cannot install {distribution}=={release} from the package registry: "
                    f"{' '.join(done.stderr.split())[-300:]}")
    return str(python)


@pytest.mark.parametrize("name", sorted(OLDER))
def test_the_adapter_works_with_a_release_a_year_older(name, tmp_path):
    release, extra, spelling = OLDER[name]
    python = _venv(tmp_path / "venv", name, release, extra)
    peer = IsolatedPeer(name, python=python)
    try:
        assert peer.version == release
        assert spelling in peer.api, peer.api
        for pattern, docs in PATTERNS.items():
            compiled = peer.compile_regex(pattern)
            assert compiled.accepts_all(docs) == [re.fullmatch(pattern.encode(), d) is not None for d in docs]
        if peer.can_schema:
            compiled = peer.compile_schema(SCHEMA)
            assert compiled.accepts(json.dumps({"n": 3}, separators=(",", ":")).encode())
            assert not compiled.accepts(b'{"n":"x"}')
    finally:
        peer.close()
