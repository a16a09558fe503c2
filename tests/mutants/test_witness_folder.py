"""The witness's materialized mutants, and the compiled copy of the reference every generated
mutant's copy is made from (``apply.compiled_reference``), live in a folder of the process's own,
removed when that process exits; a forked child that exits normally leaves its parent's folder
alone."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.helpers import ROOT

pytestmark = pytest.mark.e2e

WITNESS = """
import os, sys
from harness.mutants import witness
folder = witness._folder()
witness._mutant("s01")
pid = os.fork()
if pid == 0:
    sys.exit(0)                      # a normal exit: atexit runs in the child too
os.waitpid(pid, 0)
print(folder, os.path.isdir(os.path.join(folder, "mutant_s01")), flush=True)
"""

COMPILED = """
import os, sys
from harness.mutants import apply
folder = apply.compiled_reference().parent
pid = os.fork()
if pid == 0:
    sys.exit(0)                      # a normal exit: atexit runs in the child too
os.waitpid(pid, 0)
print(folder, os.path.isfile(os.path.join(folder, "automaton", "__init__.py")), flush=True)
"""


@pytest.mark.parametrize("program", [WITNESS, COMPILED], ids=["witness", "compiled reference"])
def test_the_folder_outlives_a_forked_child_and_goes_with_its_maker(program):
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    folder, present_after_child = done.stdout.split()
    assert present_after_child == "True"
    assert not Path(folder).exists()
