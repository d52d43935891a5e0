"""``--metadata`` keys: a misspelt key of ours is refused, naming itself, with a suggestion.

lm-eval hands every task one metadata dict: the YAML's ``metadata``, ``--model_args``
(``pretrained``, ``dtype``, ...) and ``--metadata``, merged, including keys meant for
other tasks of the run. So an unknown key cannot be refused as such. What can be:

* a dict-valued key that names no paradigm or probe of this package: dict values are our
  parameter overrides (``{"wcst": {"trials": 40}}``), so ``{"wcts": {...}}`` is a typo
  that would otherwise run the default protocol without a word;
* a key within one or two letters of one of ours (``sed`` for ``seed``, ``episode``
  for ``episodes``).
"""

from __future__ import annotations

import difflib
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
