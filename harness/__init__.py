"""constrain-harness: differential testing and oracles for constrained decoding.

The pipeline under test, stage by stage (one module per stage in ``oracles/automaton``):

    pattern text --parser--> tree of byte sets --nfa--> Thompson NFA
      --determinize--> byte DFA over byte classes --minimize--> live, minimal,
      breadth-first numbered (canonical) DFA --index--> token masks over a byte trie
      --constraint/sampling--> constrained generation

A JSON schema joins at the front: ``json_schema_to_regex`` turns the subset into a
pattern. The harness feeds the same inputs to the Brzozowski-derivative oracle
(``oracles.derivatives``) and to Python's ``re``/``regex``/``json``/``jsonschema``
(``oracles.stdlib``), and compares tables, masks and verdicts.

Entry point: the ``constrain-harness`` command (``harness.cli:program``).

The layout and its import rule. One package per product, the command on top, the sandbox
and the report model underneath. Each line imports only the lines under it (``a | b``: packages
of one line, which do not import each other); the modules of one package import each other
without circles, and a product with subpackages has its own layers (below).
``tests/project/test_layout.py`` checks both with import-linter's contracts (``[tool.importlinter]``
in ``pyproject.toml``, the source of truth):

    cli                        the command: one parser, one verb each
    commands                   the verbs, thin: arguments, exit codes, reports written
    bench                      benchmarks and stress probes (time whole verbs and peers)
    differential               sweep (every pattern and schema up to a size) and corpus
                               (real schema collections): three opinions each
    grading | golden_replay | peers | server
                               the products: grading (check, check --batch, the autograder
                               bundles, grade-tests, their reports); a candidate replayed
                               against the golden files; the peer engines compared; a live
                               server (the reference server, and conform against any server)
    mutants                    mutation testing: the mutant catalogue (grade-tests' chaffs),
                               generated mutants, their runner and mutation-score reports
    suite                      the conformance catalogue: the spec's 16 tests, run in the
                               grader child, and their inputs, hints and diagnosis
    run                        the chain of processes of one catalogue run: the one typed run
                               value (``CatalogueRun``) every hop receives whole
    sandbox                    everything that crosses into the candidate's process: loading
                               it, the channel, the proxy, the shapes, the confinement, the guard
    fanout                     one executor for every fan-out (local or Dask), and a fan-out's
                               results file (``--resume``)
    report                     the report model and its formats
    argtypes | contract | paths | policy
    exitcodes | files_in | intake | regex_syntax | seconds
                               the bottom: values, the spec's contract, the grading policy,
                               readers, a submission's intake, the scanner of pattern syntax,
                               the one check of a time limit in seconds
    environment                every CONSTRAIN_HARNESS_* variable, its meaning and its readers

Inside the products: ``grading``: batch over autograder and report, over gradetests, over
check, over wall_calibration; ``server``: conform over
reference; ``differential``: corpus over sweep; ``fanout``: results over executor over
dask_local.

Under ``harness``: ``golden``, then ``strategies``, then ``facts`` and ``oracles`` (the
oracles import nothing of the harness, nor the facts). Exceptions, listed in the
contract with their reason: the benchmarks and stress probes that run a whole verb
through the command line (``bench.batch``, ``bench.stress_probes``, ``bench.stress_conform``).
"""

__version__ = "0.1.0"
