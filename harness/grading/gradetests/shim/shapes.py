"""The spec's tokenizer shapes, as the student's process imports them.

``harness.grading.gradetests.suite_run`` copies ``harness/sandbox/shapes.py`` over this file in the
student's private copy of the shim, so a student's suite can hand ``vocab_bytes`` the
tokenizer the spec describes (``vocab_bytes(tok)`` fixes no tokenizer interface):
``from _gradewall.shapes import SpecTokenizer``; the implementation receives an equal
``SpecTokenizer`` (the catalogue's default-tier tokenizer). Inside the harness it is the
catalogue's module itself.
"""

from harness.sandbox.shapes import AddedToken, SpecTokenizer, TiktokenLike, describe, rebuild  # noqa: F401
