"""Visual WCST (Hao et al.'s visual input): images, parameters, rendering of image turns,
the multimodal seam, the visual-accuracy probe, and the scripted VLM that reads the pixels.

The through-the-CLI runs are in ``test_wcst_visual_cli.py``.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import math
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from lm_eval import simple_evaluate
from lm_eval.api.model import LM
from lm_eval.tasks import TaskManager
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scripted_vlm  # noqa: E402

from lm_eval_cog._autoload import task_dir  # noqa: E402
from lm_eval_cog.lmeval import multimodal  # noqa: E402
from lm_eval_cog.lmeval.visual_probe import dataset as probe_dataset  # noqa: E402
from lm_eval_cog.lmeval.visual_probe import doc_to_image  # noqa: E402
from lm_eval_cog.paradigms.base import agent_rng, episode_seed  # noqa: E402
from lm_eval_cog.paradigms.images import IMAGE_PLACEHOLDER  # noqa: E402
from lm_eval_cog.paradigms.wcst import PARADIGM, PRESETS, WCSTEnv, visual, visual_probe  # noqa: E402
from lm_eval_cog.paradigms.wcst.cards import (  # noqa: E402
    COLOURS,
    KEY_CARDS,
    NUMBERS,
    SHAPES,
    draw_per_trial_options,
)
from lm_eval_cog.paradigms.wcst.env import card_text  # noqa: E402
from lm_eval_cog.rendering import DEFUSED_PLACEHOLDER, IMAGE_DROPPED, Renderer  # noqa: E402
from lm_eval_cog.runner import Episode, Turn, start_episodes  # noqa: E402
from lm_eval_cog.transcripts import rebuild_prompt  # noqa: E402

WCST64_IMAGE = dataclasses.replace(PRESETS["wcst64"], modality="image")
KENNEDY_IMAGE = dataclasses.replace(PRESETS["kennedy"], modality="image")
ALL_CARDS = [{"shape": s, "colour": c, "number": n} for s in SHAPES for c in COLOURS for n in NUMBERS]


def evaluate(lm, tasks, limit=1, metadata=None, **kwargs):
    out = simple_evaluate(
        model=lm,
        tasks=tasks,
        limit=limit,
        task_manager=TaskManager(include_path=str(task_dir()), include_defaults=False, metadata=metadata),
        log_samples=True,
        bootstrap_iters=0,
        **kwargs,
    )
    out["results"] = {name.split("::")[-1]: row for name, row in out["results"].items()}
    return out


def transcripts(out, task):
    return [json.loads(s["resps"][0][0]) for s in out["samples"][task]]


def play(params, seed: int, policy: str = "optimal") -> tuple[WCSTEnv, list]:
    """An episode played by a reference agent; the turn image of every trial."""
    env = WCSTEnv(params)
    message, info = env.reset(seed=seed)
    agent = PARADIGM.make_agent(policy, params, agent_rng(seed))
    images, done = [], False
    while not done:
        images.append(env.turn_image())
        message, terminated, truncated, info = env.step(agent.act(message, info))
        done = terminated or truncated
    assert env.turn_image() is None  # nothing left to show
    return env, images


# --------------------------------------------------------------------------- images


@pytest.mark.parametrize("per_trial", [False, True], ids=["key_cards", "per_trial_options"])
def test_every_card_decodes_from_the_pixels_in_every_position(per_trial):
    # Each of the 64 cards as the test card, and (per-trial deck) in every top-row position.
    rng = np.random.default_rng(0)
    for card in ALL_CARDS:
        options = draw_per_trial_options(rng)[1] if per_trial else [dict(k) for k in KEY_CARDS]
        if per_trial:
            options[int(rng.integers(4))] = dict(card)
        image = visual.render_trial(card, options, per_trial_options=per_trial)
        assert (image.width, image.height) == (visual.WIDTH, visual.HEIGHT)
        assert scripted_vlm.decode(image) == [*options, card], card_text(card)


@pytest.mark.parametrize("params", [WCST64_IMAGE, KENNEDY_IMAGE], ids=["wcst64", "kennedy"])
def test_decoded_images_equal_the_trial_log(params):
    env, images = play(params, seed=7)
    assert [im.shows for im in images] == [{"trial": r["trial"]} for r in env.log]
    for image, record in zip(images, env.log):
        assert scripted_vlm.decode(image.render()) == [*record["options"], record["card"]]


def test_images_are_deterministic_and_differ_between_cards():
    a = visual.render_trial(ALL_CARDS[5], KEY_CARDS)
    b = visual.render_trial(dict(ALL_CARDS[5]), [dict(k) for k in KEY_CARDS])
    assert visual.png_sha256(a) == visual.png_sha256(b)
    assert visual.png_sha256(a) != visual.png_sha256(visual.render_trial(ALL_CARDS[6], KEY_CARDS))
    labels = visual.render_trial(ALL_CARDS[5], KEY_CARDS, per_trial_options=True)
    assert visual.png_sha256(labels) != visual.png_sha256(a)  # "Option k" labels, not "Card k"


def test_symbols_use_only_the_palette_and_stay_inside_their_card():
    image = np.asarray(visual.render_trial({"shape": "star", "colour": "yellow", "number": 4}, KEY_CARDS))
    saturated = (image.max(axis=2).astype(int) - image.min(axis=2)) > scripted_vlm.SATURATION
    colours = {tuple(p) for p in image[saturated]}
    assert colours <= {tuple(v) for v in visual.PALETTE.values()}  # no anti-aliasing
    inside = np.zeros(saturated.shape, bool)
    for x, y in visual.CARD_BOXES:
        inside[y : y + visual.CARD_H, x : x + visual.CARD_W] = True
    assert not (saturated & ~inside).any()


# --------------------------------------------------------------------------- parameters and messages


@pytest.mark.parametrize(
    "changes, name",
    [
        ({"modality": "picture"}, "modality"),
        ({"image_history": 2}, "image_history"),  # text has no images
        ({"modality": "image", "image_history": 0}, "image_history"),
        ({"modality": "image", "image_history": "all"}, "image_history"),
        ({"modality": "image", "theme": "alien"}, "theme"),
    ],
)
def test_bad_visual_parameters_name_themselves(changes, name):
    with pytest.raises(ValueError, match=name):
        dataclasses.replace(PRESETS["wcst64"], **changes)


def test_visual_episode_shows_images_instead_of_card_text_and_plays_the_same_test():
    text_env, _ = play(PRESETS["wcst64"], seed=3)
    env, images = play(WCST64_IMAGE, seed=3)
    assert env.log == text_env.log  # same cards, rules, agent choices and feedback
    assert "red triangle" not in env.system_prompt and "labelled Card 1 to Card 4" in env.system_prompt
    first, _ = WCSTEnv(WCST64_IMAGE).reset(seed=3)
    assert first == f"{IMAGE_PLACEHOLDER}\nWhich key card does your card match? Answer with its number."
    kennedy, _ = WCSTEnv(KENNEDY_IMAGE).reset(seed=3)
    assert kennedy.startswith(IMAGE_PLACEHOLDER) and "Which option" in kennedy
    env = WCSTEnv(KENNEDY_IMAGE)
    env.reset(seed=3)
    assert "Option 1 to Option 4" in env.system_prompt


def test_visual_parameters_keep_the_chance_level():
    from lm_eval_cog.paradigms import chance

    params = dataclasses.replace(WCST64_IMAGE, image_history=3)
    assert chance.for_params(PARADIGM, "wcst64", params) == chance.for_params(PARADIGM, "wcst64", PRESETS["wcst64"])


# --------------------------------------------------------------------------- rendering image turns


class Shown:
    """A stand-in TurnImage (what it shows, and a 1-px 'render')."""

    def __init__(self, trial: int) -> None:
        self.shows = {"trial": trial}

    def render(self):
        return Image.new("RGB", (1, 1))


def visual_episode(n_done: int, history: int | None = None, reply: str = "2") -> Episode:
    turns = [Turn(user=f"fb {i}\n\n{IMAGE_PLACEHOLDER}\nWhich?", reply=reply, image=Shown(i + 1)) for i in range(n_done)]
    turns.append(Turn(user=f"fb {n_done}\n\n{IMAGE_PLACEHOLDER}\nWhich?", image=Shown(n_done + 1)))
    return Episode(spec={"params": {"image_history": history}}, system="Sort.", turns=turns)


def words(text: str) -> int:
    return len(text.split())


@pytest.mark.parametrize("history, kept", [(None, [1, 2, 3, 4]), (1, [4]), (2, [3, 4]), (9, [1, 2, 3, 4])])
def test_image_history_keeps_the_newest_images_and_notes_the_others(history, kept):
    ep = visual_episode(3, history)
    r = Renderer(chat_template=None, count_tokens=words)
    prompt = r.to_prompt(r.messages(ep, 0))
    assert [im.shows["trial"] for im in r.images(ep, 0)] == kept
    assert prompt.count(IMAGE_PLACEHOLDER) == len(kept)
    assert prompt.count(IMAGE_DROPPED) == 4 - len(kept)
    # The kept placeholders are the last ones: the newest turn always shows its image.
    assert prompt.rsplit("fb 3", 1)[1].count(IMAGE_PLACEHOLDER) == 1


def test_dropped_turns_take_their_images_and_counting_uses_the_processor():
    ep = visual_episode(5)
    counted = []

    def count_images(text, images):
        counted.append(len(images))
        return words(text) + 100 * len(images)

    r = Renderer(chat_template=None, count_tokens=words, max_prompt_tokens=330, count_image_tokens=count_images)
    prompt, dropped, n = r.render(ep)
    assert counted[0] == 6 and n <= 330 and dropped > 0
    assert len(r.images(ep, dropped)) == prompt.count(IMAGE_PLACEHOLDER) == 6 - dropped == counted[-1]


def test_placeholders_written_by_the_model_or_the_user_are_defused():
    ep = visual_episode(1, reply=f"I see {IMAGE_PLACEHOLDER} here. Answer: 2")
    r = Renderer(chat_template=None, count_tokens=words, system_instruction=f"Look at {IMAGE_PLACEHOLDER}.")
    prompt = r.to_prompt(r.messages(ep, 0))
    assert prompt.count(IMAGE_PLACEHOLDER) == len(r.images(ep, 0)) == 2
    assert prompt.count(DEFUSED_PLACEHOLDER) == 2


def test_visual_transcript_keeps_what_each_image_shows_and_rebuilds_its_prompts():
    (ep,) = start_episodes([{"paradigm": "wcst", "preset": "wcst64", "strategy": "direct",
                             "overrides": {"modality": "image", "image_history": 2}, "seed": 5}],
                           lambda spec: WCSTEnv(PARADIGM.make_params(spec["preset"], spec["strategy"], spec["overrides"])))  # fmt: skip
    ep.spec["params"] = {"image_history": 2}
    from lm_eval_cog.runner import _advance

    for _ in range(3):
        _advance(ep, "1")
    record = ep.transcript()
    text = json.dumps(record)  # JSON: no pixels anywhere
    assert [t["image"] for t in record["turns"]] == [{"trial": k} for k in (1, 2, 3, 4)]
    rebuilt = rebuild_prompt(json.loads(text), 3)
    r = Renderer(chat_template=None, count_tokens=words)
    assert rebuilt == r.to_prompt(r.messages(ep, 0))
    assert rebuilt.count(IMAGE_PLACEHOLDER) == 2 and rebuilt.count(IMAGE_DROPPED) == 2


# --------------------------------------------------------------------------- the seam


class RecordingVLM(scripted_vlm.ScriptedVLM):
    """The scripted VLM, recording each generate_until call's request args."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.calls: list[list[tuple]] = []

    def generate_until(self, requests, disable_tqdm: bool = False):
        self.calls.append([r.args for r in requests])
        return super().generate_until(requests, disable_tqdm)


