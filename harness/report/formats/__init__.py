"""One module per report format; each defines ``FORMAT`` (a ``harness.report.model.Format``).

A new format is one module here plus one line in ``harness.report.registry.FORMATS``;
the option (``--name F``) then appears on every verb whose report kinds it applies to.
"""
