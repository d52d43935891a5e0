"""Rule execution (SCAN-style): pinned items, keys and slips re-derived by a recursive-descent
interpreter of the prompt, balanced options, effects by hand, the reading-order player, strict reading."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from scipy.stats import chisquare

from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

RULE = get_probe("rule_execution")

RULES_TEXT = (
    "Rules (V stands for the action of the verb):\n"
    '- "<verb> left" gives LTURN V (turn left, then do the action); "<verb> right" gives RTURN V.\n'
    '- "<verb> opposite left" gives LTURN LTURN V; "<verb> opposite right" gives RTURN RTURN V.\n'
    '- "<verb> around left" gives LTURN V LTURN V LTURN V LTURN V; "<verb> around right" gives RTURN V RTURN V '
    "RTURN V RTURN V.\n"
    '- A phrase is a verb with its direction words. "<phrase> twice" gives the actions of the phrase two times; '
    '"<phrase> thrice" gives them three times.\n'
    '- A command has one part, or two parts joined by "and" or "after"; a part is a phrase with its repetition '
    "word, if any.\n"
    '- "<first> and <second>" gives the actions of the first part, then those of the second part.\n'
    '- "<first> after <second>" gives the actions of the second part, then those of the first part.'
)


def _prompt(verbs: str, command: str, words: str) -> str:
    return (
        "Made-up verbs stand for actions, and a command is turned into a sequence of actions by the rules below.\n"
        f"Verbs: {verbs}.\n{RULES_TEXT}\nCommand: {command}\n"
        f"Write the whole sequence of actions in order, separated by spaces, using only the words {words}."
    )


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand against the stated rules:
    # 0: yim = JUMP; "opposite left" = LTURN LTURN JUMP. Slips: tufa's LOOK (binding) x right (side).
    # 1: modi = JUMP; (LTURN JUMP) x 2. Slips: x 3 (count) x gazzer's LOOK (binding).
    # 2: zup = JUMP, yim = LOOK; (LTURN LTURN JUMP) x 2 then (RTURN RTURN LOOK) x 3. Slips: the parts
    #    reversed (order) x JUMP and LOOK swapped (binding).
    # 3: "mib around right twice after wug left thrice": wug's (LTURN LOOK) x 3 first, then mib's
    #    (RTURN RUN) x 4 x 2; the lure is reading order (mib's part first); slips: order x binding.
    docs = RULE.generate(0, 4)
    assert [d["prompt"] for d in docs] == [
        _prompt("gazzer means RUN; yim means JUMP; tufa means LOOK; dax means WALK", "yim opposite left",
                "RUN, JUMP, LOOK, WALK, LTURN and RTURN"),
        _prompt("modi means JUMP; tufa means RUN; gazzer means LOOK; wug means WALK", "modi left twice",
                "JUMP, RUN, LOOK, WALK, LTURN and RTURN"),
        _prompt("lug means RUN; zup means JUMP; yim means LOOK; dorp means WALK",
                "zup opposite left twice and yim opposite right thrice", "RUN, JUMP, LOOK, WALK, LTURN and RTURN"),
        _prompt("mib means RUN; wug means LOOK; gazzer means WALK; fep means JUMP",
                "mib around right twice after wug left thrice", "RUN, LOOK, WALK, JUMP, LTURN and RTURN"),
    ]
    lj, ll, rj, rl = "LTURN LTURN JUMP", "LTURN LTURN LOOK", "RTURN RTURN JUMP", "RTURN RTURN LOOK"
    run8, look3 = " ".join(["RTURN RUN"] * 8), " ".join(["LTURN LOOK"] * 3)
    look8, run3 = " ".join(["RTURN LOOK"] * 8), " ".join(["LTURN RUN"] * 3)
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        ([rl, ll, rj, lj], 3, "primitive", -1),
        ([" ".join(["LTURN LOOK"] * 2), " ".join(["LTURN LOOK"] * 3), " ".join(["LTURN JUMP"] * 2),
          " ".join(["LTURN JUMP"] * 3)], 2, "repetition", -1),
        ([" ".join([rj] * 3 + [ll] * 2), " ".join([lj] * 2 + [rl] * 3), " ".join([rl] * 3 + [lj] * 2),
          " ".join([ll] * 2 + [rj] * 3)], 1, "conjunction", -1),
        ([f"{look3} {run8}", f"{run3} {look8}", f"{look8} {run3}", f"{run8} {look3}"], 0, "after", 3),
    ]
    assert [d["foil_kinds"] for d in docs] == [
        ["binding+side", "binding", "side", "key"], ["binding", "count+binding", "key", "count"],
        ["reversed_order+binding", "key", "reversed_order", "binding"],
        ["key", "binding", "reading_order+binding", "reading_order"],
    ]


# -- an independent interpreter: recursive descent over the command's words ------------------------

def _interpret(words: list[str], lexicon: dict[str, str], reading_order: bool = False) -> list[str]:
    """command := part (("and" | "after") part)?; part := verb direction repeat?;
    direction := side | "opposite" side | "around" side. ``reading_order`` ignores "after"'s swap."""
    pos = 0

    def take() -> str:
        nonlocal pos
        pos += 1
        return words[pos - 1]

    def peek() -> str | None:
        return words[pos] if pos < len(words) else None

    def part() -> str:
        verb = lexicon[take()]
        word = take()
        if word in ("opposite", "around"):
            side = {"left": "LTURN", "right": "RTURN"}[take()]
            body = f"{side} {side} {verb}" if word == "opposite" else " ".join([f"{side} {verb}"] * 4)
        else:
            body = {"left": "LTURN", "right": "RTURN"}[word] + " " + verb
        if peek() in ("twice", "thrice"):
            body = " ".join([body] * {"twice": 2, "thrice": 3}[take()])
        return body

    first = part()
    if peek() is None:
        return first.split()
    joiner = take()
    second = part()
    assert peek() is None and joiner in ("and", "after")
    ordered = [first, second] if joiner == "and" or reading_order else [second, first]
    return " ".join(ordered).split()


