"""``--metadata`` keys: a misspelt key of ours is refused, naming itself, with a suggestion.

lm-eval hands every task one metadata dict: the YAML's ``metadata``, ``--model_args``
(``pretrained``, ``dtype``, ...) and ``--metadata``, merged, including keys meant for
other tasks of the run. So an unknown key cannot be refused as such. What can be:

* a dict-valued key that names no paradigm or probe of this package: dict values are our
  parameter overrides (``{"wcst": {"trials": 40}}``), so ``{"wcts": {...}}`` is a typo
  that would otherwise run the default protocol without a word;
* a key within one or two letters of one of ours (``sed`` for ``seed``, ``episode``
  for ``episodes``);
* (:func:`check_misplaced_parameters`, in ``lm_eval``'s pre-flight check, where ``--metadata`` is
  known apart from ``--model_args``) a top-level key that is, or is close to, a parameter of the
  task's paradigm or probe (``{"trials": 5}``, ``{"triles": 5}``): parameters go under the
  paradigm's key (``{"wcst": {"trials": 5}}``); at the top level it would be ignored without a word.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from lm_eval_cog.paradigms import available
from lm_eval_cog.paradigms.base import unknown_name_message
from lm_eval_cog.paradigms.probe_base import REGISTRY as PROBES

#: Scalar keys our task YAMLs and run options use.
RUN_KEYS = ("episodes", "items", "seed", "paradigm", "preset", "strategy", "probe", "version")
#: How close a key must be to one of ours to count as its misspelling (difflib ratio).
CUTOFF = 0.8


def override_keys() -> list[str]:
    """Every dict-valued key of ours: each paradigm's and probe's overrides, and YAML variants."""
    return sorted({*available(), *PROBES, "oddball", "variant"})


def check_metadata_keys(meta: Mapping[str, Any], extra: Iterable[str] = ()) -> None:
    """Raise ``ValueError`` for a key of ``meta`` that can only be a misspelling of ours."""
    overrides = override_keys()
    ours = sorted({*RUN_KEYS, *overrides, *extra})
    for key, value in meta.items():
        if not isinstance(key, str) or key in ours:
            continue
        if isinstance(value, dict):
            raise ValueError(unknown_name_message("--metadata key (a dict of parameter overrides)", key, overrides))
        if difflib.get_close_matches(key, ours, n=1, cutoff=CUTOFF):
            raise ValueError(unknown_name_message("--metadata key", key, ours))


def check_misplaced_parameters(meta: Mapping[str, Any], owner: str, parameters: Iterable[str]) -> None:
    """Raise ``ValueError`` for a scalar key of ``meta`` (the user's ``--metadata`` alone: lm-eval also
    merges ``--model_args`` such as ``max_length`` into the tasks' metadata) that is, or is close to, a
    parameter of ``owner`` (the task's paradigm or probe) instead of one of our run options."""
    ours = {*RUN_KEYS, *override_keys()}
    parameters = sorted(parameters)
    for key, value in meta.items():
        if not isinstance(key, str) or key in ours or isinstance(value, dict) or not parameters:
            continue
        close = [key] if key in parameters else difflib.get_close_matches(key, parameters, n=1, cutoff=CUTOFF)
        if close:
            example = json.dumps({owner: {close[0]: value}})
            hint = "" if close[0] == key else f" (did you mean {close[0]!r}?)"
            raise ValueError(
                f"--metadata key {key!r} is not a run option but looks like a {owner} parameter{hint}: "
                f"parameters go under the {owner!r} key, e.g. --metadata '{example}'"
            )
