"""Grading at course scale: a Gradescope autograder bundle, and the results formats of
Gradescope and PrairieLearn.

One module per concern:

- ``locate``: find the student's ``constrain`` module in an upload (the spec's layout
  ``python/tinyllm/infer/constrain.py``, the top, or anywhere unique); syntax pre-check;
- ``grading``: grade one module by running ``constrain-harness check`` as a black box
  (its own process, its own confinement) and reading its JSON report -> ``Grade``;
- ``gradescope`` (+ ``gradescope_results.schema.json``): ``Grade`` -> ``results.json``,
  validated; ``prairielearn``: ``Grade`` -> PrairieLearn's external-grader results;
- ``config``: the settings a bundle carries; ``bundle``: ``autograder build``;
- ``runner``: what ``run_autograder`` does in the container (always leaves a file).

``harness.grading.batch`` (``check --batch``) grades a whole folder with the same ``grading``.

Example::

    constrain-harness autograder build --out autograder.zip --points 50 --hints pitfall
"""