def test_visual_requests_are_three_tuples_in_their_own_call_and_the_optimal_reader_completes_five_categories():
    lm = RecordingVLM()
    out = evaluate(lm, ["cog_wcst_visual", "cog_wcst_direct"], limit=2)
    for call in lm.calls:
        sizes = {len(args) for args in call}
        assert sizes in ({2}, {3})  # never mixed
        for args in call:
            if len(args) == 3:
                assert args[0].count(IMAGE_PLACEHOLDER) == len(args[2]["visual"]) >= 1
    assert sum(len(c[0]) == 3 for c in lm.calls) == 64  # one visual call per turn
    row = out["results"]["cog_wcst_visual"]
    assert row["categories_completed,none"] == 5 and row["invalid_rate,none"] == 0
    for t in transcripts(out, "cog_wcst_visual"):
        # prompt tokens: the processor's count, images included (100 tokens each in this model).
        assert t["turns"][-1]["prompt_tokens"] >= 64 * scripted_vlm.IMAGE_TOKENS
    # The images of the last turn are the 64 trials' images, in order, as the log says.
    last = [c for c in lm.calls if len(c[0]) == 3][-1][0]
    decoded = [scripted_vlm.decode(im) for im in last[2]["visual"]]
    log = transcripts(out, "cog_wcst_visual")[0]["trials"]
    assert decoded == [[*r["options"], r["card"]] for r in log]


