"""Rule execution (SCAN-style): pinned items, keys re-derived by a recursive-descent
interpreter of the prompt, effects by hand, the reading-order player, strict reading."""

from __future__ import annotations

import re

import pytest

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
    # 0: yim = JUMP; "opposite left" = LTURN LTURN JUMP. Foils: act before turning, right
    #    instead of left, tufa's LOOK instead of JUMP.
    # 1: wug = WALK; (RTURN RTURN WALK) x 3. Foils: toma's LOOK (binding), LTURN (side),
    #    x 2 (twice for thrice).
    # 2: wif = RUN, wug = JUMP; (LTURN LTURN RUN) x 2 then (RTURN JUMP) x 3 (12 actions). Foils:
    #    x 3 for the first phrase, the phrases reversed, LOOK for RUN.
    # 3: "wug right twice after gazzer opposite right thrice": gazzer's (RTURN RTURN RUN) x 3 first,
    #    then wug's (RTURN LOOK) x 2; the lure is reading order (wug's part first).
    docs = RULE.generate(0, 4)
    assert [d["prompt"] for d in docs] == [
        _prompt("gazzer means RUN; yim means JUMP; tufa means LOOK; dax means WALK", "yim opposite left",
                "RUN, JUMP, LOOK, WALK, LTURN and RTURN"),
        _prompt("wug means WALK; toma means LOOK; vosk means JUMP; zup means RUN", "wug opposite right thrice",
                "WALK, LOOK, JUMP, RUN, LTURN and RTURN"),
        _prompt("tufa means LOOK; dorp means WALK; wif means RUN; wug means JUMP",
                "wif opposite left twice and wug right thrice", "LOOK, WALK, RUN, JUMP, LTURN and RTURN"),
        _prompt("pilk means WALK; wug means LOOK; gazzer means RUN; fep means JUMP",
                "wug right twice after gazzer opposite right thrice", "WALK, LOOK, RUN, JUMP, LTURN and RTURN"),
    ]
    r3, l2, rr = "RTURN RTURN RUN", "LTURN LTURN RUN", "RTURN JUMP"
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["JUMP LTURN LTURN", "RTURN RTURN JUMP", "LTURN LTURN JUMP", "LTURN LTURN LOOK"], 2, "primitive", -1),
        ([" ".join(["RTURN RTURN LOOK"] * 3), " ".join(["RTURN RTURN WALK"] * 3), " ".join(["LTURN LTURN WALK"] * 3),
          " ".join(["RTURN RTURN WALK"] * 2)], 1, "repetition", -1),
        ([" ".join([l2] * 3 + [rr] * 3), " ".join([l2] * 2 + [rr] * 3), " ".join([rr] * 3 + [l2] * 2),
          " ".join(["LTURN LTURN LOOK"] * 2 + [rr] * 3)], 1, "conjunction", -1),
        ([" ".join([r3] * 3 + ["RTURN LOOK"] * 2), " ".join(["RTURN LOOK"] * 2 + [r3] * 3),
          " ".join(["RTURN RTURN WALK"] * 3 + ["RTURN LOOK"] * 2), " ".join([r3] * 2 + ["RTURN LOOK"] * 2)],
         0, "after", 1),
    ]
    assert [d["foil_kinds"] for d in docs] == [
        ["turn_order", "side", "key", "binding"], ["binding", "key", "side", "count"],
        ["count", "key", "reversed_order", "binding"], ["key", "reading_order", "binding", "count"],
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


def _mutations(command: list[str], lexicon: dict[str, str]) -> dict[str, set[str]]:
    """Every one-slip variant of the command by kind, built by editing the command's words
    and interpreting the edit (the generator edits executed phrases instead)."""
    joiner = next((w for w in command if w in ("and", "after")), None)
    cut = command.index(joiner) if joiner else len(command)
    parts = [command[:cut], command[cut + 1:]] if joiner else [command]
    out: dict[str, set[str]] = {k: set() for k in ("binding", "side", "count", "turn_order")}

    def run(new_parts: list[list[str]], lex: dict[str, str] = lexicon) -> str:
        words = new_parts[0] + ([joiner] + new_parts[1] if joiner else [])
        return " ".join(_interpret(words, lex))

    for j, part in enumerate(parts):
        for other in set(lexicon.values()) - {lexicon[part[0]]}:
            out["binding"].add(run(parts, {**lexicon, part[0]: other}))
        flipped = [{"left": "right", "right": "left"}.get(w, w) for w in part]
        out["side"].add(run([flipped if k == j else p for k, p in enumerate(parts)]))
        swapped = [{"twice": "thrice", "thrice": "twice"}.get(w, w) for w in part]
        out["count"].add(run([swapped if k == j else p for k, p in enumerate(parts)]))
    if not joiner:  # the action before its turns, in each unit
        key = run(parts).split()
        turned, units, current = [], [], []
        for word in key:
            current.append(word)
            if word not in ("LTURN", "RTURN"):
                units.append(current)
                current = []
        for unit in units:
            turned += unit[-1:] + unit[:-1]
        out["turn_order"].add(" ".join(turned))
    return out


def test_every_foil_is_the_slip_it_names():
    for doc in RULE.generate(4, 300):
        lexicon, command = _parse(doc["prompt"])
        slips = _mutations(command, lexicon)
        key = doc["choices"][doc["gold"]]
        for choice, kind in zip(doc["choices"], doc["foil_kinds"]):
            if kind == "key":
                assert choice == key
            elif kind in ("reading_order", "reversed_order"):  # the two parts swapped
                assert sorted(choice.split()) == sorted(key.split()) and choice != key
                assert choice == " ".join(_interpret(command, lexicon, reading_order=True)) or kind == "reversed_order"
            else:
                assert choice in slips[kind], (doc["command"], kind, choice)
        expected = {"primitive": {"key", "binding", "side", "turn_order"}, "repetition": {"key", "binding", "side", "count"},
                    "conjunction": {"key", "binding", "count", "reversed_order"},
                    "after": {"key", "binding", "count", "reading_order"}}[doc["condition"]]
        assert set(doc["foil_kinds"]) == expected


def test_reversed_order_foil_of_a_conjunction_runs_the_second_part_first():
    doc = next(d for d in RULE.generate(0, 8) if d["condition"] == "conjunction")
    lexicon, command = _parse(doc["prompt"])
    cut = command.index("and")
    swapped = command[cut + 1:] + ["and"] + command[:cut]
    assert doc["choices"][doc["foil_kinds"].index("reversed_order")].split() == _interpret(swapped, lexicon)


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
