"""The differential run: every case asked of ours and of each peer, every disagreement
shrunk and classified, one report.

Flow: ``compare(peers, cases)`` -> for each peer and case, ``Session.evaluate`` asks
both sides (compiled grammars and maskers cached per peer) and returns the
disagreements, each classified by ``classify`` (an accepts disagreement is one
document; a mask disagreement is one class among the tokens on which the two masks
after the prefix differ, represented by its lowest token). Inputs outside the shared
subset are skipped and counted (ours refused, the peer refused, the peer has no
masks, the prefix is not viable for us). Then, per peer and class, the
``shrink_limit`` smallest disagreements are shrunk (``shrink``) to the smallest case
that still shows a disagreement *of the same class*, and the smallest of those is
the class's example.

Guarantees: the counts are of disagreements found before shrinking (one per
accepts case, one per mask case and class); shrinking only looks for a smaller
example. Bounds: ``MAX_TOKENS_CLASSIFIED`` differing tokens per mask case,
``SHRINK_BUDGET`` evaluations per shrink.

Example (outlines-core, a fixed case)::

    a|ab  doc "ab"  ours True  outlines-core False  ->  leftmost-first
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections import Counter, defaultdict
from typing import Any, Callable, Iterable

import numpy as np

from harness import regex_syntax
from harness.peers.base import Peer, PeerRefused
from harness.peers.cases import Case, show
from harness.peers.classify import (
    CLASS_HELP,
    CLASSES,
    UNEXPLAINED,
    classify_accepts,
    classify_judged,
    classify_mask,
    fullmatch_bytes,
)
from harness.peers.findings import WRONG_ANSWER, Finding, describe, from_failure, is_unsupported, refusal_finding
from harness.peers.given import JudgeCompiled, judge
from harness.peers.isolation import PeerFailed
from harness.peers.judged_masks import Answers, judge_masks
from harness.peers.ours import Ours
from harness.peers.reproduce import reproducer

MAX_TOKENS_CLASSIFIED = 16
SHRINK_BUDGET = 150
SKIP_OURS = "ours refused"
SKIP_PEER = "peer refused"
SKIP_NO_MASKS = "peer has no masks"
SKIP_NO_SCHEMAS = "peer has no schemas"
SKIP_PREFIX = "prefix not viable for us"
SKIP_FAILED = "peer failed on this input before"
SKIP_UNSUPPORTED = "peer: unsupported"
SKIP_NO_JUDGE = "ours and the judges refused"
SKIP_MASK_JUDGED = "mask: ours refused, judged after every peer answered (brute force, majority)"


@dataclasses.dataclass
class Disagreement:
    peer: str
    cls: str
    reason: str
    case: Case
    ours: bool
    theirs: bool
    token: int | None = None     # mask cases: the lowest disputed token of this class
    tokens: int = 1              # mask cases: how many disputed tokens have this class
    original_size: int | None = None  # before shrinking
    judge: str = "ours"  # who answered in our place: ours, or an independent judge outside our subset

    def size(self) -> int:
        return self.case.size()

    def to_json(self) -> dict[str, Any]:
        out = {"peer": self.peer, "class": self.cls, "reason": self.reason, "check": self.case.check,
               "ours": self.ours, "peer_answer": self.theirs, "case": self.case.to_json(),
               "size": self.size()}
        if self.token is not None:
            tok = self.case.vocab[self.token]
            out.update(token=self.token, token_text=None if tok is None else show(tok),
                       disputed_tokens=self.tokens)
        if self.original_size is not None:
            out["shrunk_from_size"] = self.original_size
        return out


class Session:
    """Compiled grammars and maskers of ours and of each peer, cached."""

    def __init__(self):
        self.ours = Ours()
        self._compiled: dict = {}
        self._maskers: dict = {}
        self._reported: set[int] = set()  # compile failures already reported (one finding each)
        self._judges: dict = {}
        self.unjudged: dict[Case, dict[str, tuple[str, bool]]] = {}  # case -> peer -> (version, answer)
        self.unsupported: dict[tuple[str, Any], str] = {}  # (peer, source) -> the peer's own words
        self.unjudged_masks: Answers = {}  # masks where ours refused the input (judged_masks)

    def compiled(self, peer: Peer, source):
        """The peer's compiled ``source``; a refusal or a failure is kept and raised again."""
        return _memo(self._compiled, (peer.name, source), lambda: peer.compile(source))

    def masker(self, peer: Peer, case: Case):
        return _memo(self._maskers, (peer.name, case.source, case.vocab, case.eos_id),
                     lambda: self.compiled(peer, case.source).masker(list(case.vocab), case.eos_id))

    def evaluate(self, peer: Peer, case: Case) -> str | Finding | list[Disagreement]:
        """A skip reason, a finding (the peer crashed, hung, ran past a limit or raised:
        ``isolation.PeerFailed``), or the (possibly empty) list of disagreements."""
        if case.source.kind == "schema" and not peer.can_schema:
            return SKIP_NO_SCHEMAS
        if case.check == "mask" and not peer.can_mask:
            return SKIP_NO_MASKS
        try:
            ours = self.compiled(self.ours, case.source)
        except PeerRefused:
            if case.origin != "given":
                return SKIP_OURS
            ours = None  # a mask question: judged once every peer answered (judged_masks)
            if case.check == "accepts":
                try:  # outside our subset: an independent oracle judges (re on text, jsonschema)
                    ours = _memo(self._judges, case.source, lambda: judge(case.source))
                except PeerRefused:
                    return self._unjudged(peer, case)
        try:
            theirs = self.compiled(peer, case.source)
        except PeerRefused as exc:
            if ours is None:  # a mask question: the input's accepts cases report the refusal
                return SKIP_PEER
            return self._refusal(peer, exc, case, "ours compiles it" if not isinstance(ours, JudgeCompiled)
                                 else f"{ours.name} compiles it (ours does not)")
        except PeerFailed as exc:
            return self._report(exc, case)
        try:
            if ours is None:
                return self._record_mask(peer, case)
            if case.check == "accepts":
                return self._accepts(peer, ours, theirs, case)
            return self._mask(peer, ours, theirs, case)
        except PeerRefused:
            return SKIP_PEER
        except PeerFailed as exc:
            return self._report(exc, case)

    def _unjudged(self, peer: Peer, case: Case) -> str:
        """No oracle can judge the input: the peers judge each other (``majority_findings``);
        here the peer's answer is only recorded."""
        try:
            answer = self.compiled(peer, case.source).accepts(case.doc)
        except (PeerRefused, PeerFailed):
            return SKIP_NO_JUDGE
        self.unjudged.setdefault(case, {})[peer.name] = (peer.version, bool(answer))
        return SKIP_NO_JUDGE

    def _record_mask(self, peer: Peer, case: Case) -> str:
        """The peer's mask on a prefix of an input ours refused, kept for ``judge_masks``."""
        mask = self.masker(peer, case).allowed(case.prefix)
        self.unjudged_masks.setdefault(case, {})[peer.name] = (peer.version, np.asarray(mask, dtype=bool))
        return SKIP_MASK_JUDGED

    def ask(self, peer: Peer, source, doc: bytes) -> bool | None:
        """The peer's acceptance of ``doc`` (None when it refuses or fails)."""
        try:
            return bool(self.compiled(peer, source).accepts(doc))
        except (PeerRefused, PeerFailed):
            return None

    def viable(self, peer_name: str, source, text: bytes) -> bool:
        """The named peer's own byte walk on ``text`` (False when it cannot say)."""
        compiled = self._compiled.get((peer_name, source))
        try:
            return compiled is not None and not isinstance(compiled, Exception) and bool(compiled.viable(text))
        except (PeerRefused, PeerFailed):
            return False

    def _refusal(self, peer: Peer, exc: PeerRefused, case: Case, valid_because: str) -> Finding | str:
        """Ours or a judge compiled the input, so it is valid (``valid_because`` says who): the
        peer's refusal is a finding ("failed on valid input", once per input) unless its own
        error calls the construct unsupported."""
        if is_unsupported(str(exc)):
            self.unsupported.setdefault((peer.name, case.source), str(exc))
            return SKIP_UNSUPPORTED
        if id(exc) in self._reported:
            return SKIP_FAILED
        self._reported.add(id(exc))
        return refusal_finding(peer.name, peer.version, case.source, str(exc), valid_because)

    def _report(self, exc: PeerFailed, case: Case) -> Finding | str:
        """The finding of a failure, once (a cached compile or masker failure is raised
        again for every case that needs it: those are skipped)."""
        if id(exc) in self._reported:
            return SKIP_FAILED
        self._reported.add(id(exc))
        witness = case.doc if case.check == "accepts" else case.prefix_bytes()
        return from_failure(exc, case.source, None if exc.op == "compile" else witness)

    def _accepts(self, peer, ours, theirs, case) -> list[Disagreement]:
        a, b = ours.accepts(case.doc), theirs.accepts(case.doc)
        if a == b:
            return []
        if isinstance(ours, JudgeCompiled):
            cls, reason = classify_judged(ours.source, case.doc, a, b, theirs, peer_name=peer.name)
            return [Disagreement(peer.name, cls, f"{ours.name} says {a}: {reason}", case, a, b, judge=ours.name)]
        cls, reason = classify_accepts(ours, theirs, case.doc, a, b, peer_name=peer.name)
        return [Disagreement(peer.name, cls, reason, case, a, b)]

    def _mask(self, peer, ours, theirs, case) -> str | list[Disagreement]:
        ours_masker = self.masker(self.ours, case)
        if case.prefix and ours_masker.state_after(case.prefix) < 0:
            return SKIP_PREFIX
        a = ours_masker.allowed(case.prefix)
        b = self.masker(peer, case).allowed(case.prefix)
        differ = np.flatnonzero(a != b)[:MAX_TOKENS_CLASSIFIED]
        by_class: dict[str, Disagreement] = {}
        prefix = case.prefix_bytes()
        only_eos = case.eos_id is not None and bool(b[case.eos_id]) and int(b.sum()) == 1
        ours_stuck = int(a.sum()) - (bool(a[case.eos_id]) if case.eos_id is not None else 0) == 0
        for t in differ.tolist():
            cls, reason = classify_mask(ours, theirs, case.vocab, prefix, t, case.eos_id, bool(a[t]), bool(b[t]),
                                        peer_only_eos=only_eos, ours_stuck=ours_stuck)
            if cls in by_class:
                by_class[cls].tokens += 1
            else:
                by_class[cls] = Disagreement(peer.name, cls, reason, case, bool(a[t]), bool(b[t]), token=t)
        return list(by_class.values())


