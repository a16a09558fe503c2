"""``grade-tests``: a student's own test suite graded against correct implementations
(wheats) and the mutant catalogue's wrong ones (chaffs); ``grade`` runs it, ``reports``
writes it, ``shim`` is the student's side of the wall, ``wheats`` the correct ones
(package data). See docs/commands.md, "grade-tests"."""
