"""Experiments: parameter sweeps with replications, run locally or on Dask.

``spec`` (experiment files, expanded into tasks keyed by a hash of the resolved scenario and
seed), ``writing`` (the experiment files commands generate), ``metrics`` (paths into a run's
summary), ``worker`` (one task, never raises), ``sweeper`` (processes, threads or Dask; skips
what is done; stops cleanly), ``store`` (the results on disk: ``runs/<id>.json`` and
``results.parquet``), ``report`` and ``axes`` (Student-t aggregates, figures and the HTML
report). See docs/sweeps.md.
"""
