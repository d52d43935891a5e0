"""lm-eval-cog: cognitive-psychology paradigms for EleutherAI's lm-evaluation-harness.

Kept import-light on purpose: the start-up hook (``lm_eval_cog._autoload``) is
imported by a ``.pth`` line in every Python process of the environment.
"""

__version__ = "0.1.0"
