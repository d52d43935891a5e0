"""Dialogue games (clembench's, as Momentè et al. 2025 ran them): pure-Python game masters, one
subpackage per game exposing ``PARADIGM``, found by name like the paradigms
(:func:`lm_eval_cog.paradigms.get_paradigm`). See :mod:`lm_eval_cog.games.base`."""
