"""The only place that knows lm-eval internals: task class, request seam, reference-agent model."""

from lm_eval_cog.lmeval import group_means, quiet, standard_errors

# Every task class of ours lives in this package, so loading any cog task gives our
# aggregations their own standard errors (closed forms instead of lm-eval's bootstrap), and our
# groups their means over the subtasks that define a metric (group_means).
standard_errors.install()
group_means.install()
# lm-eval's per-task warnings that do not apply to our tasks: once per run, or not at all.
quiet.install()