def _parse(prompt: str) -> tuple[dict[str, str], list[str]]:
    verbs = re.search(r"^Verbs: (.+)\.$", prompt, re.MULTILINE).group(1)
    lexicon = dict(re.fullmatch(r"(\w+) means ([A-Z]+)", v).groups() for v in verbs.split("; "))
    command = re.search(r"^Command: (.+)$", prompt, re.MULTILINE).group(1).split()
    return lexicon, command


@pytest.mark.parametrize("overrides", [{}, {"verbs": 2, "max_actions": 48}, {"verbs": 3, "max_actions": 8}])
def test_keys_re_derived_by_an_independent_interpreter(overrides):
    params = RULE.make_params(overrides)
    docs = RULE.generate(3, 400, params)
    for doc in docs:
        lexicon, command = _parse(doc["prompt"])
        assert len(lexicon) == params.verbs and set(lexicon.values()) <= {"JUMP", "LOOK", "RUN", "WALK"}
        assert len(set(lexicon.values())) == params.verbs
        key = _interpret(command, lexicon)
        assert doc["choices"][doc["gold"]].split() == key and len(key) == doc["length"] <= params.max_actions
        joiner = [w for w in command if w in ("and", "after")]
        repeated = any(w in ("twice", "thrice") for w in command)
        condition = joiner[0].replace("and", "conjunction") if joiner else "repetition" if repeated else "primitive"
        assert condition == doc["condition"]
        if condition == "after":
            reading = _interpret(command, lexicon, reading_order=True)
            assert reading != key and doc["choices"][doc["lure"]].split() == reading
        else:
            assert doc["lure"] == -1
        if joiner:  # two distinct verbs, each repeated
            assert command[0] != command[command.index(joiner[0]) + 1] and command.count("twice") + command.count(
                "thrice") == 2
    # Conditions balanced under --limit: 100 each.
    assert [sum(d["condition"] == c for d in docs) for c in RULE.conditions] == [100] * 4


def _slipped(command: list[str], lexicon: dict[str, str], slips: list[str]) -> set[str]:
    """Every sequence the command gives with the named slips, built by editing the command's words
    (the generator edits executed phrases instead): each slip may hit either part."""
    joiner = next((w for w in command if w in ("and", "after")), None)
    cut = command.index(joiner) if joiner else len(command)
    parts = [command[:cut], command[cut + 1:]] if joiner else [command]
    out = set()
    for j in range(len(parts)):
        new_parts, lex = [list(p) for p in parts], dict(lexicon)
        if "side" in slips:
            new_parts[j] = [{"left": "right", "right": "left"}.get(w, w) for w in new_parts[j]]
        if "count" in slips:
            new_parts[j] = [{"twice": "thrice", "thrice": "twice"}.get(w, w) for w in new_parts[j]]
        lexicons = [lex]
        if "binding" in slips and joiner:  # the two verbs' meanings swapped
            first, second = parts[0][0], parts[1][0]
            lexicons = [{**lex, first: lex[second], second: lex[first]}]
        elif "binding" in slips:  # another defined verb's action
            lexicons = [{**lex, parts[j][0]: a} for a in set(lex.values()) - {lex[parts[j][0]]}]
        for lx in lexicons:
            words = new_parts[0] + ([joiner] + new_parts[1] if joiner else [])
            if "reversed_order" in slips:
                words = new_parts[1] + ["and"] + new_parts[0]
            out.add(" ".join(_interpret(words, lx, reading_order="reading_order" in slips)))
    return out