def test_image_history_reaches_the_model_and_older_images_become_notes():
    lm = RecordingVLM()
    evaluate(lm, ["cog_wcst_visual_direct"], limit=1, metadata={"wcst": {"image_history": 2, "trials": 6}})
    counts = [len(c[0][2]["visual"]) for c in lm.calls]
    assert counts == [1, 2, 2, 2, 2, 2]
    assert lm.calls[-1][0][0].count(IMAGE_DROPPED) == 4


def test_the_context_window_counts_images_with_the_processor():
    lm = RecordingVLM(max_length=1500)  # words + 100 per image; a 64-image prompt would need ~7000
    out = evaluate(lm, ["cog_wcst_visual_direct"], limit=1)
    turns = transcripts(out, "cog_wcst_visual_direct")[0]["turns"]
    assert all(t["prompt_tokens"] <= 1500 - 32 for t in turns) and turns[-1]["dropped_turns"] > 0
    for call in lm.calls:
        prompt, _, aux = call[0]
        assert words(prompt.replace(IMAGE_PLACEHOLDER, " ")) + 100 * len(aux["visual"]) <= 1500 - 32


def test_without_a_processor_each_image_is_estimated_loudly(caplog):
    class NoProcessor:
        MULTIMODAL = True

        def tok_encode(self, text):
            return text.split()

    count = multimodal.image_token_counter(NoProcessor(), words)
    with caplog.at_level(logging.WARNING, logger="lm_eval.cog"):
        assert count("a b c", [Shown(1), Shown(2)]) == 3 + 2 * multimodal.FALLBACK_IMAGE_TOKENS
    assert "no processor" in caplog.text


