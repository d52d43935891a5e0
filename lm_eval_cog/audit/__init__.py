"""Shortcut audit: how far blind strategies, which never do the task, get on multiple-choice items.

``lm-eval-cog audit TASK...`` runs it on any lm-eval multiple-choice task; :func:`audit_probe` runs
it on a static probe straight from its generator (what the generator tests use).
"""
