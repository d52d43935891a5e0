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
from probe_strategies import accuracy_by_condition

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
    # Checked by hand. Sam leaves before both moves of the sock (pot -> cupboard -> bucket): he still
    # thinks "pot", and so he thinks Sally (who made both moves, so knows "bucket") does; the lure is
    # the bucket where it really is; the true-belief version only moves "Sam left" after the last move.
    # Then Sally puts a ring in every container in turn, so that the bucket, the cupboard and the pot
    # are each named three times in all. Three containers, six questions: the pot (false beliefs), the
    # bucket (true belief, reality) and the cupboard (both memory questions, the one stop left) are
    # each the key of two.
    docs = FB.generate(0, 7)
    assert [d["prompt"] for d in docs[:6]] == [
        HEAD + STORY_0_FALSE + "Question: Where will Sam look for the sock?" + OPTIONS_0,
        HEAD + STORY_0_TRUE + "Question: Where will Sam look for the sock?" + OPTIONS_0,
        HEAD + STORY_0_FALSE + "Question: Where does Sam think that Sally will look for the sock?" + OPTIONS_0,
        HEAD + STORY_0_FALSE + "Question: Where is the sock really?" + OPTIONS_0,
        HEAD + STORY_0_FALSE + "Question: Where was the sock after it was moved the first time?" + OPTIONS_0,
        HEAD + STORY_0_FALSE + "Question: Where was the sock before it was moved the second time?" + OPTIONS_0,
    ]
    assert all(d["choices"] == ["bucket", "cupboard", "pot"] for d in docs[:6])
    assert [(d["condition"], d["gold"], d["lure"]) for d in docs[:6]] == [
        ("first_order_false", 2, 0), ("first_order_true", 0, -1), ("second_order_false", 2, 0),
        ("reality", 0, -1), ("memory", 1, -1), ("memory", 1, -1),
    ]
    assert {d["story"] for d in docs[:6]} == {0} and docs[6]["story"] == 1 and docs[0]["questions"] == 6
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
OBJECT_Q = re.compile(r"(?:look for|is|was) the (\w+)")
AFTER_Q = re.compile(r"after it was moved the (\w+) time\?$")
BEFORE_Q = re.compile(r"before it was moved the (\w+) time\?$")
ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}


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
    if m := AFTER_Q.search(question):  # after move j: the j-th placement after the start
        return placements[ORDINAL[m.group(1)]][1], truth
    if m := BEFORE_Q.search(question):  # before move j: where move j - 1 left it
        return placements[ORDINAL[m.group(1)] - 1][1], truth
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
        if cond == "second_order_false":  # P's false belief about Q's belief: not what Q itself saw last
            target = SECOND_Q.match(doc["question"]).group(2)
            assert answer != _last_seen_by(doc["prompt"], target)
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
    docs = FB.generate(6, 14 * 240)
    for condition in CONDITIONS:
        mine = [d for d in docs if d["condition"] == condition]
        for k in (3, 4):
            ranks = Counter(_recency(d) for d in mine if len(d["choices"]) == k)
            n = sum(ranks.values())
            if condition in ("reality", "first_order_true"):
                assert ranks == {r: n // k for r in range(k)}
            else:
                assert all(abs(ranks[r] / n - 1 / k) < 4 * math.sqrt((1 / k) * (1 - 1 / k) / n) for r in range(k))


def _first_questions(docs):
    return [d for d in docs if d["condition"] == "first_order_false"]


def test_stories_cover_the_designs():
    docs = _first_questions(FB.generate(7, 14 * 120))  # a story of 3 containers, then one of 4: 14 questions
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
    docs = FB.generate(8, 14 * 120)
    stops = Counter()
    for d in _first_questions(docs):
        placements, _, _ = _tracker(d["prompt"])
        stops[(d["moves"], [c for _, c in placements].index(d["choices"][d["gold"]]))] += 1
    assert stops == {(2, 0): 60, (2, 1): 60, (3, 0): 40, (3, 1): 40, (3, 2): 40}


def test_the_true_belief_version_shows_the_agent_the_last_move():
    # Both moves, or the last only (the reverse of "the first only"), as the displaced event falls.
    patterns = Counter()
    for true in [d for d in FB.generate(9, 1000) if d["condition"] == "first_order_true"]:
        placements, presence, question = _tracker(true["prompt"])
        agent = FIRST_Q.match(question).group(1)
        patterns[tuple(n in presence[agent] for n, _ in placements[1:])] += 1
    assert all(p[-1] for p in patterns)
    assert {(True, True), (False, True)} <= set(patterns)


def test_the_2k_questions_of_a_story_share_it_and_the_true_belief_story_is_a_reordering():
    docs = FB.generate(4, 14 * 25)
    for story in range(50):
        family = [d for d in docs if d["story"] == story]
        k = len(family[0]["choices"])
        assert len(family) == family[0]["questions"] == 2 * k
        assert [d["condition"] for d in family] == [*CONDITIONS[:4], *["memory"] * (2 * k - 4)]
        stories = [d["prompt"].split("\n\n")[1] for d in family]
        assert all(text == stories[0] for i, text in enumerate(stories) if i != 1)
        assert stories[1] != stories[0] and sorted(stories[1].split("\n")) == sorted(stories[0].split("\n"))
        assert family[0]["question"] == family[1]["question"]
        assert len({d["question"] for d in family}) == 2 * k - 1  # only the true-belief question repeats
        assert all(d["choices"] == family[0]["choices"] for d in family)


def test_every_container_is_the_key_of_exactly_two_questions_of_its_story():
    # So "always the true (last) location", "always the first location" or any other stop of the path
    # is the key of 2 of 2k questions: chance, 1/k, in every story (issue 28: 0.40 vs 0.29 on version 2).
    docs = FB.generate(5, 14 * 30)
    for story in range(60):
        family = [d for d in docs if d["story"] == story]
        keys = Counter(d["choices"][d["gold"]] for d in family)
        assert keys == {c: 2 for c in family[0]["choices"]}, keys


def test_second_order_questions_ask_about_a_target_who_saw_more_than_the_thinker_knows():
    # "Where does P think that Q will look?": P missed a move that Q saw, so the key is where P and Q
    # last saw the object together, neither the truth nor Q's own belief (Perner & Wimmer 1985); the
    # thinker is the protagonist, or a third agent who left before the last move.
    thinkers = Counter()
    for doc in [d for d in FB.generate(9, 1400) if d["condition"] == "second_order_false"]:
        thinker, target = SECOND_Q.match(doc["question"]).groups()[:2]
        key = doc["choices"][doc["gold"]]
        assert key == _last_seen_by(doc["prompt"], thinker, target) != _last_seen_by(doc["prompt"], target)
        thinkers["protagonist" if thinker == doc["agents"][0] else "other"] += 1
    assert thinkers["protagonist"] > 50 and thinkers["other"] > 5, thinkers


def test_no_two_stories_are_the_same_at_1200_items():
    docs = FB.generate(0, 1260)
    assert len({d["prompt"] for d in _first_questions(docs)}) == 180
    assert len({FB.identity(d) for d in docs}) == 1260


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

# Seed 0, stories 0-2 (documents 0-19), keys checked by hand:
#   story 0 (bucket, cupboard, pot):       FB pot (lure bucket), TB bucket, 2nd pot (lure bucket), reality bucket,
#                                          memory cupboard x2 (after move 1, before move 2)
#   story 1 (bin, jar, bag, box):          FB box (lure bin), TB bin, 2nd box, reality bin,
#                                          memory bag x2 (after move 1 / before move 2), jar x2 (move 2 / 3)
#   story 2 (cupboard, suitcase, trunk):   FB cupboard (lure suitcase), TB suitcase, 2nd cupboard, reality suitcase,
#                                          memory trunk x2 (at the beginning, before move 1)
ANSWERS = [
    "bucket", "Bucket.", "cupboard", "the bucket", "cupboard", "cupboard",  # FB lure, TB right, 2nd wrong, right x3
    "box", "**bin**", "bin", "bin", "bag", "bag", "jar", "jar",  # FB right, TB right, 2nd the lure, right x5
    "cupboard", "suitcase", "cupboard", "In the suitcase", "trunk", "trunk or cupboard",  # right x5, invalid
]


def _rows(n):
    docs = FB.generate(0, 20)
    return [FB.score_gen(doc, answer) for doc, answer in zip(docs[:n], ANSWERS[:n])]


def test_metrics_of_hand_built_answers():
    scores = aggregate(FB, _rows(20))
    # Correct: story 0: TB, reality, memory x2 (4); story 1: all but 2nd (7); story 2: all but the last (5) -> 16/20.
    assert scores["acc"] == pytest.approx(16 / 20) and scores["invalid_rate"] == pytest.approx(1 / 20)
    # acc_chance: 6 documents of 3 options, 8 of 4, 6 of 3: (2 + 2 + 2) / 20.
    assert scores["acc_chance"] == pytest.approx(6 / 20)
    assert scores["acc_first_order_false"] == pytest.approx(2 / 3) and scores["acc_first_order_true"] == 1.0
    assert scores["acc_second_order_false"] == pytest.approx(1 / 3) and scores["acc_memory"] == pytest.approx(7 / 8)
    # false_belief_effect = acc(TB) - acc(FB) = 1 - 2/3.
    assert scores["false_belief_effect"] == pytest.approx(1 / 3)
    # joint: story 0 FB wrong -> 0; story 1 FB, reality, all memory right -> 1; story 2 a memory answer invalid -> 0.
    assert scores["joint_false_belief"] == pytest.approx(1 / 3)
    # Errors on lured questions: story 0 FB (the lure), story 0 2nd (cupboard, not the lure), story 1 2nd (lure): 2/3.
    assert scores["reality_error_share"] == pytest.approx(2 / 3)


def test_an_incomplete_last_story_is_left_out_of_the_joint_score():
    # --limit 17: story 2 has only FB, TB and 2nd -> the joint is story 0 (0) and story 1 (1): 1/2;
    # the other effects keep document 14 (story 2's FB, right): acc(FB) = 2/3 still.
    scores = aggregate(FB, _rows(17))
    assert scores["joint_false_belief"] == pytest.approx(1 / 2)
    assert scores["false_belief_effect"] == pytest.approx(1 / 3)
    assert math.isnan(aggregate(FB, _rows(4))["joint_false_belief"])


def test_joint_score_aggregation_by_hand():
    items = [
        (0, "first_order_false", 1.0, 6), (0, "first_order_true", 0.0, 6), (0, "second_order_false", 0.0, 6),
        (0, "reality", 1.0, 6), (0, "memory", 1.0, 6), (0, "memory", 1.0, 6),  # 1: FB, reality, memory right
        (1, "first_order_false", 1.0, 6), (1, "first_order_true", 1.0, 6), (1, "second_order_false", 1.0, 6),
        (1, "reality", 1.0, 6), (1, "memory", 1.0, 6), (1, "memory", 0.0, 6),  # 0: a memory question wrong
        (2, "memory", 1.0, 6), (2, "first_order_false", 1.0, 6), (2, "reality", 1.0, 6),  # incomplete: ignored
    ]
    assert joint_false_belief(items) == pytest.approx(1 / 2)
    assert joint_false_belief(list(reversed(items))) == pytest.approx(1 / 2)
    assert math.isnan(joint_false_belief(items[12:])) and math.isnan(joint_false_belief([]))


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
    # Chance of FB, reality and the 2k - 4 memory answers all right is 1/k^(2k - 2): (1/81 + 1/4096) / 2 over k = 3, 4.
    assert scores["joint_false_belief"] == pytest.approx((1 / 81 + 1 / 4096) / 2, abs=0.012)


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


# -- the declared heuristics and the cheap strategies of issue 28 -------------------------------
HEURISTICS = {h.name: h for h in FB.heuristics}
HAND_STORY = HEAD + (
    "The kitchen contains a box, a jar and a bag.\nAnne entered the kitchen.\nBen entered the kitchen.\n"
    "The key is in the box.\nBen moved the key to the jar.\nAnne left the kitchen.\nBen moved the key to the bag.\n"
    "Ben put a coin in the bag.\nBen moved the coin to the box.\nBen moved the coin to the jar.\n\nQuestion: {}"
)
HAND_OPTIONS = ["box", "jar", "bag"]


def _hand(question):
    return HAND_STORY.format(question)


@pytest.mark.parametrize("question", ["Where will Anne look for the key?", "Where was the key at the beginning?"])
def test_reality_bias_answers_the_true_location_and_first_location_the_start_whatever_the_question(question):
    # The key went box -> jar -> bag: reality bias says bag, the first location box, for any question.
    assert HEURISTICS["reality_bias"].scores(_hand(question), HAND_OPTIONS) == [0.0, 0.0, 1.0]
    assert HEURISTICS["first_location"].scores(_hand(question), HAND_OPTIONS) == [1.0, 0.0, 0.0]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Where will Anne look for the key?", [0.0, 1.0, 0.0]),  # Anne left after the first move: the jar
        ("Where does Anne think that Ben will look for the key?", [0.0, 0.0, 1.0]),  # Ben saw it all: the bag
        ("Where is the key really?", [0.0, 1.0, 0.0]),  # no one named: the protagonist (first to leave), Anne
    ],
)
def test_looker_last_saw_answers_where_the_person_asked_about_last_saw_the_object(question, expected):
    assert HEURISTICS["looker_last_saw"].scores(_hand(question), HAND_OPTIONS) == expected


