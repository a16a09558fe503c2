"""Differential testing at depth: three opinions (the reference, the derivative oracle,
Python's ``re``/``json``) over whole spaces of inputs.

    sweep/        ``sweep``: every pattern and schema up to a size
    corpus/       ``corpus``: a collection of real-world schemas (MaskBench's records)
"""