# -- shrinking ------------------------------------------------------------------------

LARGE_VOCABULARY = 512
"""A mask case over more tokens than this first tries the vocabulary cut to the prefix's
tokens, the disputed one and EOS; single-token drops are not tried on it (each would build
an index over the whole vocabulary again)."""


def shrink(session: Session, peer: Peer, d: Disagreement, budget: int = SHRINK_BUDGET) -> Disagreement:
    """The smallest case found (greedy, first improvement, at most ``budget``
    evaluations, never the same candidate twice) that still gives a disagreement
    of class ``d.cls`` with ``peer``."""
    if d.case.check == "mask" and len(d.case.vocab) > LARGE_VOCABULARY:
        d = _cut_vocabulary(session, peer, d)
        if len(d.case.vocab) > LARGE_VOCABULARY:
            return d  # the class needs the whole vocabulary: shown as found
    best, spent, tried = d, 0, set()
    improved = True
    while improved and spent < budget:
        improved = False
        for candidate in _candidates(best.case):
            if candidate.size() >= best.size() or candidate in tried:
                continue
            tried.add(candidate)
            spent += 1
            found = session.evaluate(peer, candidate)
            same = [x for x in found if x.cls == d.cls] if isinstance(found, list) else []
            if same:
                best, improved = same[0], True
                break
            if spent >= budget:
                break
    best.original_size = d.size() if best is not d else None
    return best