def test_most_named_picks_the_container_the_story_names_most():
    # Each container is named three times (the room, the key, the coin): a tie, so no basis; one more
    # sentence about the box makes it the pick.
    stem = _hand("Where is the key really?")
    assert HEURISTICS["most_named"].scores(stem, HAND_OPTIONS) == [3.0, 3.0, 3.0]
    more = stem.replace("Ben moved the coin to the jar.", "Ben moved the coin to the jar.\nAnne looked at the box.")
    assert HEURISTICS["most_named"].scores(more, HAND_OPTIONS) == [4.0, 3.0, 3.0]


def _last_location(stem, options):
    """Issue 28's strategy, as the review wrote it: always the object's last location (read independently)."""
    placements, _, _ = _tracker(stem)
    return [float(o == placements[-1][1]) for o in options]


def _headline(docs, scores):
    """Mean credit of a stem/options strategy over ``docs``, cut and credited as the audit does."""
    from lm_eval_cog.audit.probes import doc_item
    from lm_eval_cog.audit.strategies import credit

    total = 0.0
    for doc in docs:
        item = doc_item(doc)
        got = scores(item.stem, item.options)
        total += 1 / len(item.options) if got is None else credit(list(got), item.gold)
    return total / len(docs)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_always_the_last_location_and_every_declared_heuristic_are_at_chance_on_the_headline(seed):
    # Issue 28: "always the object's last location" scored 0.40 pooled vs chance 0.29 on version 2.
    # Every container is the key of two of its story's 2k questions, so it now scores 1/k exactly (the
    # mean over documents equals chance, 2/7 for 3- and 4-container stories); so do the first location
    # and the looker's last sight; the most-named container is a tie.
    docs = FB.generate(seed, 420)
    chance = sum(1 / len(d["choices"]) for d in docs) / len(docs)
    assert _headline(docs, _last_location) == pytest.approx(chance)
    for heuristic in FB.heuristics:
        accuracy = _headline(docs, heuristic.scores)
        assert accuracy <= chance + 0.05, (heuristic.name, accuracy, chance)
        if heuristic.name in ("reality_bias", "first_location", "looker_last_saw", "most_named"):
            assert accuracy == pytest.approx(chance, abs=0.01), (heuristic.name, accuracy, chance)


def test_the_conditions_report_reality_bias_where_it_is_the_tested_error():
    # The headline does not reward reality bias; the conditions show where it is right and wrong.
    accuracy = accuracy_by_condition("false_belief", HEURISTICS["reality_bias"], 11, 420)
    assert accuracy["first_order_false"] == accuracy["second_order_false"] == accuracy["memory"] == 0.0
    assert accuracy["first_order_true"] == accuracy["reality"] == 1.0


def test_no_surface_strategy_or_learned_detector_finds_a_key_in_any_condition():
    # The audit pools the conditions (each fixes its key's role, so the declared heuristics are right or
    # wrong there by design); here each condition is its own cell, for the surface strategies and the
    # detectors trained on seeds 14-15.
    from lm_eval_cog.audit.probes import doc_item
    from lm_eval_cog.audit.run import audit_task
    from lm_eval_cog.audit.table import flag, to_text

    def items(seeds, n):
        return [doc_item(d) for seed in seeds for d in FB.generate(seed, n)]

    rows = flag(audit_task("cog_false_belief_mc", items((11, 12, 13), 280), train=items((14, 15), 140),
                           heuristics=())[0])
    assert not [r for r in rows if r.flagged], to_text([r for r in rows if r.flagged])
