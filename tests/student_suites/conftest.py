"""The example student suites are data for tests/test_grade_tests*.py (graded behind the
wall, where ``tinyllm.infer.constrain`` is served): the project's own run never collects them."""

collect_ignore_glob = ["*/*"]