SLIPS = {
    "primitive": [{"binding", "side"}],
    "repetition": [{"count", "binding"}, {"count", "side"}],
    "conjunction": [{"reversed_order", s} for s in ("binding", "side", "count")],
    "after": [{"reading_order", s} for s in ("binding", "side", "count")],
}


@pytest.mark.parametrize("overrides", [{}, {"verbs": 2, "max_actions": 48}])
def test_options_are_the_two_by_two_crossing_of_two_slips(overrides):
    # The key, each slip alone and both together: every option is one slip from two others and two
    # from the third, so none is the most similar to the rest by construction.
    for doc in RULE.generate(4, 300, RULE.make_params(overrides)):
        lexicon, command = _parse(doc["prompt"])
        kinds = [set(k.split("+")) - {"key"} for k in doc["foil_kinds"]]
        pair = set().union(*kinds)
        assert pair in SLIPS[doc["condition"]]
        assert sorted(map(len, kinds)) == [0, 1, 1, 2] and len({frozenset(k) for k in kinds}) == 4
        for choice, kind in zip(doc["choices"], kinds):
            assert choice in _slipped(command, lexicon, sorted(kind)), (doc["command"], kind, choice)
        assert len(set(doc["choices"])) == 4


def test_reversed_order_foil_of_a_conjunction_runs_the_second_part_first():
    doc = next(d for d in RULE.generate(0, 8) if d["condition"] == "conjunction")
    lexicon, command = _parse(doc["prompt"])
    cut = command.index("and")
    swapped = command[cut + 1:] + ["and"] + command[:cut]
    assert doc["choices"][doc["foil_kinds"].index("reversed_order")].split() == _interpret(swapped, lexicon)


def test_key_position_and_text_rank_are_uniform_within_each_condition():
    docs = RULE.generate(0, 1024)
    for condition in RULE.conditions:
        cell = [d for d in docs if d["condition"] == condition]
        ranks = [sorted(d["choices"]).index(d["choices"][d["gold"]]) for d in cell]
        assert Counter(ranks) == {0: 64, 1: 64, 2: 64, 3: 64}
        # Every block of four items has each rank once.
        for block in range(0, 256, 4):
            assert set(ranks[block:block + 4]) == {0, 1, 2, 3}
        # The position is drawn per item (version 2.1): a guess's spread, not a square's.
        positions = Counter(d["gold"] for d in cell)
        assert set(positions) == {0, 1, 2, 3} and chisquare(list(positions.values())).pvalue > 1e-3, positions


def test_the_position_no_longer_tells_the_key_with_the_rank_and_the_slips():
    # Until version 2.0 the key's rank minus its position was the block's index, which the block's pair
    # of slips also shows (in the foils): a surface detector trained on four seeds read 0.40-0.43 on
    # repetition items. The same rule, "the option whose rank minus position matches the slips' block",
    # written out: the slips give the block (mod 2 here: repetition has two slip pairs), the options'
    # ranks and positions the rest.
    docs = [d for d in RULE.generate(3, 1600) if d["condition"] == "repetition"]
    hits = 0.0
    for doc in docs:
        block = 0 if any(k.startswith("count+binding") for k in doc["foil_kinds"]) else 1
        ranks = [sorted(doc["choices"]).index(c) for c in doc["choices"]]
        fits = [i for i in range(4) if (ranks[i] - i) % 2 == block % 2]
        hits += (doc["gold"] in fits) / len(fits) if fits else 0.25
    assert hits / len(docs) <= 0.25 + 0.05


def test_count_slips_leave_the_key_as_often_short_as_long():
    docs = [d for d in RULE.generate(1, 1200) if any("count" in k for k in d["foil_kinds"])]
    shorter = [len(d["choices"][d["gold"]]) < len(d["choices"][d["foil_kinds"].index(
        next(k for k in d["foil_kinds"] if k.endswith("count")))]) for d in docs]
    assert len(docs) > 250 and abs(sum(shorter) / len(shorter) - 0.5) < 0.1


