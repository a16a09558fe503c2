"""A generated mutant's copy carries the reference's bytecode (``apply.compiled_reference``): the
confined candidate reads it instead of compiling the reference anew, and never for the mutated
file, whose bytecode is removed (the mutant's text is what runs)."""

from __future__ import annotations

import importlib
import importlib.util
import marshal
import struct

import pytest

from harness.mutants import generation, runner
from harness.mutants.apply import REFERENCE_DIR, load, materialize_generated

FAILS_AT_IMPORT = "\nraise ImportError('the mutant text of sampling.py ran')\n"


def _mutant(source: str) -> generation.GeneratedMutant:
    site = generation.enumerate_sites(modules=["sampling"])[0]
    return generation.GeneratedMutant(site, source, "(hand-made)", "(hand-made)")


def _sampling() -> str:
    return (REFERENCE_DIR / "sampling.py").read_text(encoding="utf-8")


def test_every_module_but_the_mutated_one_has_valid_bytecode(tmp_path):
    package = materialize_generated(_mutant(_sampling() + FAILS_AT_IMPORT), tmp_path)
    for source in sorted(package.glob("*.py")):
        pyc = importlib.util.cache_from_source(str(source))
        if source.name == "sampling.py":
            assert not (package / "__pycache__" / pyc.rsplit("/", 1)[1]).exists()
            continue
        header = open(pyc, "rb").read(16)   # magic, flags, source mtime, source size (PEP 552)
        flags, mtime, size = struct.unpack("<III", header[4:16])
        assert header[:4] == importlib.util.MAGIC_NUMBER and flags == 0, source.name
        assert (mtime, size) == (int(source.stat().st_mtime) & 0xFFFFFFFF, source.stat().st_size), source.name
    module = load(package)
    with pytest.raises(ImportError, match="the mutant text of sampling.py ran"):
        importlib.import_module(f"{module.__name__}.sampling")


@pytest.mark.e2e
def test_the_confined_candidate_reads_the_copy_s_bytecode_and_the_mutant_s_text(tmp_path):
    # the mutated file: its text runs (no bytecode of the reference shadows it)
    package = materialize_generated(_mutant(_sampling() + FAILS_AT_IMPORT), tmp_path / "a")
    found, problem = runner.run_catalogue_against(package, ("test_hand_example",), False, 30.0)
    assert found == {} and "the mutant text of sampling.py ran" in (problem or ""), (found, problem)
    # an unmutated file: its bytecode is read (a forged one, valid for the source, is what runs)
    package = materialize_generated(_mutant(_sampling()), tmp_path / "b")
    source = package / "errors.py"
    forged = compile("raise ImportError('the bytecode of errors.py ran')\n", str(source), "exec")
    stat = source.stat()
    pyc = importlib.util.cache_from_source(str(source))
    with open(pyc, "wb") as out:
        out.write(importlib.util.MAGIC_NUMBER + struct.pack("<III", 0, int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size))
        out.write(marshal.dumps(forged))
    found, problem = runner.run_catalogue_against(package, ("test_hand_example",), False, 30.0)
    assert found == {} and "the bytecode of errors.py ran" in (problem or ""), (found, problem)
