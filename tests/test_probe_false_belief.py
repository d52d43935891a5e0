"""False-belief stories: pinned items, an independent belief tracker, the balance of the
containers' mentions, the effects by hand."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.false_belief import CONDITIONS, joint_false_belief
from lm_eval_cog.probes.reference import aggregate, play

FB = get_probe("false_belief")

HEAD = "Read the story and answer the question with one of the containers.\n\n"
STORY_0 = (
    "The garden contains a bucket, a pot and a cupboard.\n"
    "Nora entered the garden.\nSally entered the garden.\nSam entered the garden.\nThe sock is in the pot.\n"
    "{false}"
    "Sally put a ring in the bucket.\nSally moved the ring to the cupboard.\nSally moved the ring to the pot.\n\n"
)
STORY_0_FALSE = STORY_0.format(false=(
    "Sam left the garden.\nSally moved the sock to the cupboard.\nNora left the garden.\n"
    "Sally moved the sock to the bucket.\n"
))
STORY_0_TRUE = STORY_0.format(false=(
    "Sally moved the sock to the cupboard.\nNora left the garden.\nSally moved the sock to the bucket.\n"
    "Sam left the garden.\n"
))
OPTIONS_0 = "\nOptions: bucket, cupboard, pot."


def test_first_story_of_seed_0_is_pinned():
    # Checked by hand. Sam leaves before both moves of the sock (pot -> cupboard -> bucket): he (and, in
    # his mind, Nora, who left after the first move) still thinks "pot"; the lure is the bucket where it
    # really is; the true-belief version only moves "Sam left" after the last move. Then Sally puts a
    # ring in every container in turn, so that the bucket, the cupboard and the pot are each named
    # three times in all.
    docs = FB.generate(0, 5)
    assert [d["prompt"] for d in docs] == [
        HEAD + STORY_0_FALSE + "Question: Where will Sam look for the sock?" + OPTIONS_0,
        HEAD + STORY_0_TRUE + "Question: Where will Sam look for the sock?" + OPTIONS_0,
        HEAD + STORY_0_FALSE + "Question: Where does Sam think that Nora will look for the sock?" + OPTIONS_0,
        HEAD + STORY_0_FALSE + "Question: Where is the sock really?" + OPTIONS_0,
        HEAD + STORY_0_FALSE + "Question: Where was the sock at the beginning?" + OPTIONS_0,
    ]
    assert all(d["choices"] == ["bucket", "cupboard", "pot"] for d in docs)
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs] == [
        ("first_order_false", 2, 0), ("first_order_true", 0, -1), ("second_order_false", 2, 0),
        ("reality", 0, -1), ("memory", 2, -1),
    ]
    assert {d["story"] for d in docs} == {0} and FB.generate(0, 6)[5]["story"] == 1
    assert docs[0]["seen"] == [False, False] and docs[0]["moves"] == 2


# -- an independent belief tracker: parse the story's sentences, compute each agent's
# presence as line intervals, then answer from the last move of the asked object inside them ----

ENTER = re.compile(r"^(\w+) entered the (\w+)\.$")
LEAVE = re.compile(r"^(\w+) left the (\w+)\.$")
START = re.compile(r"^The (\w+) is in the (\w+)\.$")
PUT = re.compile(r"^(\w+) put a (\w+) in the (\w+)\.$")
MOVE = re.compile(r"^(\w+) moved the (\w+) to the (\w+)\.$")
FIRST_Q = re.compile(r"^Where will (\w+) look for the (\w+)\?$")
SECOND_Q = re.compile(r"^Where does (\w+) think that (\w+) will look for the (\w+)\?$")
OBJECT_Q = re.compile(r"the (\w+)(?: really| at the beginning)?\?$")


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
    """(placements, presence, question) of a document: every (line, container) that puts the asked
    object somewhere (the other object's lines are skipped), and each agent's lines in the room."""
    _, lines, question = _parse(prompt)
    asked = OBJECT_Q.search(question).group(1)
    presence = _presence(lines)
    placements = []
    for n, line in enumerate(lines):
        if (m := START.match(line)) and m.group(1) == asked:
            placements.append((n, m.group(2)))
        elif (m := MOVE.match(line)) and m.group(2) == asked:
            assert n in presence[m.group(1)], "the mover is in the room"
            placements.append((n, m.group(3)))
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
    [(1, {}), (2, {"max_containers": 6, "three_agents": 1.0}), (3, {"three_agents": 0.0}),
     (4, {"min_containers": 2, "max_containers": 2})],
)
def test_every_key_and_lure_follow_from_the_story_text(seed, params):
    docs = FB.generate(seed, 400, FB.make_params(params))
    for doc in docs:
        containers, lines, _ = _parse(doc["prompt"])
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
        # The asked object visits every container once; the other object too, after everything else.
        placements, _, _ = _tracker(doc["prompt"])
        assert sorted(c for _, c in placements) == sorted(containers) and doc["moves"] == len(containers) - 1
        mine = dict(placements)
        other = [n for n, line in enumerate(lines) if PUT.match(line) or (MOVE.match(line) and n not in mine)]
        assert len(other) == len(containers) and min(other) > max(n for n, _ in placements)


def test_every_container_is_named_as_often_as_any_other():
    for doc in FB.generate(5, 400):
        story = doc["prompt"].split("\n\n")[1]
        counts = {c: len(re.findall(rf"\b{c}\b", story)) for c in doc["choices"]}
        assert set(counts.values()) == {3}, counts  # the room's description, the object, the other object


def _recency(doc):
    """The key's rank among the containers by their last mention in the story (0 = most recent)."""
    story = doc["prompt"].split("\n\n")[1]
    last = {c: max(m.start() for m in re.finditer(rf"\b{c}\b", story)) for c in doc["choices"]}
    return sorted(last.values(), reverse=True).index(last[doc["choices"][doc["gold"]]])


def test_the_last_named_container_is_no_key_more_often_than_chance():
    # The true location (reality, true belief) is each rank by construction; the other keys by chance.
    docs = FB.generate(6, 5 * 480)
    for condition in CONDITIONS:
        mine = [d for d in docs if d["condition"] == condition]
        for k in (3, 4):
            ranks = Counter(_recency(d) for d in mine if len(d["choices"]) == k)
            n = sum(ranks.values())
            if condition in ("reality", "first_order_true"):
                assert ranks == {r: n // k for r in range(k)}
            else:
                assert all(abs(ranks[r] / n - 1 / k) < 4 * math.sqrt((1 / k) * (1 - 1 / k) / n) for r in range(k))


def test_stories_cover_the_designs():
    docs = FB.generate(7, 1200)[::5]
    assert Counter(len(d["choices"]) for d in docs) == {3: 120, 4: 120}
    assert {len(d["agents"]) for d in docs} == {2, 3}
    assert {d["variant"] for d in docs} == {"late_leave", "reentry"}
    assert {d["third_agent"] for d in docs} == {"none", "stays", "leaves_early", "leaves_late"}
    # What A sees of the moves: neither, the first only (two moves); also the first two, or the second
    # only (three moves); never the last.
    assert {tuple(d["seen"]) for d in docs} == {
        (False, False), (True, False), (False, False, False), (True, False, False), (True, True, False),
        (False, True, False),
    }


def test_false_beliefs_point_at_every_earlier_stop_equally_often():
    # A's belief is the start, the first stop (and the second) equally often: "the first location" is no key.
    docs = FB.generate(8, 5 * 240)
    stops = Counter()
    for d in docs[::5]:
        placements, _, _ = _tracker(d["prompt"])
        stops[(d["moves"], [c for _, c in placements].index(d["choices"][d["gold"]]))] += 1
    assert stops == {(2, 0): 60, (2, 1): 60, (3, 0): 40, (3, 1): 40, (3, 2): 40}


def test_the_true_belief_version_shows_the_agent_the_last_move():
    # Both moves, or the last only (the reverse of "the first only"), as the displaced event falls.
    patterns = Counter()
    for true in FB.generate(9, 1000)[1::5]:
        placements, presence, question = _tracker(true["prompt"])
        agent = FIRST_Q.match(question).group(1)
        patterns[tuple(n in presence[agent] for n, _ in placements[1:])] += 1
    assert all(p[-1] for p in patterns)
    assert {(True, True), (False, True)} <= set(patterns)


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


def test_second_order_questions_ask_both_the_ignorant_and_the_knowing_agent():
    # "Where does P think that Q will look?" with P who missed the move (answer = P's own
    # belief) and with P who watched it while Q was away (answer = Q's belief, not P's).
    own = other = 0
    for doc in FB.generate(9, 1000)[2::5]:
        thinker = SECOND_Q.match(doc["question"]).group(1)
        same = _last_seen_by(doc["prompt"], thinker) == doc["choices"][doc["gold"]]
        own, other = own + same, other + (not same)
    assert own > 40 and other > 40, (own, other)


def test_no_two_stories_are_the_same_at_1200_items():
    docs = FB.generate(0, 1200)
    assert len({d["prompt"] for d in docs[::5]}) == 240
    assert len({FB.identity(d) for d in docs}) == 1200


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
#   story 0 (bucket, cupboard, pot):      FB pot (lure bucket), TB bucket, 2nd pot (lure bucket), reality bucket,
#                                         memory pot
#   story 1 (box, suitcase, bag, basket): FB bag (lure box), TB box, 2nd bag, reality box, memory bag
#   story 2 (chest, basket, trunk):       FB chest (lure basket), TB basket, 2nd chest, reality basket, memory trunk
ANSWERS = [
    "bucket", "Bucket.", "cupboard", "the bucket", "pot",  # FB wrong (lure), TB right, 2nd wrong (not lure), right x2
    "bag", "**box**", "box", "box", "bag",  # FB right, TB right, 2nd wrong (lure), right, right
    "chest", "basket", "chest", "In the basket", "trunk or chest",  # right x4, memory invalid
]


def _rows(n):
    docs = FB.generate(0, 15)
    return [FB.score_gen(doc, answer) for doc, answer in zip(docs[:n], ANSWERS[:n])]


def test_metrics_of_hand_built_answers():
    scores = aggregate(FB, _rows(15))
    # Correct: story 0: TB, reality, memory (3); story 1: FB, TB, reality, memory (4); story 2: 4 -> 11/15.
    assert scores["acc"] == pytest.approx(11 / 15) and scores["invalid_rate"] == pytest.approx(1 / 15)
    # acc_chance: five documents each of 3, 4 and 3 options: (1/3 + 1/4 + 1/3) / 3 = 11/36.
    assert scores["acc_chance"] == pytest.approx(11 / 36)
    assert scores["acc_first_order_false"] == pytest.approx(2 / 3) and scores["acc_first_order_true"] == 1.0
    assert scores["acc_second_order_false"] == pytest.approx(1 / 3) and scores["acc_memory"] == pytest.approx(2 / 3)
    # false_belief_effect = acc(TB) - acc(FB) = 1 - 2/3.
    assert scores["false_belief_effect"] == pytest.approx(1 / 3)
    # joint: story 0 FB wrong -> 0; story 1 FB, reality, memory right -> 1; story 2 memory invalid -> 0: 1/3.
    assert scores["joint_false_belief"] == pytest.approx(1 / 3)
    # Errors on lured questions: story 0 FB (the lure), story 0 2nd (cupboard, not the lure), story 1 2nd (lure): 2/3.
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
        assert scores["acc_first_order_true"] == scores["acc_reality"] == 1.0
        assert scores["false_belief_effect"] == 1.0 and scores["joint_false_belief"] == 0.0
        assert scores["reality_error_share"] == 1.0
    assert play(FB, "prepotent", docs, "mc")["lure_margin"] == -1.0


def test_random_player_shows_no_false_belief_effect_beyond_noise():
    scores = play(FB, "random", FB.generate(0, 3000), "gen")
    assert abs(scores["false_belief_effect"]) < 3.5 * math.sqrt(2 * 0.25 / 600)
    # Chance of three right answers is 1/k^3: about (1/27 + 1/64) / 2 = 0.026 over k = 3, 4.
    assert scores["joint_false_belief"] == pytest.approx((1 / 27 + 1 / 64) / 2, abs=0.02)


# -- reading answers --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"), [("pot", 2), ("**Pot.**", 2), ("The pot", 2), ("in the bucket", 0), ("'Bucket'", 0)]
)
def test_decorated_container_names_are_read(answer, expected):
    assert FB.read(FB.generate(0, 1)[0], answer) == expected


@pytest.mark.parametrize(
    "answer", ["", "pot or bucket", "Sam will look in the pot", "probably the pot", "fridge", "1", "the", "[invalid]"]
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
        ({"three_agents": 1.5}, "three_agents"), ({"max_containers": 2.5}, "max_containers"),
        ({"distractor": 0.5}, "distractor"), ({"containers": 3}, "containers"),
    ],
)
def test_bad_parameters_name_themselves(overrides, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        FB.make_params(overrides)


def test_two_containers_make_one_move_stories():
    docs = FB.generate(0, 50, FB.make_params({"min_containers": 2, "max_containers": 2}))
    assert {len(d["choices"]) for d in docs} == {2} and {d["moves"] for d in docs} == {1}
