"""Where the harness's own files are: the checkout (or site-packages) folder that holds its
packages, and the packages every grading verb verifies and restores after a run
(``harness.sandbox.guard``, ``harness.sandbox.files.Manifest``).

At the bottom of the harness's layers (``harness/__init__.py``): it imports nothing of the
harness, so the sandbox can ask it without importing ``harness.grading.check``.

Example::

    >>> [root.name for root in protected_roots()][:2]
    ['facts', 'harness']
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # holds facts/, harness/, oracles/, strategies/, golden/
PROTECTED_PACKAGES = ("facts", "harness", "oracles", "strategies", "golden")


def inside_harness(path: Path) -> bool:
    """Return True if and only if ``path`` (resolved, links followed) is the folder that
    holds the harness's packages or lies inside it: a checkout's ``tests/`` or ``docs/``, a
    class folder or report a TA left there. A class's data never belongs there (the
    harness's packages are what every candidate's sandbox reads)."""
    resolved = Path(path).resolve()
    return resolved == PACKAGE_ROOT or PACKAGE_ROOT in resolved.parents


def protected_roots() -> list[Path]:
    """The harness's files: the installed packages (the golden files are in ``golden``)."""
    return [PACKAGE_ROOT / name for name in PROTECTED_PACKAGES if (PACKAGE_ROOT / name).exists()]
