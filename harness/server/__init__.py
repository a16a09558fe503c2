"""A live server: the reference server and the conformance of any server.

    reference/    ``serve-reference``: an OpenAI-compatible server over the reference
                  (the ``/v1/chat/completions`` tool calling of spec 002), with hostile variants
    conform/      ``conform``: the conformance cases run against a live server's tool calling
"""
