"""The task YAMLs, installed as the package ``lm_eval_cog.task_configs``.

This file makes the folder a regular package, so that
``importlib.util.find_spec("lm_eval_cog.task_configs")`` resolves to it in a wheel
and in an editable install alike: that is how lm-eval's task entry points (upstream
PR #4015) turn our ``lm_eval.tasks`` entry point into a folder to index. lm-eval
indexes only the ``*.yaml`` files here.
"""