def _cut_vocabulary(session: Session, peer: Peer, d: Disagreement) -> Disagreement:
    """``d`` over only the prefix's tokens, the disputed token and EOS, when the same class
    still shows there; else ``d``."""
    keep = sorted(set(d.case.prefix) | {d.token} | ({d.case.eos_id} if d.case.eos_id is not None else set()))
    found = session.evaluate(peer, _restrict(d.case, keep))
    same = [x for x in found if x.cls == d.cls] if isinstance(found, list) else []
    if same:
        same[0].original_size = d.size()
        return same[0]
    return d


def _candidates(case: Case) -> Iterable[Case]:
    """Smaller variants of ``case``: the document, vocabulary and prefix first
    (cheap to evaluate), then the pattern or schema."""
    if case.check == "accepts":
        for doc in _deletions(case.doc):
            yield dataclasses.replace(case, doc=doc)
    else:
        yield from _vocab_candidates(case)
        for i in range(len(case.prefix)):
            yield dataclasses.replace(case, prefix=case.prefix[:i] + case.prefix[i + 1:])
    yield from _source_candidates(case)


def _deletions(data: bytes) -> Iterable[bytes]:
    """``data`` with one chunk removed: every size from ``len // 2`` down to 1 at
    aligned offsets, then every unaligned chunk of 2 to 4 bytes (e.g. b"abcd" ->
    b"cd", b"ab", b"bcd", b"acd", ...). About ``n log n`` candidates."""
    n = len(data)
    for size in range(n // 2 or 1, 0, -1):
        for start in range(0, n, size):
            yield data[:start] + data[start + size:]
    for size in (2, 3, 4):
        for start in range(1, n - size + 1):
            if start % size:
                yield data[:start] + data[start + size:]


def _source_candidates(case: Case) -> Iterable[Case]:
    from harness.peers.base import Source

    if case.source.kind == "regex":
        text = case.source.text
        for unwrapped in _unwrapped_groups(text):
            yield dataclasses.replace(case, source=Source.regex(unwrapped))
        for cut in _deletions(text.encode("latin-1")):
            yield dataclasses.replace(case, source=Source.regex(cut.decode("latin-1")))
    else:
        for schema in _schema_simplifications(case.source.as_schema()):
            yield dataclasses.replace(case, source=Source.schema(schema))


def _unwrapped_groups(pattern: str) -> Iterable[str]:
    """``pattern`` with one group's opener and closer removed, inner groups first, e.g.
    ``(?:ab)c`` -> ``abc``, ``(?P<x>a)`` -> ``a`` (``harness.regex_syntax.groups``: escapes,
    classes and comments are not groups; a cut that changes the meaning is only a candidate)."""
    for opener, closer in regex_syntax.groups(pattern):
        yield pattern[:opener.start] + pattern[opener.end:closer.start] + pattern[closer.end:]


def _schema_simplifications(schema) -> Iterable[Any]:
    """Smaller schemas: a property dropped (and from required), a required name
    dropped, a bound dropped, anyOf / items / a property replaced by a simpler one."""
    if not isinstance(schema, dict):
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        for name in props:
            smaller = {k: v for k, v in props.items() if k != name}
            req = [r for r in schema.get("required", []) if r != name]
            yield {**schema, "properties": smaller, "required": req}
        for name in schema.get("required", []):
            yield {**schema, "required": [r for r in schema["required"] if r != name]}
        for name, sub in props.items():
            for simpler in _schema_simplifications(sub):
                yield {**schema, "properties": {**props, name: simpler}}
    if schema.get("required") == [] or schema.get("properties") == {}:
        yield {k: v for k, v in schema.items() if not (k in ("required", "properties") and not v)}
    for key in ("minItems", "maxItems", "additionalProperties"):
        if key in schema:
            yield {k: v for k, v in schema.items() if k != key}
    if isinstance(schema.get("anyOf"), list):
        yield from schema["anyOf"]
    if isinstance(schema.get("items"), dict):
        yield schema["items"]
        for simpler in _schema_simplifications(schema["items"]):
            yield {**schema, "items": simpler}
    if isinstance(schema.get("enum"), list) and len(schema["enum"]) > 1:
        for i in range(len(schema["enum"])):
            yield {**schema, "enum": schema["enum"][:i] + schema["enum"][i + 1:]}
    if schema.get("type") not in (None, "null"):
        yield {"type": "null"}


def _vocab_candidates(case: Case) -> Iterable[Case]:
    """Smaller vocabularies: only the prefix's tokens, the disputed candidates and
    EOS; then one token dropped at a time. Ids are renumbered."""
    keep_all = list(range(len(case.vocab)))
    used = set(case.prefix) | ({case.eos_id} if case.eos_id is not None else set())
    for drop in keep_all:
        if drop in used:
            continue
        yield _restrict(case, [t for t in keep_all if t != drop])


def _restrict(case: Case, keep: list[int]) -> Case:
    new_id = {old: new for new, old in enumerate(keep)}
    return dataclasses.replace(
        case, vocab=tuple(case.vocab[t] for t in keep),
        eos_id=None if case.eos_id is None else new_id[case.eos_id],
        prefix=tuple(new_id[t] for t in case.prefix))


# -- the run and its report -----------------------------------------------------------

@dataclasses.dataclass
class PeerResult:
    name: str
    version: str
    checks: int = 0
    agreements: int = 0
    skipped: Counter = dataclasses.field(default_factory=Counter)
    counts: Counter = dataclasses.field(default_factory=Counter)       # class -> disagreements
    examples: dict[str, Disagreement] = dataclasses.field(default_factory=dict)
    shrunk_examples: dict[str, list[Disagreement]] = dataclasses.field(default_factory=dict)
    shrunk: int = 0
    findings: list[Finding] = dataclasses.field(default_factory=list)  # crashes, hangs, limits, ...
    api: str = ""  # the adapter's one line on the engine's API it used
    unsupported: list[tuple[Any, str]] = dataclasses.field(default_factory=list)  # (source, the peer's words)

    def all_findings(self) -> list[Finding]:
        """The failures, then each distinct shrunk unexplained disagreement as a wrong answer."""
        shown = self.examples.get(UNEXPLAINED)
        wrong = ([shown] if shown is not None else []) + _distinct(self.shrunk_examples.get(UNEXPLAINED, []), shown)
        return self.findings + [wrong_answer(d, self.version) for d in wrong]

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "api": self.api, "checks": self.checks, "agreements": self.agreements,
                "findings": [{**f.to_json(), "reproducer": reproducer(f)} for f in self.all_findings()],
                "unsupported": [{"kind": src.kind, "input": src.text, "peer_says": why}
                                for src, why in self.unsupported],
                "skipped": dict(sorted(self.skipped.items())),
                "disagreements": {c: self.counts.get(c, 0) for c in CLASSES},
                "shrunk": self.shrunk,
                "examples": {c: d.to_json() for c, d in sorted(self.examples.items(),
                                                               key=lambda kv: CLASSES.index(kv[0]))},
                "shrunk_examples": {c: [d.to_json() for d in ds] for c, ds in sorted(
                    self.shrunk_examples.items(), key=lambda kv: CLASSES.index(kv[0]))}}


