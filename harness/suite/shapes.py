"""The spec's tokenizer shapes: moved to ``harness.sandbox.shapes`` (what crosses the wall is
the sandbox's); this name stays for the catalogue's tests and older imports."""

from harness.sandbox.shapes import AddedToken, SpecTokenizer, TiktokenLike, describe, rebuild

__all__ = ["AddedToken", "SpecTokenizer", "TiktokenLike", "describe", "rebuild"]