class TextLM(LM):
    def generate_until(self, requests, disable_tqdm: bool = False):
        return ["Answer: 1"] * len(requests)

    def loglikelihood(self, requests):
        raise NotImplementedError

    loglikelihood_rolling = loglikelihood


@pytest.mark.parametrize("task", ["cog_wcst_visual", "cog_wcst_visual_direct", "cog_wcst_visual_probe"])
def test_text_only_models_are_refused_before_any_request(task):
    with pytest.raises(ValueError, match=r"require multimodal input.*hf-multimodal', 'vllm-vlm"):
        evaluate(TextLM(), [task])
    # Also when --metadata turns a text task into a visual one.
    with pytest.raises(ValueError, match="require multimodal input"):
        evaluate(TextLM(), ["cog_wcst"], metadata={"wcst": {"modality": "image"}})


def _visual_episodes(overrides=None):
    spec = {"task": "cog_wcst_visual", "paradigm": "wcst", "preset": "wcst64", "strategy": "cot",
            "overrides": {"modality": "image", **(overrides or {})}, "seed": 1}  # fmt: skip
    return start_episodes([spec], lambda s: WCSTEnv(PARADIGM.make_params(s["preset"], s["strategy"], s["overrides"])))


def test_preflight_refuses_what_would_drop_or_misplace_images():
    class Limited(scripted_vlm.ScriptedVLM):
        pass

    lm = Limited()
    lm.max_images = 1
    with pytest.raises(ValueError, match=r"max_images=1.*image_history\": 1"):
        multimodal.preflight(lm, _visual_episodes(), [{"apply_chat_template": True}])
    multimodal.preflight(lm, _visual_episodes({"image_history": 1}), [{"apply_chat_template": True}])

    VLLM_VLM = type("VLLM_VLM", (scripted_vlm.ScriptedVLM,), {})  # named as lm-eval's class
    with pytest.raises(ValueError, match="--apply_chat_template"):
        multimodal.preflight(VLLM_VLM(), _visual_episodes(), [{"apply_chat_template": False}])
    multimodal.preflight(VLLM_VLM(), _visual_episodes(), [{"apply_chat_template": True}])
    with pytest.raises(ValueError, match="takes text only"):
        multimodal.preflight(TextLM(), _visual_episodes(), [{"apply_chat_template": False}])
    with pytest.raises(ValueError, match="at least one image"):
        multimodal.visual_args("p", {}, [])


def test_cog_baseline_plays_the_visual_tasks_without_drawing():
    from lm_eval_cog.lmeval.baseline_model import BaselineLM

    out = evaluate(BaselineLM(policy="optimal"), ["cog_wcst_visual", "cog_wcst"], limit=2)
    assert out["results"]["cog_wcst_visual"]["categories_completed,none"] == 5
    assert transcripts(out, "cog_wcst_visual")[0]["trials"] == transcripts(out, "cog_wcst")[0]["trials"]


