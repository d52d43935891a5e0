"""Interactive paradigms: pure-Python environments, metrics and reference agents.

Each paradigm is a subpackage ``lm_eval_cog.paradigms.<name>`` exposing
``PARADIGM`` (a :class:`~lm_eval_cog.paradigms.base.Paradigm`); it is found by
name, so adding a paradigm needs no edit here. Dialogue games are the same kind of
descriptor in ``lm_eval_cog.games.<name>`` and are found the same way.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from lm_eval_cog.paradigms.base import Paradigm, unknown_name_message

#: Packages whose subpackages are paradigms (each exposing ``PARADIGM``).
_HOMES = ("lm_eval_cog.paradigms", "lm_eval_cog.games")


@lru_cache(maxsize=1)
def _modules() -> dict[str, str]:
    found = {}
    for home in _HOMES:
        package = importlib.import_module(home)
        for m in pkgutil.iter_modules(package.__path__):
            if m.ispkg and not m.name.startswith("_") and m.name != "data":
                found[m.name] = f"{home}.{m.name}"
    return found


def available() -> list[str]:
    """Names of the paradigm and game subpackages shipped with the package."""
    return sorted(_modules())


def is_game(name: str) -> bool:
    """A dialogue game (``lm_eval_cog.games``): moves in its own formats, not choices to read."""
    return _modules().get(name, "").startswith("lm_eval_cog.games.")


def get_paradigm(name: str) -> Paradigm:
    """The paradigm (or game) called ``name``; unknown names get a clear error with suggestions."""
    if name not in _modules():
        raise ValueError(unknown_name_message("paradigm", name, available()))
    return importlib.import_module(_modules()[name]).PARADIGM


def make_env(spec: dict):
    """A fresh environment for an episode spec (``paradigm``, ``preset``, ``strategy``, ``overrides``)."""
    paradigm = get_paradigm(spec["paradigm"])
    params = paradigm.make_params(spec["preset"], spec["strategy"], spec.get("overrides") or {})
    return paradigm.env_cls(params)
