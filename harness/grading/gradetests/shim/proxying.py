"""The proxy part shared with the grader, as the student's process imports it.

``harness.grading.gradetests.suite_run`` copies ``harness/sandbox/proxying.py`` over this file in
the student's private copy of the shim (the student's process cannot import ``harness``);
inside the harness it is the wall's module itself.
"""

from harness.sandbox.proxying import ProxyBase, RemoteMethodBase, exception_class, wrap  # noqa: F401