def test_a_damaged_image_lowers_the_play():
    out = evaluate(RecordingVLM(corrupt="merge_yellow"), ["cog_wcst_visual_direct"], limit=2)
    assert out["results"]["cog_wcst_visual_direct"]["acc,none"] < 0.8


# --------------------------------------------------------------------------- every task through HFMultimodalLM's template


def interactive_tasks() -> list[str]:
    names = []
    for path in sorted(task_dir().rglob("*.yaml")):
        config = yaml.load(path.read_text(), Loader=_Tags) or {}
        if "InteractiveTask" in str(config.get("class", "")):
            names.append(config["task"])
    return names


class _Tags(yaml.SafeLoader):
    pass


_Tags.add_multi_constructor("!", lambda loader, suffix, node: loader.construct_scalar(node))


def test_every_interactive_task_runs_through_hf_multimodals_chat_template_path():
    # lm-eval's own HFMultimodalLM.apply_chat_template (called unbound on the scripted model)
    # rewrites message contents into lists in place; before the fix the renderer then called
    # .strip() on a list and every task failed with --apply_chat_template.
    tasks = interactive_tasks()
    assert {"cog_wcst", "cog_lnt", "cog_igt", "cog_wcst_visual"} <= set(tasks)
    lm = RecordingVLM()
    out = evaluate(lm, tasks, limit=1, apply_chat_template=True, metadata={"wcst": {"trials": 12}})
    for task in tasks:
        (t,) = transcripts(out, task)
        # Played to its end: completed, or truncated at a turn cap (wason246 with replies it cannot read).
        assert t["status"] in ("completed", "truncated") and t["error"] is None, (task, t["error"])
    assert lm.chat_applied
    for call in lm.calls:
        for args in call:
            assert args[0].count(scripted_vlm.TEMPLATE_IMAGE) == (len(args[2]["visual"]) if len(args) == 3 else 0)


# --------------------------------------------------------------------------- the probe


def test_probe_documents_are_the_64_images_of_a_seeded_episode():
    docs = probe_dataset(seed=1234)["test"]
    assert len(docs) == 64 and docs[0]["seed"] == episode_seed(1234, 0)
    env, _ = play(WCST64_IMAGE, seed=episode_seed(1234, 0))
    for doc, record in zip(docs, env.log):
        assert doc["cards"] == [*record["options"], record["card"]]
        assert scripted_vlm.decode(doc_to_image(doc)[0]) == doc["cards"]
    assert probe_dataset(seed=1)["test"]["cards"] != docs["cards"]


def test_probe_yaml_asks_the_documented_question():
    config = yaml.load((task_dir() / "wcst" / "cog_wcst_visual_probe.yaml").read_text(), Loader=_Tags)
    assert config["doc_to_text"] == visual_probe.DOC_TEXT
    assert [m["metric"] for m in config["metric_list"]] == list(visual_probe.METRICS)


CARDS = [dict(k) for k in KEY_CARDS] + [{"shape": "star", "colour": "blue", "number": 3}]


def test_a_perfect_description_scores_100_and_eq10_400():
    assert visual_probe.score(CARDS, visual_probe.describe(CARDS)) == {
        "acc_overall": 100.0, "acc_count": 100.0, "acc_color": 100.0, "acc_shape": 100.0,
        "acc_number": 100.0, "penalty": 0.0, "acc_overall_eq10": 400.0,
    }  # fmt: skip


def test_probe_scores_by_hand():
    # Six cards claimed (one extra), card 2's number wrong, card 5 missing, an extra line ignored.
    reply = (
        "Cards: 6\nCard 1: one red triangle\nCard 2: 3 green stars\nCard 3: 3 yellow crosses\n"
        "Card 4: 4 blue circles\nCard 6: 2 red circles"
    )
    s = visual_probe.score(CARDS, reply)
    assert s["acc_count"] == 0 and s["penalty"] == 50.0
    assert (s["acc_color"], s["acc_shape"], s["acc_number"]) == (80.0, 80.0, 60.0)
    assert s["acc_overall"] == pytest.approx((0 + 5 * (80 + 80 + 60) - 50) / 16)
    assert s["acc_overall_eq10"] == pytest.approx(0 + 220 - 50)
    assert visual_probe.score(CARDS, "no idea")["acc_overall"] == 0.0


