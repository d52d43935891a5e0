"""The ``paper`` preset of every game: the shipped instances equal the paper's (``momentino/playpen``
at ``b0c97d3``), the messages are the ones clembench sent, and Taboo's paper rule skips NLTK's stop
words. The reference players' exact scores through ``lm_eval``: tests/test_games_paper_e2e.py."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import pytest

from lm_eval_cog.games import paper
from lm_eval_cog.games.grids import render
from lm_eval_cog.games.reference.prompts import EXPRESSION_SLOT
from lm_eval_cog.games.taboo.rules import paper_hits, stopwords
from lm_eval_cog.games.taboo.stopwords import nltk_stopwords
from lm_eval_cog.paradigms import chance, get_paradigm

GAMES = ["taboo", "wordle", "wordle_clue", "wordle_critic", "reference", "image", "privateshared"]
#: sha256 of each shipped file, as ``scripts/build_paper_instances.py`` writes it from playpen@b0c97d3.
FILE_SHA256 = {
    "paper_taboo.json": "bbb58e9d581ac2069f418b3cc37645b1477764d7a578bb48c5bf98a1afdbe7ab",
    "paper_wordle.json": "916e8781788391b9e42071a4d36b893b833b518af8596a4e823d321e952675be",
    "paper_reference.json": "52f225551885fc488d0c5fcf444bf44d2013cddcd1cbc3d1bfb959e64ebdf6fe",
    "paper_image.json": "74668795deb40073ff1b81e679fbaa8274b2fff930292e5724212c3883bf16d9",
    "paper_privateshared.json": "d8f0922fab31069d6d447c441ee7e71a782955563f66373fdd6e93a7119ea092",
    "nltk_stopwords_english.txt": "019f104ba2ed07436d05f9cdd3383034ad66014edc27fc651f837e1a038b6451",
}
#: Instances per experiment in the paper's files, in the paper's order.
COUNTS = {
    "taboo": {"high": 20, "medium": 20, "low": 20},
    "wordle": {"high": 10, "medium": 20},
    "reference": {c: 30 for c in ("line_grids_rows", "line_grids_columns", "diagonal_grids", "letter_grids",
                                  "shape_grids", "random_grids")},
    "image": {"compact_grids": 20, "random_grids": 20},
    "privateshared": {e: 10 for e in ("travel-booking", "job-interview", "restaurant", "things-places",
                                      "letter-number")},
}  # fmt: skip
#: sha256 of the messages playpen@b0c97d3 sends, joined by NUL, computed from its instances.json
#: files: every describer prompt of Taboo (the game master's replacements), every Reference giver
#: and follower header (before the expression is put in), every first Image giver message
#: (header, grid, question), every Private/Shared initial prompt; all in the paper's order.
SOURCE_MESSAGES_SHA256 = {
    "taboo_describer": "86a98f112d9722ff78c270b3ee805ee93f1de6522729b0ef0adccd671baa4729",
    "reference_giver": "5606e5adf8972836bc2221d4341b0a26facf5a96228820ee270919e50ab5693b",
    "reference_follower": "13ad0141aeb9f9d1bc9d0aef59f6837f9991d4d26f97db19ef759f9e0ab73236",
    "image_giver": "c0453abde9dd26d4d79840ce89a05f756db8ed4b1069d2c609980611b0efa077",
    "privateshared_initial": "6ef17a22b60131ea7ca2f29a8f6d95f5f19b67cf3291ccbe5597f5f8b5715c94",
}
#: The Taboo describer's first message of the paper's medium_en episode 0, as the published
#: transcript shows it (clembench-runs v1.6, Meta-Llama-3.1-8B-Instruct self-play, CC BY 4.0).
ASSURE_PROMPT = (
    "You are playing a collaborative word guessing game in which you have to describe a target word for "
    "another player to guess.\n\nRules:\n(a) You have to reply in the form: CLUE: <some text>. Guesses from the "
    "other player will start with GUESS.\n(b) You cannot use the target word itself, parts or morphological "
    "variants of it in your description.\n(c) In addition, the same rules apply for related words which are "
    "provided below.\n\nEnd conditions:\n(i) If you use the target word or a related word in your description, "
    "then you lose.\n(ii) If the other player can guess the target word in 3 tries, you both win.\n\nLet us "
    "start.\n\nThis is the target word that you need to describe and that the other player needs to guess:\n\n"
    "assure\n\nRelated words are:\n\n- comfort\n- ensure\n- guarantee\n\nImportant: You are under time "
    "pressure, give short descriptions that are to the point!"
)


def sha(parts: list[str]) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()


def reset(game: str, index: int, **overrides):
    paradigm = get_paradigm(game)
    params = paradigm.make_params("paper", overrides=overrides)
    env = paradigm.env_cls(params)
    message, info = env.reset(seed=1234, options={"index": index})
    return env, message, info


# ---------------------------------------------------------------- the shipped data
@pytest.mark.parametrize("name", sorted(FILE_SHA256))
def test_the_shipped_files_are_the_ones_built_from_the_source(name):
    data = resources.files("lm_eval_cog.games").joinpath("data").joinpath(name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == FILE_SHA256[name]


@pytest.mark.parametrize("game", sorted(COUNTS))
def test_each_experiment_has_the_papers_instance_count_and_names_its_source(game):
    data = paper.load(game)
    assert {e["name"]: len(e["instances"]) for e in data["experiments"]} == COUNTS[game]
    assert list(COUNTS[game]) == [e["name"] for e in data["experiments"]]  # the paper's order
    assert data["source"]["repository"] == "https://github.com/momentino/playpen"
    assert data["source"]["commit"] == "b0c97d32" and data["source"]["licence"].startswith("MIT")
    assert [i["game_id"] for e in data["experiments"] for i in e["instances"]][:3] != []


def test_spot_checks_against_the_papers_files():
    taboo = {e["name"]: e["instances"] for e in paper.load("taboo")["experiments"]}
    assert (taboo["high"][0]["target"], taboo["high"][0]["related"]) == ("responsibility", ["blame", "obligation", "reliability"])
    assert (taboo["medium"][0]["target"], taboo["low"][0]["target"]) == ("assure", "autograph")
    wordle = {e["name"]: e["instances"] for e in paper.load("wordle")["experiments"]}
    assert (wordle["high"][0]["target"], wordle["high"][0]["clue"]) == ("major", 'tv\'s"___dad"')
    # random.choices with replacement: the paper's high band plays "forum" twice.
    assert [i["target"] for i in wordle["high"]].count("forum") == 2 and wordle["medium"][0]["target"] == "scour"
    rows = paper.experiment("reference", "line_grids_rows")["instances"]
    assert rows[0]["giver_grids"][0] == "X X X X X\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ ▢"
    # Each triple three times, the target first, second, third for the follower.
    assert [r["target_position"] for r in rows[:6]] == [0, 1, 2, 0, 1, 2]
    image = paper.experiment("image", "random_grids")["instances"][0]["target_grid"]
    assert image == "▢ B ▢ B ▢\n▢ ▢ B ▢ ▢\nB ▢ B ▢ ▢\n▢ ▢ ▢ ▢ ▢\n▢ ▢ ▢ ▢ B"
    travel = paper.experiment("privateshared", "travel-booking")
    first = travel["instances"][0]
    assert first["slots"] == {"from": "London", "to": "Amsterdam", "by": "Plane", "class": "The cheapest",
                              "when": "On March 3"}  # fmt: skip
    assert first["request_order"] == ["when", "class", "to", "from", "by"] and len(first["probes"]) == 6
    assert travel["tag"] == "TRAVEL-AGENT" and paper.load("privateshared")["retry_suffixes"][0] == ""


def test_nltks_english_stop_words_are_the_179_clembench_skipped():
    words = nltk_stopwords()
    assert len(words) == 179 and {"any", "don't", "should've", "wouldn't", "ma"} <= words
    # scikit-learn's list (318) holds content words NLTK's does not: the find, keep, get, name.
    assert len(stopwords()) == 318 and not {"find", "keep", "get", "name", "give"} & words
    assert {"find", "keep", "get", "name", "give"} <= stopwords()


# ---------------------------------------------------------------- the schedule
def test_episodes_interleave_the_experiments_in_the_papers_proportions_and_cover_every_instance_once():
    order = paper.schedule("wordle")
    assert [name for name, _ in order[:6]] == ["high", "medium", "medium", "high", "medium", "medium"]
    assert sorted(order) == sorted([("high", j) for j in range(10)] + [("medium", j) for j in range(20)])
    taboo = paper.schedule("taboo")
    assert taboo[:4] == (("high", 0), ("medium", 0), ("low", 0), ("high", 1)) and len(set(taboo)) == 60
    assert [len(paper.schedule(g)) for g in ("reference", "image", "privateshared")] == [180, 40, 50]
    # One experiment chosen: its instances in order; past the last one, around again.
    assert paper.pick("taboo", "low", 0)[1]["target"] == "autograph"
    assert paper.pick("taboo", "low", 20) == paper.pick("taboo", "low", 0)
    assert paper.pick("wordle", "all", 30) == paper.pick("wordle", "all", 0)


# ---------------------------------------------------------------- the paper's messages
def test_taboo_sends_the_papers_prompts_with_the_papers_words():
    env, message, info = reset("taboo", 1)  # episode 1: medium_en's first instance
    assert message == ASSURE_PROMPT
    prompts = [reset("taboo", i)[1] for i in range(60)]
    # The schedule interleaves the bands; the paper's order is high 0-19, medium 0-19, low 0-19.
    by_paper_order = [prompts[3 * j + k] for k in range(3) for j in range(20)]
    assert sha(by_paper_order) == SOURCE_MESSAGES_SHA256["taboo_describer"]
    guesser, _, _, _ = env.step("CLUE: to make someone sure")
    assert guesser.startswith("You are playing a collaborative word guessing game in which you have to guess")
    assert guesser.endswith("Let us start.\n\n\nCLUE: to make someone sure")  # template, blank line, clue


def test_reference_sends_the_papers_headers_for_all_180_triples():
    givers, followers = [], []
    for i in range(180):
        env, message, _ = reset("reference", i)
        givers.append(message)
        # The header before the paper's game master puts the giver's reply in its slot.
        followers.append(env.step("Expression: the cross")[0].replace("Expression: the cross", EXPRESSION_SLOT))
    order = [6 * j + k for k in range(6) for j in range(30)]  # back to the paper's order
    assert sha([givers[i] for i in order]) == SOURCE_MESSAGES_SHA256["reference_giver"]
    assert sha([followers[i] for i in order]) == SOURCE_MESSAGES_SHA256["reference_follower"]


def test_image_sends_the_papers_first_message_and_question():
    firsts = [reset("image", i)[1] for i in range(40)]
    assert sha([firsts[2 * j + k] for k in range(2) for j in range(20)]) == SOURCE_MESSAGES_SHA256["image_giver"]
    env, _, _ = reset("image", 0)
    drawer, *_ = env.step("Command: Put a B in the first row, fifth column")
    assert drawer.startswith("Let us draw something together.")
    assert drawer.endswith("exclude all other text from the output.\nCommand: Put a B in the first row, fifth column")
    question, *_ = env.step(render(((("▢",) * 4 + ("B",)),) + ((("▢",) * 5),) * 4))
    assert question == "What is your next command?"


def test_privateshared_sends_the_papers_prompt_requests_and_probes():
    env, message, _ = reset("privateshared", 0)
    firsts = [reset("privateshared", i)[1] for i in range(50)]
    initial = [m.split("\n\nME: ", 1)[0] for m in firsts]
    assert sha([initial[5 * j + k] for k in range(5) for j in range(10)]) == SOURCE_MESSAGES_SHA256["privateshared_initial"]
    # As the published transcript of this instance shows it: "ME: " and an empty retry suffix.
    assert message.endswith("\n\nLet us start.\n\nME:  Have you informed the travel agent about the place of "
                            "departure? Answer this question with yes or no and then stop.")  # fmt: skip
    second, *_ = env.step("hmm")  # not "ASIDE:": asked again, with the paper's first retry suffix
    assert second.endswith("\n\nME: Please answer this question carefully. Have you informed the travel agent "
                           "about the place of departure? Answer this question with yes or no and then stop.")  # fmt: skip
    for _ in range(5):
        message, *_ = env.step("ASIDE: no")
    # The first request, after the instructions, as the paper sent it: no closing instruction (only logged).
    assert message == f"{initial[0]}\n\nTRAVEL-AGENT: When do you wish to start your journey?"


# ---------------------------------------------------------------- the paper's rules
def test_taboo_paper_rule_with_nltk_stop_words_catches_give_which_scikit_learns_list_skips():
    # Episode 36 plays high_en's instance 12: "provide", related word "give" (a scikit-learn stop word).
    env, _, info = reset("taboo", 36)
    assert (info["target"], "give" in info["related"]) == ("provide", True)
    clue = "to give something to someone"
    assert paper_hits(clue, ["provide", *info["related"]], nltk_stopwords()) == ["give ~ give"]
    assert paper_hits(clue, ["provide", *info["related"]]) == []  # scikit-learn's list skips "give"
    _, done, _, _ = env.step(f"CLUE: {clue}")[:4]
    assert done and env.outcome == "lose" and env.log[-2]["status"] == "violation"
    lenient, _, _ = reset("taboo", 36, stopwords="sklearn")
    lenient.step(f"CLUE: {clue}")
    assert lenient.outcome is None and lenient.log[-1]["status"] == "valid"


def test_wordle_paper_feedback_replicates_the_repeated_letter_bug():
    # Episode 15 plays the high band's instance 5: "title". Guess "acted": its t is in place.
    for feedback, shown in (("paper", "t<yellow>"), ("standard", "t<green>")):
        env, _, info = reset("wordle", 15, feedback=feedback)
        assert env.target.word == "title"
        message, *_ = env.step("guess: acted\nexplanation: a try")
        assert message.startswith(f"guess_feedback: a<red> c<red> {shown} e<yellow> d<red>"), feedback
        record = env.log[-1]
        assert (record["feedback"], record["feedback_paper"]) == (
            "a<red> c<red> t<green> e<yellow> d<red>", "a<red> c<red> t<yellow> e<yellow> d<red>")


def test_the_paper_preset_of_every_game_is_its_own_and_the_default_is_unchanged():
    for name in GAMES:
        paradigm = get_paradigm(name)
        assert set(paradigm.presets) == {"default", "paper"}
        default, preset = paradigm.presets["default"], paradigm.presets["paper"]
        assert default == paradigm.params_cls() and default.instances == "ours"
        assert preset.instances == "paper"
    assert get_paradigm("taboo").presets["paper"].taboo_rule == "paper"
    assert get_paradigm("taboo").presets["paper"].stopwords == "nltk"
    assert get_paradigm("wordle").presets["paper"].feedback == "paper"
    assert all(getattr(get_paradigm(g).presets["paper"], "messages", "paper") == "paper" for g in GAMES)


@pytest.mark.parametrize(
    ("game", "overrides", "named"),
    [("taboo", {"instances": "theirs"}, "'instances'"), ("taboo", {"stopwords": "spacy"}, "'stopwords'"),
     ("taboo", {"messages": "clembench"}, "'messages'"), ("wordle", {"feedback": "buggy"}, "'feedback'"),
     ("reference", {"instances": 1}, "'instances'"), ("image", {"messages": None}, "'messages'"),
     ("privateshared", {"instances": "ours", "messages": "paper"}, "'messages'")],
)  # fmt: skip
def test_bad_paper_parameters_are_refused_naming_the_parameter(game, overrides, named):
    with pytest.raises(ValueError, match=named):
        get_paradigm(game).make_params("paper", overrides=overrides)


@pytest.mark.parametrize("game", GAMES)
def test_every_paper_instance_plays_to_the_end_with_the_optimal_player(game):
    """All of them: a paper instance our game master cannot play would fail here, not in a run."""
    paradigm = get_paradigm(game)
    params = paradigm.make_params("paper")
    n = paper.episodes("wordle" if game.startswith("wordle") else game)
    scores = [paradigm.metrics(chance.play(paradigm, params, 1234, "optimal", index=i).log, params) for i in range(n)]
    assert all(s["clemscore"] == 100.0 and s["played"] == 1.0 for s in scores)
    json.dumps(scores, allow_nan=False)