def compare(peers: list[Peer], cases: list[Case], *, shrink_limit: int = 3,
            progress: Callable[[str], None] = lambda msg: None) -> list[PeerResult]:
    session = Session()
    results = []
    for peer in peers:
        started = time.perf_counter()
        result = PeerResult(peer.name, peer.version, api=getattr(peer, "api", ""))
        found: dict[str, list[Disagreement]] = defaultdict(list)
        for i, case in enumerate(cases):
            outcome = session.evaluate(peer, case)
            if isinstance(outcome, str):
                result.skipped[outcome] += 1
                continue
            if isinstance(outcome, Finding):
                result.findings.append(outcome)
                progress(f"  {peer.name}: finding: {outcome.kind}: {outcome.engine[:160]}")
                continue
            result.checks += 1
            result.agreements += not outcome
            for d in outcome:
                result.counts[d.cls] += 1
                found[d.cls].append(d)
            if (i + 1) % 200 == 0:
                progress(f"  {peer.name}: {i + 1}/{len(cases)} cases")
        result.unsupported = [(src, why) for (name, src), why in session.unsupported.items() if name == peer.name]
        for cls, ds in found.items():  # shrinking's own candidates are not inputs: their refusals are not listed
            ds.sort(key=lambda d: (d.size(), d.case.to_json().__repr__()))
            shrunk = [shrink(session, peer, d) for d in _to_shrink(ds, shrink_limit, cls)]
            result.shrunk += len(shrunk)
            result.shrunk_examples[cls] = shrunk
            result.examples[cls] = min(shrunk, key=lambda d: (d.size(), repr(d.case.to_json())))
        summary = ", ".join(f"{c} {n}" for c, n in sorted(result.counts.items())) or "no disagreements"
        progress(f"  {peer.name}: {result.checks} checks, {summary} ({time.perf_counter() - started:.1f} s)")
        results.append(result)
    by_name = {p.name: p for p in peers}
    for f in (majority_findings(session.unjudged, lambda name, source, doc: session.ask(by_name[name], source, doc))
              + judge_masks(session.unjudged_masks, session.viable)):
        next(r for r in results if r.name == f.peer).findings.append(f)
    return results


