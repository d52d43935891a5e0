"""False-belief stories: pinned items, an independent belief tracker, the effects by hand."""

from __future__ import annotations

import math
import re

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.false_belief import CONDITIONS, joint_false_belief
from lm_eval_cog.probes.reference import aggregate, play

FB = get_probe("false_belief")

HEAD = "Read the story and answer the question with one of the containers.\n\n"
STORY_0_FALSE = (
    "The kitchen contains a hamper, a crate, a suitcase and a bag.\n"
    "Nora entered the kitchen.\nSally entered the kitchen.\nThe marble is in the bag.\n"
    "Sally left the kitchen.\nNora moved the marble from the bag to the hamper.\n\n"
)
STORY_0_TRUE = (
    "The kitchen contains a hamper, a crate, a suitcase and a bag.\n"
    "Nora entered the kitchen.\nSally entered the kitchen.\nThe marble is in the bag.\n"
    "Nora moved the marble from the bag to the hamper.\nSally left the kitchen.\n\n"
)
OPTIONS_0 = "\nOptions: bag, hamper, crate, suitcase."


def test_first_story_of_seed_0_is_pinned():
    # Checked by hand. Sally leaves before Nora moves the marble from the bag to the
    # hamper: she (and, in her mind, Nora) still thinks "bag", the lure is the hamper
    # where it really is; the true-belief version only moves "Sally left" after the move.
    docs = FB.generate(0, 5)
    assert [d["prompt"] for d in docs] == [
        HEAD + STORY_0_FALSE + "Question: Where will Sally look for the marble?" + OPTIONS_0,
        HEAD + STORY_0_TRUE + "Question: Where will Sally look for the marble?" + OPTIONS_0,
        HEAD + STORY_0_FALSE + "Question: Where does Sally think that Nora will look for the marble?" + OPTIONS_0,
        HEAD + STORY_0_FALSE + "Question: Where is the marble really?" + OPTIONS_0,
        HEAD + STORY_0_FALSE + "Question: Where was the marble at the beginning?" + OPTIONS_0,
    ]
    assert all(d["choices"] == ["bag", "hamper", "crate", "suitcase"] for d in docs)
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [
        ("first_order_false", 0, 1), ("first_order_true", 1, -1), ("second_order_false", 0, 1),
        ("reality", 1, -1), ("memory", 0, -1),
    ]
    assert {d["story"] for d in docs} == {0} and FB.generate(0, 6)[5]["story"] == 1


# -- an independent belief tracker: parse the story's sentences, compute each agent's
# presence as line intervals, then answer from the last move inside them ----------------

ENTER = re.compile(r"^(\w+) entered the (\w+)\.$")
LEAVE = re.compile(r"^(\w+) left the (\w+)\.$")
START = re.compile(r"^The (\w+) is in the (\w+)\.$")
MOVE = re.compile(r"^(\w+) moved the (\w+) from the (\w+) to the (\w+)\.$")
FIRST_Q = re.compile(r"^Where will (\w+) look for the (\w+)\?$")
SECOND_Q = re.compile(r"^Where does (\w+) think that (\w+) will look for the (\w+)\?$")


def _parse(prompt):
    story = prompt.split("\n\n")[1].split("\n")
    question = prompt.split("\n\n")[2].split("\n")[0].removeprefix("Question: ")
    contained = re.match(r"^The (\w+) contains (.+)\.$", story[0]).group(2)
    containers = re.split(r", | and ", contained.replace("a ", ""))
    return containers, story[1:], question


def _presence(lines):
    """Agent -> set of line numbers at which the agent is in the room."""
    inside, since = {}, {}
    for n, line in enumerate(lines):
        if m := ENTER.match(line):
            since[m.group(1)] = n
        elif m := LEAVE.match(line):
            inside.setdefault(m.group(1), set()).update(range(since.pop(m.group(1)), n))
    for agent, n in since.items():
        inside.setdefault(agent, set()).update(range(n, len(lines)))
    return inside


