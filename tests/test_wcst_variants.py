"""WCST variants as parameters of the one paradigm: Kennedy & Nowak's single-rule components,
Hao et al.'s ALIEN transfer, rule-exclusivity ablation (Table III) and impairment role-play
(Table IV)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lm_eval_cog.lmeval.task import paradigm_overrides
from lm_eval_cog.paradigms import chance
from lm_eval_cog.paradigms.base import agent_rng
from lm_eval_cog.paradigms.wcst import PARADIGM, PRESETS, WCSTEnv
from lm_eval_cog.paradigms.wcst.env import (
    ALIEN_ATMOSPHERES,
    ALIEN_ORBITS,
    ANNOUNCED_RULE,
    EXCLUSIVITY_SENTENCE,
    RULE_SENTENCE,
    ROLEPLAYS,
    system_prompt,
)
from lm_eval_cog.paradigms.wcst.cards import SHAPES

KENNEDY = PRESETS["kennedy"]
WCST64 = PRESETS["wcst64"]


def _play(params, seed: int, policy: str = "optimal") -> tuple[WCSTEnv, list[str]]:
    env = WCSTEnv(params)
    message, info = env.reset(seed=seed)
    agent = PARADIGM.make_agent(policy, params, agent_rng(seed))
    messages, done = [env.system_prompt, message], False
    while not done:
        message, terminated, truncated, info = env.step(agent.act(message, info))
        messages.append(message)
        done = terminated or truncated
    return env, messages


@pytest.mark.parametrize("rule", ["shape", "colour", "number"])
def test_component_task_keeps_one_rule_and_announces_it(rule):
    params = dataclasses.replace(KENNEDY, fixed_rule=rule, announce_rule=True, strategy="direct")
    env, messages = _play(params, seed=3)
    assert {r["rule"] for r in env.log} == {rule}
    assert all(r["previous_rule"] is None for r in env.log)
    # Kennedy & Nowak's component prompt, not the hidden-rule instructions.
    assert ANNOUNCED_RULE[rule] in messages[0] and RULE_SENTENCE not in messages[0]
    # Knowing the rule, the ideal player is right on all 25 trials: 25 // 6 = 4 categories.
    scores = PARADIGM.metrics(env.log, params)
    assert scores["acc"] == 1.0 and scores["categories_completed"] == 4


def test_unannounced_component_costs_the_ideal_player_at_most_two_first_trials():
    params = dataclasses.replace(KENNEDY, fixed_rule="number")
    for seed in range(40):
        env, messages = _play(params, seed)
        assert ANNOUNCED_RULE["number"] not in messages[0] and RULE_SENTENCE in messages[0]
        errors = [r["trial"] for r in env.log if r["outcome"] != "correct"]
        assert len(errors) <= 2 and all(t <= 2 for t in errors)


def test_component_task_shows_the_same_cards_as_the_switching_test():
    fixed, _ = _play(dataclasses.replace(KENNEDY, fixed_rule="shape"), seed=9, policy="random")
    switching, _ = _play(KENNEDY, seed=9, policy="random")
    assert [r["card"] for r in fixed.log] == [r["card"] for r in switching.log]
    assert [r["options"] for r in fixed.log] == [r["options"] for r in switching.log]


def test_alien_theme_changes_the_words_not_the_test():
    alien = dataclasses.replace(WCST64, theme="alien")
    for seed in (0, 1, 2):
        env_a, msgs_a = _play(alien, seed)
        env_t, _ = _play(WCST64, seed)
        # Same cards, rules, choices and outcomes: the log keeps the abstract dimensions.
        assert [{k: r[k] for k in ("card", "rule", "choice", "outcome")} for r in env_a.log] == [
            {k: r[k] for k in ("card", "rule", "choice", "outcome")} for r in env_t.log
        ]
        assert PARADIGM.metrics(env_a.log, alien) == PARADIGM.metrics(env_t.log, WCST64)
        text = "\n".join(msgs_a).lower()
        assert not any(shape in text for shape in SHAPES)  # no card vocabulary leaks
        assert "atmospheric composition" in msgs_a[0] and "System 4: four moons, circular orbits" in msgs_a[0]


def test_alien_card_text_maps_every_value():
    env, msgs = _play(dataclasses.replace(WCST64, theme="alien"), seed=0)
    first = env.log[0]["card"]
    assert ALIEN_ORBITS[first["shape"]] in msgs[1] and ALIEN_ATMOSPHERES[first["colour"]] in msgs[1]
    assert msgs[1].startswith("Your system: ")


@pytest.mark.parametrize("reply", ["System 3", "Answer: system three", "3"])
def test_alien_replies_name_a_system(reply):
    env = WCSTEnv(dataclasses.replace(WCST64, theme="alien", strategy="direct"))
    env.reset(seed=0)
    env.step(reply)
    assert env.log[0]["choice"] == 2


def test_exclusivity_ablation_drops_only_that_sentence():
    with_hint = system_prompt(WCST64)
    without = system_prompt(dataclasses.replace(WCST64, exclusivity_hint=False))
    assert EXCLUSIVITY_SENTENCE in with_hint and EXCLUSIVITY_SENTENCE not in without
    assert with_hint.replace(" " + EXCLUSIVITY_SENTENCE, "") == without


@pytest.mark.parametrize("role", sorted(ROLEPLAYS))
def test_roleplay_prepends_the_impairment_to_the_unchanged_instructions(role):
    prompt = system_prompt(dataclasses.replace(WCST64, roleplay=role))
    first, rest = prompt.split("\n", 1)
    assert first.startswith(ROLEPLAYS[role]) and first.endswith("answer every trial in the required format.")
    assert rest == system_prompt(WCST64)


@pytest.mark.parametrize(
    ("changes", "name"),
    [
        ({"fixed_rule": "size"}, "fixed_rule"),
        ({"announce_rule": True}, "announce_rule"),
        ({"announce_rule": "yes", "fixed_rule": "shape"}, "announce_rule"),
        ({"theme": "planets"}, "theme"),
        ({"roleplay": "amnesia"}, "roleplay"),
    ],
)
def test_bad_variant_parameters_name_themselves(changes, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        PARADIGM.make_params("wcst64", None, changes)


def test_fixed_rule_refuses_the_fixed_schedule():
    with pytest.raises(ValueError, match="'fixed_rule' needs schedule 'criterion'"):
        PARADIGM.make_params("reflection_bench", None, {"fixed_rule": "shape"})


def test_variants_keep_the_presets_chance_level_but_protocol_changes_do_not():
    for changes in ({"theme": "alien"}, {"roleplay": "goal_maintenance"}, {"exclusivity_hint": False},
                    {"fixed_rule": "shape", "announce_rule": True}):
        params = PARADIGM.make_params("kennedy", "direct", changes)
        assert chance.for_params(PARADIGM, "kennedy", params) == chance.stored("wcst", "kennedy")
    assert chance.for_params(PARADIGM, "kennedy", PARADIGM.make_params("kennedy", None, {"trials": 30})) is None


def test_random_sorts_are_right_a_quarter_of_the_time_under_any_rule_schedule():
    # Why the chance level is shared: with unambiguous cards one option matches per dimension.
    fixed = dataclasses.replace(KENNEDY, fixed_rule="colour")
    accs = [PARADIGM.metrics(_play(p, s, "random")[0].log, p)["acc"] for p in (KENNEDY, fixed) for s in range(400)]
    assert np.mean(accs[:400]) == pytest.approx(0.25, abs=0.02) and np.mean(accs[400:]) == pytest.approx(0.25, abs=0.02)


def test_variant_overrides_merge_under_the_users_metadata():
    meta = {"variant": {"fixed_rule": "shape", "announce_rule": True}, "wcst": {"trials": 12, "announce_rule": False}}
    assert paradigm_overrides(meta, "wcst") == {"fixed_rule": "shape", "announce_rule": False, "trials": 12}
    with pytest.raises(ValueError, match="metadata.variant must be a dict"):
        paradigm_overrides({"variant": "shape"}, "wcst")


def test_variant_and_lnt_tasks_through_lm_eval_give_the_reference_values(tmp_path):
    import glob
    import json
    import subprocess
    from pathlib import Path

    from lm_eval_cli import LM_EVAL, cog_env

    proc = subprocess.run(
        [LM_EVAL, "--model", "cog_baseline", "--model_args", "policy=optimal", "--tasks",
         "cog_wcst_kennedy_shape,cog_wcst_alien,cog_wcst,cog_lnt,cog_lnt_letter", "--limit", "2",
         "--metadata", '{"wcst": {"trials": 20}}', "--output_path", str(tmp_path / "out")],
        cwd=tmp_path, capture_output=True, text=True, env=cog_env(), timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    (path,) = glob.glob(str(tmp_path / "out" / "*" / "results_*.json"))
    results = json.loads(Path(path).read_text())["results"]
    # --metadata's wcst dict shortens the test and leaves the task's fixed, announced rule in place.
    assert results["cog_wcst_kennedy_shape"]["acc,none"] == 1.0
    assert results["cog_wcst_kennedy_shape"]["categories_completed,none"] == 3.0  # 20 // 6
    # LNT: the reactive ideal player scores 21/25 or 22/25 per run; a known task, 25/25.
    assert 0.84 <= results["cog_lnt"]["acc,none"] <= 0.88 and results["cog_lnt"]["categories_completed,none"] == 3.0
    assert results["cog_lnt_letter"]["acc,none"] == 1.0
    alien = {k: v for k, v in results["cog_wcst_alien"].items() if k not in ("alias", "name")}
    assert alien == {k: v for k, v in results["cog_wcst"].items() if k not in ("alias", "name")}
