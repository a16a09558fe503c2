"""Fanning work out: one executor for every job that fans out, local or on Dask.

    executor.py   ``Task(key, "module:function", payload)`` -> a JSON record; ``run(tasks,
                  jobs=, scheduler=)``: threads or a forkserver pool here, Dask given a scheduler
    dask_local.py a local Dask scheduler and workers as processes (tests, benchmarks)
    results.py    a fan-out's results file (``--resume``) and its progress line
"""
