"""Replaying published clembench transcripts through our own game masters (``lm-eval-cog replay``).

Each published episode (clembench-runs' ``interactions.json``) is rebuilt as one of our game
episodes: its instance from what the transcript shows (:mod:`.instances`), and a player that hands
each model reply, in order, to the role that made it (:mod:`.play`). The same runner, game masters
and scorers as an ``lm_eval`` run play it; our outcome is set beside the run's own
(:mod:`.clembench`) with a verdict (:mod:`.verdicts`). Pure Python: no lm-eval, no torch.
"""
