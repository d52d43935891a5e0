"""Reports from lm-eval output folders: one model's report, cross-model comparison, leaderboards.

Everything here reads only what lm-eval writes (``results_*.json`` and ``samples_*.jsonl``),
so it works on runs made anywhere, by any backend and any supported lm-eval version.
The command line is ``lm-eval-cog`` (:mod:`lm_eval_cog.reports.cli`).
"""