def test_twelve_hundred_items_are_distinct():
    docs = RULE.generate(0, 1200)
    assert len({RULE.identity(d) for d in docs}) == 1200


def _doc(condition: str) -> dict:
    choices = ["RTURN RUN LTURN JUMP", "LTURN JUMP RTURN RUN", "RTURN RUN LTURN LOOK", "RTURN RUN RTURN RUN LTURN JUMP"]
    return {"choices": choices, "gold": 0, "condition": condition, "lure": 1 if condition == "after" else -1}


def test_metrics_on_hand_scored_answers():
    answers = [
        (_doc("primitive"), "RTURN RUN LTURN JUMP"), (_doc("primitive"), "rturn, run, lturn, jump"),  # 2/2
        (_doc("repetition"), "RTURN RUN LTURN LOOK"),  # 0/1
        (_doc("conjunction"), "RTURN RUN LTURN JUMP"), (_doc("conjunction"), "LTURN JUMP RTURN RUN"),  # 1/2
        (_doc("conjunction"), "I am not sure"),  # invalid -> conjunction 1/3
        (_doc("after"), "LTURN JUMP RTURN RUN"), (_doc("after"), "LTURN JUMP"),  # reading order; a -1 answer
        (_doc("after"), "RTURN RUN LTURN JUMP"), (_doc("after"), "jump left"),  # right; invalid -> after 1/4
    ]
    scores = aggregate(RULE, [RULE.score_gen(doc, text) for doc, text in answers])
    assert scores["acc_primitive"] == 1.0 and scores["acc_repetition"] == 0.0
    assert scores["acc_conjunction"] == pytest.approx(1 / 3) and scores["acc_after"] == 0.25
    assert scores["acc"] == pytest.approx(4 / 10) and scores["invalid_rate"] == pytest.approx(2 / 10)
    assert scores["composition_cost"] == pytest.approx(1 - 1 / 3)  # acc(primitive) 2/2 - acc(conjunction) 1/3
    assert scores["reversal_cost"] == pytest.approx(1 / 3 - 1 / 4)  # acc(conjunction) 1/3 - acc(after) 1/4
    assert scores["order_error_share"] == pytest.approx(1 / 3)  # after errors: reading order, -1, invalid -> 1/3


def test_executing_in_reading_order_shows_the_reversal_cost():
    docs = RULE.generate(0, 300)
    for form in ("gen", "mc"):
        scores = play(RULE, "prepotent", docs, form)
        assert [scores[f"acc_{c}"] for c in RULE.conditions] == [1.0, 1.0, 1.0, 0.0]
        assert scores["composition_cost"] == 0.0 and scores["reversal_cost"] == 1.0
        assert scores["order_error_share"] == 1.0
    mc = play(RULE, "prepotent", docs, "mc")
    assert mc["lure_margin_after"] == -1.0


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("RTURN RUN LTURN JUMP", 0), ("rturn run lturn jump", 0), ("RTURN, RUN, LTURN, JUMP", 0),
     ("**RTURN RUN LTURN JUMP**", 0), ("[RTURN, RUN, LTURN, JUMP]", 0), ("RTURN RUN LTURN JUMP.", 0),
     ("`RTURN  RUN\tLTURN JUMP`", 0), ("LTURN JUMP RTURN RUN", 1),
     ("RTURN RUN", -1), ("JUMP", -1), ("RTURN RUN LTURN JUMP JUMP", -1), ("WALK WALK", -1),
     ("", None), ("RTURN RUN or LTURN JUMP", None), ("RTURN-RUN-LTURN-JUMP", None), ("RTURN RUN,, LTURN JUMP", None),
     ("TURN_LEFT JUMP", None), ("lug right and dax left", None), ("RTURNRUN LTURN JUMP", None),
     ("RTURN RUN LTURN JUMP (I think)", None), ("The answer is RTURN RUN LTURN JUMP", None), ("[invalid]", None)],
)
def test_read_action_sequences_strictly(answer, expected):
    assert RULE.read(_doc("after"), answer) == expected


@pytest.mark.parametrize(
    ("overrides", "param"),
    [({"verbs": 1}, "verbs"), ({"verbs": 0}, "verbs"), ({"verbs": 5}, "verbs"), ({"max_actions": 7}, "max_actions"),
     ({"max_actions": 49}, "max_actions"), ({"max_actions": 24.0}, "max_actions"), ({"verbs": True}, "verbs"),
     ({"actions": 4}, "actions")],
)
def test_bad_parameters_name_themselves(overrides, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        RULE.make_params(overrides)
