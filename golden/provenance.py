"""What every generated golden file records about how it was made, and the error that stops
a build: the command that writes the files (``COMMAND``), their ``NOTICE``, the master seed
of each (``SEEDS``), the package's version (``package_version()``), and
``GoldenDisagreement``, raised when two oracles disagree on something a file would record.

Shared by the builders (``golden.build``, ``golden.sampling``, ``golden.tools_build``),
which import it and not each other: ``golden.build.render_all`` calls the tools builder,
so the tools builder cannot import ``golden.build`` back.
"""

from __future__ import annotations

SEEDS = {"masks_golden": 87, "constrain_golden": 109}
"""The master seed of each file (L8.7 and L10.9); path j of case i uses
``default_rng([seed, i, j])``."""
SEEDS["tools_golden"] = 1009  # the L10.9 tool surface (golden/tools_build.py): walk k uses default_rng([seed, k])
COMMAND = "constrain-harness golden write"
NOTICE = "GENERATED FILE, DO NOT EDIT: regenerate with `constrain-harness golden write` (see golden/README.md)"


class GoldenDisagreement(RuntimeError):
    """Two oracles disagree on something a golden file would record: a finding."""


def package_version() -> str:
    """The installed constrain-harness distribution's version (``pyproject.toml``'s), read
    from its metadata: ``golden/`` imports nothing from ``harness/`` (the test of the
    import direction), and ``tests/golden/test_golden_replay.py`` keeps it equal to
    ``harness.__version__``."""
    from importlib.metadata import version

    return version("constrain-harness")
