"""The lm-eval task of metacognition over a static probe's items (``cog_<probe>_reflect``, the
``reflect`` paradigm; :mod:`lm_eval_cog.metacognition`): an interactive task whose episode i asks
document i of the static probe's task.

:class:`~lm_eval_cog.lmeval.task.InteractiveTask` seeds episode i from (task seed, i), and
a probe seeds its document i from the same pair (``episode_seed``); but a probe's item also
depends on its index (conditions cycle by index) and, for false-belief stories, on its
neighbours. So each episode's parameters carry ``document: [task seed, i]`` and the
environment builds exactly ``probe.generate(task seed, n)[i]``: with the same ``--seed``,
``cog_<probe>_reflect`` asks the items of ``cog_<probe>_gen`` in the same order.

A YAML names this class and the ``reflect`` paradigm::

    task: cog_deduction_reflect
    class: !function lm_eval_cog.lmeval.metacognition_task.MetacognitionTask
    metadata: {version: 1.0, paradigm: reflect, preset: deduction, strategy: free, episodes: 300}
"""

from __future__ import annotations

from typing import Any

from lm_eval_cog.lmeval.task import InteractiveTask


class MetacognitionTask(InteractiveTask):
    """:class:`InteractiveTask` with one probe document per episode (see the module docstring)."""

    def episode_spec(self, doc: dict[str, Any]) -> dict[str, Any]:
        spec = super().episode_spec(doc)
        spec["overrides"] = {**spec["overrides"], "document": [spec["task_seed"], spec["index"]]}
        return spec