def _tracker(prompt):
    """(placements, presence, question) of a document: every (line, container) that puts
    the object somewhere, and each agent's lines in the room."""
    _, lines, question = _parse(prompt)
    presence = _presence(lines)
    placements = []
    for n, line in enumerate(lines):
        if m := START.match(line):
            placements.append((n, m.group(2)))
        elif m := MOVE.match(line):
            assert n in presence[m.group(1)], "the mover is in the room"
            assert m.group(3) == placements[-1][1], "a move starts where the object is"
            placements.append((n, m.group(4)))
    assert START.match(lines[placements[0][0]]) and all(placements[0][0] in s for s in presence.values())
    return placements, presence, question


def _last_seen_by(prompt, *agents):
    """Where the object was after the last placement all ``agents`` watched together."""
    placements, presence, _ = _tracker(prompt)
    return [c for n, c in placements if all(n in presence[a] for a in agents)][-1]


def _key(prompt):
    """(answer, true location) of a document, from its text alone."""
    placements, _, question = _tracker(prompt)
    truth = placements[-1][1]
    if m := FIRST_Q.match(question):
        return _last_seen_by(prompt, m.group(1)), truth
    if m := SECOND_Q.match(question):
        return _last_seen_by(prompt, m.group(1), m.group(2)), truth
    if question.endswith("really?"):
        return truth, truth
    assert question.endswith("at the beginning?")
    return placements[0][1], truth


@pytest.mark.parametrize(
    ("seed", "params"),
    [(1, {}), (2, {"max_containers": 6, "three_agents": 1.0, "distractor": 1.0}), (3, {"three_agents": 0.0, "distractor": 0.0})],
)
def test_every_key_and_lure_follow_from_the_story_text(seed, params):
    docs = FB.generate(seed, 400, FB.make_params(params))
    for doc in docs:
        containers, _, _ = _parse(doc["prompt"])
        assert sorted(doc["choices"]) == sorted(containers)
        assert doc["prompt"].endswith(f"Options: {', '.join(doc['choices'])}.")
        answer, truth = _key(doc["prompt"])
        assert doc["choices"][doc["gold"]] == answer, doc["prompt"]
        cond = doc["condition"]
        if cond in ("first_order_false", "second_order_false"):
            assert answer != truth and doc["choices"][doc["lure"]] == truth
        else:
            assert doc["lure"] == -1
        if cond == "first_order_true":
            assert answer == truth