@pytest.mark.parametrize(
    "name, count, colour, shape, number, extra, overall",
    [
        ("Gemini-1.5 Pro", 75, 100, 100, 97.81, 16, 96.97),
        ("GPT-4o", 0, 100, 100, 96.56, 64, 89.55),
        ("Claude-3.5 Sonnet", 100, 100, 100, 100, 0, 100.0),
    ],
)
def test_weighted_overall_reproduces_hao_table_ii(name, count, colour, shape, number, extra, overall):
    penalty = 100 * 0.5 * extra / 64
    weighted = (count + 5 * (colour + shape + number) - penalty) / 16
    assert weighted == pytest.approx(overall, abs=0.005), name
    assert count + colour + shape + number - penalty != pytest.approx(overall)  # eq. 10 as printed does not


def test_probe_mean_over_images_is_eqs_7_to_10():
    # GPT-4o's pattern over 64 images: always 6 cards, 11 of the 320 numbers wrong.
    rng = np.random.default_rng(0)
    wrong = set(rng.choice(320, size=11, replace=False).tolist())
    scores = []
    for i in range(64):
        lines = ["Cards: 6"]
        for j, c in enumerate(CARDS):
            n = c["number"] % 4 + 1 if 5 * i + j in wrong else c["number"]
            lines.append(f"Card {j + 1}: {n} {c['colour']} {c['shape']}")
        scores.append(visual_probe.score(CARDS, "\n".join(lines)))
    mean = {k: np.mean([s[k] for s in scores]) for k in scores[0]}
    assert mean["acc_number"] == pytest.approx(309 / 320 * 100)
    assert mean["acc_overall"] == pytest.approx(89.55, abs=0.005)


def test_probe_through_lm_eval_scores_100_and_a_swapped_palette_lowers_it(monkeypatch):
    out = evaluate(scripted_vlm.ScriptedVLM(), ["cog_wcst_visual_probe"], limit=None)
    row = out["results"]["cog_wcst_visual_probe"]
    assert row["acc_overall,none"] == 100 and row["acc_overall_eq10,none"] == 400
    assert len(out["samples"]["cog_wcst_visual_probe"]) == 64
    swapped = {**visual.PALETTE, "red": visual.PALETTE["blue"], "blue": visual.PALETTE["red"]}
    monkeypatch.setattr(visual, "PALETTE", swapped)  # the renderer draws red as blue and back
    visual._render_cached.cache_clear()
    try:
        row = evaluate(scripted_vlm.ScriptedVLM(), ["cog_wcst_visual_probe"], limit=None)["results"]["cog_wcst_visual_probe"]
    finally:
        visual._render_cached.cache_clear()
    assert row["acc_color,none"] < 100 and row["acc_overall,none"] < 100
    assert row["acc_shape,none"] == row["acc_number,none"] == row["acc_count,none"] == 100
    assert not math.isnan(row["acc_overall,none"])


def test_use_cache_keys_visual_turns_by_their_images_too(tmp_path):
    # Turn 1 of every episode has the same text ("<image>\nWhich key card ..."): the key must
    # hash the pixels (lm-eval's hash_args does), or episode 2 would replay episode 1's reply.
    from lm_eval_cog.lmeval.episode_cache import TurnCache

    cache = TurnCache(tmp_path / "cache_rank0.db", "m")
    gen = {"until": [], "do_sample": False}
    a, b = visual.render_trial(ALL_CARDS[0], KEY_CARDS), visual.render_trial(ALL_CARDS[1], KEY_CARDS)
    assert cache.key(("p", gen, {"visual": [a]})) != cache.key(("p", gen, {"visual": [b]}))
    assert cache.key(("p", gen, {"visual": [a]})) == cache.key(("p", gen, {"visual": [a.copy()]}))


def test_use_cache_replays_a_visual_run_without_model_calls(tmp_path):
    kwargs = {"metadata": {"wcst": {"trials": 5}}, "use_cache": str(tmp_path / "cache")}
    first = RecordingVLM()
    out1 = evaluate(first, ["cog_wcst_visual_direct"], limit=2, **kwargs)
    again = RecordingVLM()
    out2 = evaluate(again, ["cog_wcst_visual_direct"], limit=2, **kwargs)
    assert len(first.calls) == 5 and again.calls == []
    assert transcripts(out1, "cog_wcst_visual_direct") == transcripts(out2, "cog_wcst_visual_direct")
