"""The shortcut audit's view of lm-eval: multiple-choice tasks as items, and the choices-only baseline.

Any task lm-eval can build (ours, its own, a local YAML through ``include_path``) is read through
lm-eval's own task API: ``eval_docs``, ``doc_to_text`` (what the model is shown), ``doc_to_choice``
and ``doc_to_target``. The choices-only baseline asks a real lm-eval model for the log-likelihood of
each choice with the question removed (Balepur et al., ACL 2024): above chance, the options alone
give the key away.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_eval_cog._autoload import task_dir
from lm_eval_cog.audit.items import AuditInputError, AuditItem, make_item
from lm_eval_cog.audit.strategies import credit
from lm_eval_cog.lmeval.preflight import TASK_LIST_HINT, suggestion


def _leaves(tree: dict[Any, Any], out: dict[str, Any]) -> None:
    """The tasks of lm-eval's (possibly nested, for groups) task dictionary, by name."""
    for key, value in tree.items():
        if isinstance(value, dict):
            _leaves(value, out)
        elif value is not None:
            out[str(getattr(value, "task_name", None) or key)] = value


def load_tasks(names: Sequence[str], include_paths: Sequence[str | Path] = (),
               metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every task named (groups expanded to their tasks), built by lm-eval's TaskManager."""
    from lm_eval.tasks import TaskManager, get_task_dict

    paths = [str(task_dir()), *map(str, include_paths)]
    # Our folder and the user's first (fast); lm-eval's ~10,000 own tasks only when a name needs them.
    manager = TaskManager(include_path=paths, include_defaults=False, metadata=metadata or None)
    missing = [name for name in names if name not in manager.all_tasks]
    # A cog_* name that is not ours is a typo (no other folder names one): say so now, without
    # indexing lm-eval's ~14,000 tasks (about 20 s) first.
    if missing and (include_paths or not all(name.startswith("cog_") for name in missing)):
        manager = TaskManager(include_path=paths, metadata=metadata or None)
    known = set(manager.all_tasks)
    for name in names:
        if name not in known:
            raise AuditInputError(f"unknown task {name!r}.{suggestion(name, known)} ({TASK_LIST_HINT})")
    tasks: dict[str, Any] = {}
    try:
        _leaves(get_task_dict(list(names), manager), tasks)
    except Exception as error:  # a dataset that cannot be loaded, a broken YAML: say which and why
        raise AuditInputError(f"could not build {', '.join(names)}: {type(error).__name__}: {error}") from error
    for name, task in tasks.items():
        output_type = getattr(task, "OUTPUT_TYPE", None) or getattr(getattr(task, "config", None), "output_type", None)
        if output_type != "multiple_choice":
            raise AuditInputError(
                f"task {name!r} is not a multiple-choice task (output_type {output_type!r}): the audit needs "
                "options to choose among; audit its multiple-choice form (e.g. cog_<probe>_mc)"
            )
    return tasks


def _source(doc: dict[str, Any]) -> str:
    """The document's own condition (empty for a task without conditions)."""
    return str(doc["condition"]) if "condition" in doc else ""


def _condition(doc: dict[str, Any]) -> str:
    """Our probes' audit cell; ``all`` for a task without conditions."""
    if "condition" not in doc:
        return "all"
    if "probe" in doc:
        from lm_eval_cog.probes.core import REGISTRY, get_probe

        if doc["probe"] in REGISTRY:
            return get_probe(doc["probe"]).audit_cell(str(doc["condition"]))
    return str(doc["condition"])


@dataclass
class Skipped:
    """The documents of one task the audit cannot use: how many of how many, and the first of them."""

    count: int
    total: int
    first: int
    reason: str

    def note(self, name: str) -> str:
        return (f"task {name!r}: {self.count} of {self.total} documents skipped, without a usable key "
                f"(first: document {self.first}, {self.reason})")


def _gold(choices: Sequence[str], target: Any) -> int | str:
    """The key's index among ``choices``, or why there is none (lm-eval reads the target as its
    ``process_results`` does: a string is a choice's text, an integer a choice's index)."""
    if len(choices) < 2:
        return f"{len(choices)} choice(s): a blind strategy needs at least 2"
    if isinstance(target, list):  # several right answers: the first (lm-eval's acc counts any)
        if not target:
            return "an empty list of targets"
        target = target[0]
    if isinstance(target, str):
        return choices.index(target) if target in choices else f"target {target!r} is not one of its {len(choices)} choices"
    if isinstance(target, bool) or not isinstance(target, numbers.Integral):  # numpy integers are Integral
        return f"target {target!r} is neither a choice nor a choice index"
    if not 0 <= target < len(choices):
        unlabelled = " (an unlabelled split?)" if target < 0 else ""
        return f"target {target} is not a choice index 0..{len(choices) - 1}{unlabelled}"
    return int(target)


def task_items(name: str, task: Any, limit: int | None = None) -> tuple[list[AuditItem], Skipped | None]:
    """The task's documents as audit items, as lm-eval shows them (zero-shot prompt), and the
    documents left out because they have no usable key (a target that is not among the choices,
    -1 for an unlabelled split, fewer than 2 choices, a document lm-eval cannot render).

    Raises :class:`AuditInputError` (naming the task and the first document) when none is usable.
    """
    docs = list(task.eval_docs)
    if limit is not None:
        docs = docs[:limit]
    if not docs:
        raise AuditInputError(f"task {name!r} has no documents to audit")
    items: list[AuditItem] = []
    skipped: Skipped | None = None
    for index, doc in enumerate(docs):
        try:
            choices = [str(c) for c in task.doc_to_choice(doc)]
            gold = _gold(choices, task.doc_to_target(doc))
            if not isinstance(gold, str):
                items.append(make_item(str(task.doc_to_text(doc)), choices, gold, _condition(doc), _source(doc)))
                continue
            reason = gold
        except Exception as error:  # a document lm-eval cannot render: skipped like one without a key
            reason = f"{type(error).__name__}: {error}"
        if skipped is None:
            skipped = Skipped(0, len(docs), index, " ".join(reason.split()))
        skipped.count += 1
    if not items and skipped is not None:
        raise AuditInputError(
            f"task {name!r}: none of its {len(docs)} documents can be audited "
            f"(document {skipped.first}: {skipped.reason})"
        )
    return items, skipped


def choices_only_context(item: AuditItem) -> str:
    """The prompt of the choices-only baseline: the options as the item lists them, no question."""
    if item.labels and item.labels != item.options:
        lines = [f"{label}. {text}" for label, text in zip(item.labels, item.options)]
        return "\n".join(lines) + "\nAnswer:"
    return f"Options: {', '.join(item.options)}.\nAnswer:"


def load_model(model: str, model_args: str, batch_size: int | str = 1, device: str | None = None) -> Any:
    """A real lm-eval model, built once for every task of an audit."""
    from lm_eval.api.registry import get_model

    return get_model(model).create_from_arg_string(
        model_args, {"batch_size": batch_size, **({"device": device} if device else {})}
    )


def choices_only_credits(model: str | Any, model_args: str, items: Sequence[AuditItem], batch_size: int | str = 1,
                         device: str | None = None, delimiter: str = " ") -> list[float]:
    """Per item, the credit of a real lm-eval model that sees the options but not the question
    (``model``: a registered model name, built from ``model_args``, or a model :func:`load_model` built)."""
    from lm_eval.api.instance import Instance

    lm = load_model(model, model_args, batch_size, device) if isinstance(model, str) else model
    requests, owners = [], []
    for i, item in enumerate(items):
        context = choices_only_context(item)
        targets = item.labels if item.labels and item.labels != item.options else item.options
        for k, choice in enumerate(targets):
            requests.append(Instance(request_type="loglikelihood", doc={}, arguments=(context, delimiter + choice),
                                     idx=k, metadata=("audit", i, 1)))
            owners.append(i)
    results = lm.loglikelihood(requests)
    scores: list[list[float]] = [[] for _ in items]
    for i, result in zip(owners, results):
        scores[i].append(float(result[0] if isinstance(result, tuple) else result))
    return [credit(s, item.gold) for s, item in zip(scores, items)]
