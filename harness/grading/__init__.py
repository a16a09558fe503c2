"""Grading: one candidate (``check``), a class (``batch``), the Gradescope and PrairieLearn
bundles (``autograder``) and a student's own tests (``gradetests``), with their reports.

    check.py      one grading run of a candidate: the grader's parent side (the child runs
                  ``harness.suite``'s 16 tests behind the sandbox's wall)
    report.py     check's reports: terminal, JSON, JUnit XML, Gradescope, HTML, CSV, Markdown
    batch/        ``check --batch``: a class's folder, feedback, roster, gradebook
    autograder/   ``autograder build|run``: the bundles and their grading in the container
    gradetests/   ``grade-tests``: a student's tests against wheats and chaffs (the mutants)

Layers inside (``pyproject.toml``'s import-linter contracts): batch over autograder and
report, over gradetests, over check.
"""
