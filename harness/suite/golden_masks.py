"""Replaying ``golden/masks_golden.json`` against a candidate (test_masks_match_the_golden_file).

The file is written by ``golden/build.py`` from the derivative oracle (its format is
documented in ``golden/README.md`` and checked by ``golden.fileformat.load``): a shared
vocabulary (``tokens_hex``, ``eos_id``) and cases, each a pattern with seeded paths;
a path lists the ``tokens`` taken and, before each token and after the last,
``allowed`` (the ids the mask must allow) and ``complete`` (whether the text so far is
in the language).

``read_golden(path)`` runs in the plugin *before* the candidate is imported, so a
candidate that rewrites the file cannot change what is replayed; it never raises: a
missing or malformed file is recorded and the test fails loudly with that message.
``replay(impl, golden)`` walks every path through the candidate's ``Constraint`` with
``golden.replay.walk_path`` (the one masks-golden walk; ``golden replay`` uses it too)
and fails with the case, the path so far, the state, the token and expected against got.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from golden.replay import StepRaised, walk_path
from harness.suite.batched import walk_constraint
from harness.suite.explain import compile_or_note, fail
from harness.suite.inputs import make_constraint
from harness.suite.tiers import decision

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "golden" / "masks_golden.json"


def read_golden(path=None) -> dict:
    """``{"path", "doc", "sha256", "error"}``: the parsed file, or the reason it is unusable."""
    path = Path(path) if path else DEFAULT_PATH
    record = {"path": str(path), "doc": None, "sha256": None, "error": None}
    try:
        data = path.read_bytes()
    except OSError as exc:
        record["error"] = f"cannot read the golden file {path}: {exc.strerror or exc}"
        return record
    record["sha256"] = hashlib.sha256(data).hexdigest()
    try:
        from golden import fileformat

        # format and version checked; the JSON Schema validation (0.7 s) is golden's own tests' job
        record["doc"] = fileformat.load(data.decode("utf-8"), "masks_golden", validate=False)
    except Exception as exc:  # noqa: BLE001 - any problem with the file is reported by the test
        record["error"] = f"the golden file {path} is unusable: {type(exc).__name__}: {exc}"
    return record


def vocabulary(doc: dict) -> tuple[list[bytes | None], int | None]:
    vocab = doc["vocab"]
    tokens = [None if t is None else bytes.fromhex(t) for t in vocab["tokens_hex"]]
    return tokens, vocab["eos_id"]


def replay(impl, golden: dict) -> int:
    """Replay every recorded path; returns the number of masks compared."""
    if golden["error"]:
        fail("the golden file is missing or unusable", error=golden["error"])
    doc = golden["doc"]
    vocab, eos_id = vocabulary(doc)
    compared = 0
    for case in doc["cases"]:
        dfa = compile_or_note(impl, case["pattern"])
        if dfa is None:  # refused a spelling the spec does not list: a note, not a verdict
            continue
        index = impl.TokenIndex(dfa, vocab, eos_id)
        for path in case["paths"]:
            compared += _replay_path(impl, case, index, path, vocab, eos_id)
    return compared


def _replay_path(impl, case: dict, index, path: dict, vocab, eos_id) -> int:
    """One path through ``golden.replay.walk_path`` (the one masks-golden walk), judged
    the catalogue's way: a difference fails; after EOS, the mask and ``is_complete()``
    are the contract's decisions (the spec is silent there); a candidate's exception
    propagates as the candidate raised it."""
    constraint = _Walked(make_constraint(impl, index), path, eos_id)
    text = b""
    try:
        for step in walk_path(constraint, path, vocab, eos_id):
            _judge_step(case, path, step, vocab, int(constraint.state))
            text = step.text
    except StepRaised as exc:
        raise exc.error from None
    if text.hex() != path["text_hex"]:
        fail("the golden path's tokens do not spell its text (a corrupt golden file)", case=case["name"],
             expected=path["text_hex"], got=text.hex())
    return len(path["allowed"])


class _Walked:
    """A candidate's constraint whose calls along ``path`` were made ahead in one round trip
    (``harness.suite.batched.walk_constraint``: the calls ``walk_path`` and ``_judge_step`` make,
    in their order, given the path's tokens only: the allowed ids and completeness stay
    here); each read takes the next answer, and past them the constraint is called one
    round trip at a time, as before."""

    __slots__ = ("_constraint", "_ahead")

    def __init__(self, constraint, path: dict, eos_id):
        self._constraint = constraint
        self._ahead = walk_constraint(constraint, path["tokens"], eos_id)  # the inputs: never the golden answers

    def mask(self):
        return self._ahead.take("mask", lambda: self._constraint.mask())

    def is_complete(self):
        return self._ahead.take("is_complete", lambda: self._constraint.is_complete())

    @property
    def state(self):
        return self._ahead.take("state", lambda: self._constraint.state)

    def advance(self, token):
        return self._ahead.take("advance", lambda: self._constraint.advance(token))


def _judge_step(case: dict, path: dict, step, vocab, state: int) -> None:
    facts = dict(case=case["name"], pattern=case["pattern"], seed=path["seed"], step=step.number, path=step.text,
                 state=state)
    want_allowed = sorted(step.allowed)
    if step.after_eos:  # after EOS: the spec says nothing may follow
        decision("mask_after_eos_empty", step.got == want_allowed,
                 f"golden case {case['name']}: mask() after EOS allows {step.got[:8]}")
    elif step.got != want_allowed:
        extra = sorted(set(step.got) - set(step.allowed))
        missing = sorted(set(step.allowed) - set(step.got))
        token = (extra or missing)[0]
        fail("a mask differs from the golden file (derivative oracle)", **facts,
             token=(token, vocab[token]), expected=token in step.allowed, got=token in step.got,
             wrongly_allowed=extra[:10], wrongly_refused=missing[:10])
    if step.after_eos:
        decision("eos_keeps_state", step.got_complete == step.complete,
                 f"golden case {case['name']}: is_complete() after EOS is {step.got_complete}")
    elif step.got_complete != step.complete:
        fail("is_complete() differs from the golden file", **facts, expected=step.complete, got=step.got_complete)