def majority_findings(unjudged: dict, ask: Callable[[str, Any, bytes], bool | None] | None = None) -> list[Finding]:
    """Where no oracle can judge an input, the peers judge each other: on a document where
    three or more peers answered and all but one agree, the one is a finding (a wrong answer
    against the majority); the first such document per peer and input. For a schema's JSON
    instance, with ``ask(peer, source, doc)`` (the peer's answer again, None when it cannot
    say), the instance is shrunk structurally (``shrink_json``) while the same peer stays
    alone against the same majority."""
    out, seen = [], set()
    for case, answers in unjudged.items():
        if len(answers) < 3:
            continue
        votes = Counter(answer for _version, answer in answers.values())
        if len(votes) != 2 or min(votes.values()) != 1:
            continue
        majority = votes.most_common(1)[0][0]
        for name, (version, answer) in answers.items():
            if answer != majority and (name, case.source) not in seen:
                seen.add((name, case.source))
                doc, detail = case.doc, "no oracle judges this input: the peers did"
                if ask is not None and case.source.kind == "schema":
                    doc, detail = _shrunk_instance(case, list(answers), name, majority, ask, detail)
                out.append(Finding(name, version, WRONG_ANSWER, case.source, "accepts",
                                   "accepts" if answer else "rejects", doc,
                                   {"majority of peers": majority}, detail))
    return out