def test_the_five_questions_of_a_story_share_it_and_the_true_belief_story_is_a_reordering():
    docs = FB.generate(4, 300)
    for k in range(0, 300, 5):
        family = docs[k : k + 5]
        assert [d["condition"] for d in family] == list(CONDITIONS) and {d["story"] for d in family} == {k // 5}
        stories = [d["prompt"].split("\n\n")[1] for d in family]
        assert stories[0] == stories[2] == stories[3] == stories[4]
        assert stories[1] != stories[0] and sorted(stories[1].split("\n")) == sorted(stories[0].split("\n"))
        assert family[0]["question"] == family[1]["question"]
        assert all(d["choices"] == family[0]["choices"] for d in family)


def test_stories_cover_the_designs():
    every = FB.generate(5, 1000)
    docs = every[::5]
    assert {len(d["choices"]) for d in docs} == {2, 3, 4}
    assert {len(d["agents"]) for d in docs} == {2, 3}
    assert {d["variant"] for d in docs} == {"late_leave", "reentry"}
    assert {d["third_agent"] for d in docs} == {"none", "stays", "leaves_early", "leaves_late"}
    assert {d["distractor"] for d in docs} == {True, False}
    assert not any(d["distractor"] for d in docs if len(d["choices"]) == 2)
    # A distractor move watched by all makes the false belief differ from the start
    # location, so answering "where it was first" does not pass the false-belief question.
    false_vs_memory = [
        (d["distractor"], d["choices"][d["gold"]] != every[k + 4]["choices"][every[k + 4]["gold"]])
        for k, d in zip(range(0, 1000, 5), docs)
    ]
    assert all(differ for distractor, differ in false_vs_memory if distractor)
    assert not any(differ for distractor, differ in false_vs_memory if not distractor)


def test_second_order_questions_ask_both_the_ignorant_and_the_knowing_agent():
    # "Where does P think that Q will look?" with P who missed the move (answer = P's own
    # belief) and with P who watched it while Q was away (answer = Q's belief, not P's).
    own = other = 0
    for doc in FB.generate(9, 1000)[2::5]:
        thinker = SECOND_Q.match(doc["question"]).group(1)
        same = _last_seen_by(doc["prompt"], thinker) == doc["choices"][doc["gold"]]
        own, other = own + same, other + (not same)
    assert own > 40 and other > 40, (own, other)


def test_documents_have_the_same_fields_and_types_everywhere():
    docs = FB.generate(6, 200)
    shape = {k: type(v) for k, v in docs[0].items()}
    for doc in docs:
        assert {k: type(v) for k, v in doc.items()} == shape
        assert all(isinstance(a, str) for a in doc["agents"]) and all(isinstance(c, str) for c in doc["choices"])


def test_document_i_depends_only_on_seed_and_i():
    assert FB.generate(7, 12)[:7] == FB.generate(7, 7)
    assert FB.generate(7, 5) != FB.generate(8, 5)
    assert len({d["seed"] for d in FB.generate(7, 5)}) == 5  # the players' randomness is per document


# -- metrics by hand --------------------------------------------------------------------

# Seed 0, stories 0-2 (documents 0-14), keys checked by hand:
#   story 0 (bag, hamper, crate, suitcase): FB bag (lure hamper), TB hamper, 2nd bag (lure hamper), reality hamper, memory bag
#   story 1 (basket, drawer):               FB drawer (lure basket), TB basket, 2nd drawer, reality basket, memory drawer
#   story 2 (basket, trunk, tub):           FB trunk (lure basket), TB basket, 2nd trunk, reality basket, memory tub
ANSWERS = [
    "hamper", "Hamper.", "crate", "the hamper", "bag",  # FB wrong (lure), TB right, 2nd wrong (not lure), right, right
    "drawer", "**basket**", "basket", "basket", "drawer",  # FB right, TB right, 2nd wrong (lure), right, right
    "trunk", "basket", "trunk", "In the basket", "trunk or tub",  # right x4, memory invalid
]


def _rows(n):
    docs = FB.generate(0, 15)
    return [FB.score_gen(doc, answer) for doc, answer in zip(docs[:n], ANSWERS[:n])]


def test_metrics_of_hand_built_answers():
    scores = aggregate(FB, _rows(15))
    # Correct: story 0: TB, reality, memory (3); story 1: FB, TB, reality, memory (4); story 2: 4 -> 11/15.
    assert scores["acc"] == pytest.approx(11 / 15) and scores["invalid_rate"] == pytest.approx(1 / 15)
    # acc_chance: five documents each of 4, 2 and 3 options: (1/4 + 1/2 + 1/3) / 3 = 13/36.
    assert scores["acc_chance"] == pytest.approx(13 / 36)
    assert scores["acc_first_order_false"] == pytest.approx(2 / 3) and scores["acc_first_order_true"] == 1.0
    assert scores["acc_second_order_false"] == pytest.approx(1 / 3) and scores["acc_memory"] == pytest.approx(2 / 3)
    # false_belief_effect = acc(TB) - acc(FB) = 1 - 2/3.
    assert scores["false_belief_effect"] == pytest.approx(1 / 3)
    # joint: story 0 FB wrong -> 0; story 1 FB, reality, memory right -> 1; story 2 memory invalid -> 0: 1/3.
    assert scores["joint_false_belief"] == pytest.approx(1 / 3)
    # Errors on lured questions: story 0 FB (the lure), story 0 2nd (crate, not the lure), story 1 2nd (lure): 2/3.
    assert scores["reality_error_share"] == pytest.approx(2 / 3)


def test_an_incomplete_last_story_is_left_out_of_the_joint_score():
    # --limit 13: story 2 has only FB, TB and 2nd -> the joint is story 0 (0) and story 1 (1): 1/2;
    # the other effects keep document 10 (story 2's FB, right): acc(FB) = 2/3 still.
    scores = aggregate(FB, _rows(13))
    assert scores["joint_false_belief"] == pytest.approx(1 / 2)
    assert scores["false_belief_effect"] == pytest.approx(1 / 3)
    assert math.isnan(aggregate(FB, _rows(4))["joint_false_belief"])


def test_joint_score_aggregation_by_hand():
    items = [
        (0, "first_order_false", 1.0), (0, "first_order_true", 0.0), (0, "second_order_false", 0.0),
        (0, "reality", 1.0), (0, "memory", 1.0),  # 1: FB, reality, memory right (TB, 2nd do not count)
        (1, "first_order_false", 1.0), (1, "first_order_true", 1.0), (1, "second_order_false", 1.0),
        (1, "reality", 0.0), (1, "memory", 1.0),  # 0: reality wrong
        (2, "memory", 1.0), (2, "first_order_false", 1.0), (2, "reality", 1.0),  # incomplete: ignored
    ]
    assert joint_false_belief(items) == pytest.approx(1 / 2)
    assert joint_false_belief(list(reversed(items))) == pytest.approx(1 / 2)
    assert math.isnan(joint_false_belief(items[10:])) and math.isnan(joint_false_belief([]))


def test_the_reality_answerer_shows_the_full_false_belief_effect():
    docs = FB.generate(0, 300)
    for form in ("gen", "mc"):
        scores = play(FB, "prepotent", docs, form)
        assert scores["acc_first_order_false"] == scores["acc_second_order_false"] == 0.0
        assert scores["acc_first_order_true"] == scores["acc_reality"] == scores["acc_memory"] == 1.0
        assert scores["false_belief_effect"] == 1.0 and scores["joint_false_belief"] == 0.0
        assert scores["reality_error_share"] == 1.0
    assert play(FB, "prepotent", docs, "mc")["lure_margin"] == -1.0


def test_random_player_shows_no_false_belief_effect_beyond_noise():
    scores = play(FB, "random", FB.generate(0, 3000), "gen")
    assert abs(scores["false_belief_effect"]) < 3.5 * math.sqrt(2 * 0.25 / 600)
    # Chance of three right answers is 1/k^3: about (1/8 + 1/27 + 1/64) / 3 = 0.059 over k = 2, 3, 4.
    assert scores["joint_false_belief"] == pytest.approx((1 / 8 + 1 / 27 + 1 / 64) / 3, abs=0.03)


# -- reading answers --------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "expected"), [("hamper", 1), ("**Hamper.**", 1), ("The hamper", 1), ("in the bag", 0), ("'Bag'", 0)])
def test_decorated_container_names_are_read(answer, expected):
    assert FB.read(FB.generate(0, 1)[0], answer) == expected


@pytest.mark.parametrize(
    "answer", ["", "bag or hamper", "Sally will look in the bag", "probably the bag", "fridge", "1", "the", "[invalid]"]
)
def test_other_answers_are_invalid(answer):
    doc = FB.generate(0, 1)[0]
    assert FB.read(doc, answer) is None
    assert FB.score_gen(doc, answer)["invalid_rate"] == 1.0


# -- parameters --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "name"),
    [
        ({"min_containers": 1}, "min_containers"), ({"min_containers": 0}, "min_containers"),
        ({"max_containers": 7}, "max_containers"), ({"min_containers": 4, "max_containers": 3}, "max_containers"),
        ({"three_agents": 1.5}, "three_agents"), ({"distractor": -0.1}, "distractor"),
        ({"max_containers": 2}, "distractor"), ({"max_containers": 2.5}, "max_containers"),
        ({"containers": 3}, "containers"),
    ],
)
def test_bad_parameters_name_themselves(overrides, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        FB.make_params(overrides)


def test_two_containers_without_distractor_is_allowed():
    docs = FB.generate(0, 50, FB.make_params({"max_containers": 2, "distractor": 0.0}))
    assert {len(d["choices"]) for d in docs} == {2}
