"""Interactive paradigms: pure-Python environments, metrics and reference agents.

Each paradigm is a subpackage ``lm_eval_cog.paradigms.<name>`` exposing
``PARADIGM`` (a :class:`~lm_eval_cog.paradigms.base.Paradigm`); it is found by
name, so adding a paradigm needs no edit here.
"""

from __future__ import annotations

import importlib
import pkgutil

from lm_eval_cog.paradigms.base import Paradigm, unknown_name_message


def available() -> list[str]:
    """Names of the paradigm subpackages shipped with the package."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)


def get_paradigm(name: str) -> Paradigm:
    """The paradigm called ``name``; unknown names get a clear error with suggestions."""
    if name not in available():
        raise ValueError(unknown_name_message("paradigm", name, available()))
    return importlib.import_module(f"{__name__}.{name}").PARADIGM


def make_env(spec: dict):
    """A fresh environment for an episode spec (``paradigm``, ``preset``, ``strategy``, ``overrides``)."""
    paradigm = get_paradigm(spec["paradigm"])
    params = paradigm.make_params(spec["preset"], spec["strategy"], spec.get("overrides") or {})
    return paradigm.env_cls(params)