def _shrunk_instance(case: Case, names: list[str], lone: str, majority: bool, ask, detail: str):
    """(the document shrunk structurally, the detail saying so) for a disagreement of peers on
    a JSON instance; the document as it was when it is not JSON or no step keeps the split.
    The candidate is written as the document was: pretty (indent 2) if it holds a newline,
    else compact."""
    from harness.peers.shrink_json import shrink_instance

    try:
        value = json.loads(case.doc.decode("utf-8"))
    except (ValueError, RecursionError):
        return case.doc, detail
    pretty = b"\n" in case.doc

    def write(v) -> bytes:
        text = json.dumps(v, indent=2, ensure_ascii=False) if pretty else json.dumps(
            v, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8")

    def keeps(v) -> bool:
        doc = write(v)
        return all(ask(n, case.source, doc) == (majority if n != lone else not majority) for n in names)

    smallest, spent = shrink_instance(value, keeps)
    if smallest is value:
        return case.doc, detail
    doc = write(smallest)
    return doc, f"{detail}; shrunk structurally from {len(case.doc)} to {len(doc)} bytes ({spent} evaluations)"


MAX_SOURCES_SHOWN = 20
"""Unexplained disagreements: the smallest of each given input is shrunk, up to this many inputs."""


def _to_shrink(ds: list[Disagreement], limit: int, cls: str) -> list[Disagreement]:
    """The ``limit`` smallest; for unexplained disagreements of given inputs, also the
    smallest of each input (up to ``MAX_SOURCES_SHOWN``), so every input handed in that shows
    a finding gets its reproducer."""
    chosen = ds[:limit]
    if cls == UNEXPLAINED:
        sources = {d.case.source for d in chosen}
        for d in ds:
            if d.case.origin == "given" and d.case.source not in sources and len(sources) < MAX_SOURCES_SHOWN:
                sources.add(d.case.source)
                chosen.append(d)
    return chosen


def report_json(results: list[PeerResult], missing: dict[str, str], meta: dict[str, Any]) -> dict[str, Any]:
    return {"format": "constrain-harness compare report", "version": 1, **meta,
            "classes": list(CLASSES),
            "unavailable": dict(sorted(missing.items())),
            "peers": {r.name: r.to_json() for r in results}}


def report_markdown(results: list[PeerResult], missing: dict[str, str], meta: dict[str, Any]) -> str:
    lines = ["# Peer comparison", "",
             f"Cases: {meta.get('cases')} ({meta.get('fixed')} fixed, {meta.get('generated')} generated, "
             f"{meta.get('given', 0)} from the given inputs, seed {meta.get('seed')}). Counts are disagreements "
             "before shrinking; each example is the "
             "smallest shrunk case of its class.", ""]
    header = "| peer | version | checks | agree | " + " | ".join(CLASSES) + " | skipped |"
    lines += [header, "|" + "---|" * (header.count("|") - 1)]
    for r in results:
        skipped = ", ".join(f"{k}: {v}" for k, v in sorted(r.skipped.items())) or "-"
        cells = " | ".join(str(r.counts.get(c, 0)) for c in CLASSES)
        lines.append(f"| {r.name} | {r.version} | {r.checks} | {r.agreements} | {cells} | {skipped} |")
    for name, reason in sorted(missing.items()):
        lines.append(f"| {name} | unavailable: {reason} |" + " |" * (len(CLASSES) + 3))
    findings = [f for r in results for f in r.all_findings()]
    if findings:
        lines += ["", f"## Findings: {len(findings)}, each with its reproducer", "",
                  "The engine crashed, hung, ran past a limit, raised, refused an input that is valid "
                  "without calling it unsupported, or gave an answer the oracles contradict and no known "
                  "design difference explains (the smallest shrunk examples).", ""]
        for f in findings:
            lines += [f"- {describe(f)}", "", "```", reproducer(f), "```", ""]
    unsupported = [(r.name, r.version, src, why) for r in results for src, why in r.unsupported]
    if unsupported:
        lines += ["", f"## Refused as unsupported, in the engine's own words: {len(unsupported)}", ""]
        lines += [f"- {name} {version}: {src.kind} `{src.text[:200]}`: {' '.join(why.split())[:300]}"
                  for name, version, src, why in unsupported]
    lines += ["", "Classes:", ""] + [f"- `{c}`: {CLASS_HELP[c]}" for c in CLASSES]
    for r in results:
        if not r.examples:
            continue
        lines += ["", f"## {r.name}: smallest example of each class", ""]
        for cls in CLASSES:
            d = r.examples.get(cls)
            if d is not None:
                lines.append(f"- **{cls}** ({r.counts[cls]}): {_describe(d)}")
        others = _distinct(r.shrunk_examples.get(UNEXPLAINED, []), r.examples.get(UNEXPLAINED))
        if others:
            lines += ["", "Other unexplained disagreements (shrunk): findings to look at.", ""]
            lines += [f"- {_describe(d)}" for d in others]
    return "\n".join(lines) + "\n"


def wrong_answer(d: Disagreement, version: str) -> Finding:
    """An unexplained disagreement as a finding: what the oracles say and what the engine did."""
    c = d.case
    if c.check == "accepts":
        witness, op = c.doc, "accepts"
        engine = "accepts" if d.theirs else "rejects"
    else:
        tok = c.vocab[d.token]
        witness, op = c.prefix_bytes() + (tok or b""), "mask"
        engine = (f"{'allows' if d.theirs else 'refuses'} token {d.token} ({tok!r}) after {c.prefix_bytes()!r} "
                  f"over a vocabulary of {len(c.vocab)} (EOS {c.eos_id})")
    if c.check == "accepts":
        return Finding(d.peer, version, WRONG_ANSWER, c.source, op, engine, witness, _oracles(d), d.reason)
    from harness.peers.vocabularies import vocabulary_name
    return Finding(d.peer, version, WRONG_ANSWER, c.source, op, engine, witness, _oracles(d), d.reason,
                   prefix=c.prefix_bytes(), token=None if d.token == c.eos_id else c.vocab[d.token] or b"",
                   token_id=d.token, vocabulary=vocabulary_name(c.vocab, c.eos_id))


def _oracles(d: Disagreement) -> dict[str, Any]:
    """What the independent oracles say of the disagreement's document (accepts cases)."""
    c = d.case
    if c.check != "accepts":
        return {"ours": d.ours}
    if d.judge != "ours":
        return {d.judge: d.ours}
    if c.source.kind == "regex":
        return {"ours": d.ours, "re.fullmatch on bytes": fullmatch_bytes(c.source.text, c.doc)}
    try:
        return {"ours": d.ours, "jsonschema": judge(c.source).accepts(c.doc)}
    except PeerRefused:  # pragma: no cover - ours compiles only valid schemas
        return {"ours": d.ours}


def _distinct(ds: list[Disagreement], shown) -> list[Disagreement]:
    seen = {repr(shown.case.to_json())} if shown is not None else set()
    out = []
    for d in ds:
        key = repr(d.case.to_json())
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _describe(d: Disagreement) -> str:
    c = d.case
    src = f"`{c.source.text}`" if c.source.kind == "regex" else f"schema `{c.source.text}`"
    if c.check == "accepts":
        what = f"document `{show(c.doc)}`: ours {_yes(d.ours)}, {d.peer} {_yes(d.theirs)}"
    else:
        vocab = ", ".join("None" if t is None else repr(show(t)) for t in c.vocab)
        tok = c.vocab[d.token]
        what = (f"vocab [{vocab}] (EOS {c.eos_id}), after `{show(c.prefix_bytes())}` token {d.token} "
                f"(`{'None' if tok is None else show(tok)}`): ours {_allows(d.ours)}, {d.peer} {_allows(d.theirs)}")
    return f"{src}, {what}. {d.reason}."


def _yes(flag: bool) -> str:
    return "accepts" if flag else "rejects"


def _allows(flag: bool) -> str:
    return "allows" if flag else "refuses"


def dumps(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=False, ensure_ascii=False, allow_nan=False) + "\n"


def _memo(cache: dict, key, build):
    """``cache[key]``, built once; a PeerRefused or PeerFailed is cached too and raised again
    each time (a grammar that crashed its peer is not compiled again for every case)."""
    if key not in cache:
        try:
            cache[key] = build()
        except (PeerRefused, PeerFailed) as exc:
            cache[key] = exc
    value = cache[key]
    if isinstance(value, (PeerRefused, PeerFailed)):
        raise value
    return value
