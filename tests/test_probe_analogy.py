"""Analogy: pinned items, keys re-derived from the bank / the stated facts, bank checks, hand-computed effects."""

from __future__ import annotations

import os
import re
from collections import Counter

import pytest

from lm_eval_cog.probes._analogy_bank import DOMAINS, NONCE_RELATIONS, NONCE_WORDS, RELATIONS
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play
from probe_strategies import accuracy_by_condition

ANA = get_probe("analogy")
QUESTION = re.compile(
    r"Complete the analogy: (\w+) is to (\w+) as (\w+) is to \?\nOptions: (.+)\n"
    r"Choose the option that is related to \"\3\" in the same way as \"\2\" is related to \"\1\"\. "
    r"Answer with one word\."
)
#: The test's own reading of the stated facts (two patterns per nonce relation, head first and tail
#: first, written out here): relation -> [(pattern, group of the head)].
FACT_PATTERNS = {
    "young_of": [(r"a (\w+) is the young of a (\w+)", 1), (r"a (\w+) has a (\w+) as its young", 2)],
    "lives_in": [(r"a (\w+) lives in a (\w+)", 1), (r"a (\w+) is the home of a (\w+)", 2)],
    "eats": [(r"a (\w+) feeds on (\w+)", 1), (r"(\w+) is the food of a (\w+)", 2)],
    "part_of": [(r"a (\w+) is a part of a (\w+)", 1), (r"a (\w+) has a (\w+) as one of its parts", 2)],
    "made_of": [(r"a (\w+) is made of (\w+)", 1), (r"(\w+) is what a (\w+) is made of", 2)],
    "works_in": [(r"a (\w+) works in a (\w+)", 1), (r"a (\w+) is where a (\w+) works", 2)],
}


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand (the first item of each condition has its key first, the lure second): item 0,
    # workplace (lumberjack : forest), key judge -> courtroom; gavel is the judge's tool (the lure: C's
    # partner by the domain's other relation), forge and anvil the blacksmith's workplace and tool. Item 1
    # is a control: currency, Norway -> krone; forint another country's currency, Hanoi and Tokyo other
    # countries' capitals. Item 2: yuzz works in zib; "a lunt works in a grell" (key); "a lunt is the young
    # of a mup" (the lure: C's link by another relation, C in A's role); lorp works in lunt and quib is a
    # part of lunt (C in the other role); each option is also a workplace of one more head (moke, drin,
    # wopp, dorb). Item 3: vek lives in bibber; "a prot lives in a vorn" (key); tiv lives in prot, drin is
    # a part of prot, gorm is the young of prot (C in the other role).
    docs = ANA.generate(0, 4)
    tail = 'Answer with one word.'
    assert [d["prompt"] for d in docs] == [
        "Complete the analogy: lumberjack is to forest as judge is to ?\nOptions: courtroom, gavel, forge, anvil\n"
        'Choose the option that is related to "judge" in the same way as "forest" is related to "lumberjack". ' + tail,
        "Complete the analogy: China is to yuan as Norway is to ?\nOptions: krone, Hanoi, forint, Tokyo\n"
        'Choose the option that is related to "Norway" in the same way as "yuan" is related to "China". ' + tail,
        "Here are some facts about a made-up world:\n- a lunt is the young of a mup.\n- a wug has a yuzz as its young.\n"
        "- a lunt works in a grell.\n- a drin works in a mup.\n- a lorp is where a wopp works.\n"
        "- a quib is a part of a lunt.\n- a yuzz works in a zib.\n- a lunt is where a lorp works.\n"
        "- a quib is where a dorb works.\n- a moke works in a grell.\nUsing only these facts, answer the question.\n"
        "Complete the analogy: yuzz is to zib as lunt is to ?\nOptions: grell, mup, lorp, quib\n"
        'Choose the option that is related to "lunt" in the same way as "zib" is related to "yuzz". ' + tail,
        "Here are some facts about a made-up world:\n- a fep lives in a gorm.\n- a prot lives in a vorn.\n"
        "- a drin is a part of a prot.\n- a tiv is the home of a mup.\n- a kiv lives in a vorn.\n"
        "- a prot has a gorm as its young.\n- a tiv lives in a prot.\n- a vek lives in a bibber.\n"
        "- a vek is a part of a kloff.\n- a pell lives in a drin.\nUsing only these facts, answer the question.\n"
        "Complete the analogy: vek is to bibber as prot is to ?\nOptions: vorn, drin, tiv, gorm\n"
        'Choose the option that is related to "prot" in the same way as "bibber" is related to "vek". ' + tail,
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["courtroom", "gavel", "forge", "anvil"], 0, "semantic_lure", 1),
        (["krone", "Hanoi", "forint", "Tokyo"], 0, "semantic_control", -1),
        (["grell", "mup", "lorp", "quib"], 0, "nonce_lure", 1),
        (["vorn", "drin", "tiv", "gorm"], 0, "nonce_control", -1),
    ]


def _stated_facts(prompt: str) -> set[tuple[str, str, str]]:
    facts = set()
    for line in re.findall(r"^- (.+)\.$", prompt, flags=re.MULTILINE):
        found = [(rel, m.group(head), m.group(3 - head)) for rel, patterns in FACT_PATTERNS.items()
                 for p, head in patterns if (m := re.fullmatch(p, line))]
        assert len(found) == 1, line  # every fact reads as exactly one relation
        facts.add(found[0])
    return facts


def _bank_pairs() -> dict[tuple[str, str], set[str]]:
    pairs: dict[tuple[str, str], set[str]] = {}
    for relation, rows in RELATIONS.items():
        for head, tail, _ in rows:
            pairs.setdefault((head, tail), set()).add(relation)
    return pairs


@pytest.mark.parametrize("seed", [1, 2])
def test_keys_re_derived_from_the_bank_or_the_stated_facts(seed):
    docs = ANA.generate(seed, 400)
    bank = _bank_pairs()
    for doc in docs:
        a, b, c, shown = QUESTION.search(doc["prompt"]).groups()
        options = shown.split(", ")
        assert options == doc["choices"] and len(set(options)) == 4 and not {a, b, c} & set(options)
        if doc["condition"].startswith("semantic"):
            # Every associate is a bank pair of the domain's other relation (see the bank test).
            links = {(h, t, r) for (h, t), rels in bank.items() for r in rels}
            assert "facts" not in doc["prompt"]
        else:
            links = {(h, t, r) for r, h, t in _stated_facts(doc["prompt"])}
        relations = {r for h, t, r in links if (h, t) == (a, b)}
        assert len(relations) == 1  # A : B is one relation
        fitting = [k for k, o in enumerate(options) if (c, o, *relations) in links]
        assert fitting == [doc["gold"]]  # exactly one option completes the analogy
        linked = [k for k, o in enumerate(options) if any((x, y) in {(c, o), (o, c)} for x, y, _ in links)]
        if doc["condition"].endswith("lure"):
            lure = options[doc["lure"]]
            # C's partner by the domain's other relation, or a stated fact of another relation
            assert {r for h, t, r in links if (h, t) == (c, lure)} - relations
        else:
            assert doc["lure"] == -1
        if doc["condition"].startswith("semantic"):
            assert sorted(linked) == sorted({doc["gold"], doc["lure"]} - {-1})
            # The other options are linked to other heads: one tail of the analogy's relation and one of the
            # domain's other relation, so that every item holds two words of each kind, and in lure items the
            # two others share a head (as key and lure do).
            others = [o for k, o in enumerate(options) if k not in (doc["gold"], doc["lure"])]
            owners = [{(h, r) for h, t, r in links if t == o and h not in (a, c)} for o in others]
            assert all(owners)
            domain = next(rels for rels, _ in DOMAINS.values() if set(relations) <= set(rels))
            kinds = [r for k, o in enumerate(options) for h, t, r in links if t == o and r in domain]
            assert sorted(Counter(kinds).values()) == [2, 2]
            if doc["condition"] == "semantic_lure":
                assert {h for own in owners for h, _ in own} == {next(iter(owners[0]))[0]}
        else:
            # Nonce: every option is stated with C, in two facts, and is the tail of the analogy's relation for
            # a head other than C; only the key has C as the head of that relation. The lure has C as the head
            # of another relation; the other options have C as their tail.
            assert linked == [0, 1, 2, 3]
            stated = _stated_facts(doc["prompt"])
            assert all(sum(o in (h, t) for _, h, t in stated) == 2 for o in options)
            assert all(any(r in relations and t == o and h != c for r, h, t in stated) for o in options)
            for k, o in enumerate(options):
                if k not in (doc["gold"], doc["lure"]):
                    assert [h for _, h, t in stated if c in (h, t) and o in (h, t)] == [o]
    assert Counter(d["condition"] for d in docs) == {cond: 100 for cond in ANA.conditions}


def test_bank_pairs_are_unique_and_no_option_fits_a_relation_twice():
    bank = _bank_pairs()
    assert all(len(rels) == 1 for rels in bank.values())  # a (head, tail) pair has one relation
    for relation, rows in RELATIONS.items():
        heads, tails, assocs = zip(*rows)
        assert len(rows) >= 5  # the rows of A, C and three other heads (a control item)
        assert len(set(heads)) == len(heads) and len(set(tails)) == len(tails)
        assert not set(assocs) & set(tails) and not set(assocs) & set(heads), relation
        for head, tail, assoc in rows:
            assert len({head, tail, assoc}) == 3
            # No other tail of the relation is linked to this head anywhere in the bank, either way round.
            for other in set(tails) - {tail}:
                assert (head, other) not in bank and (other, head) not in bank, (relation, head, other)
            # The associate is the head's partner by the domain's other relation (cat - meow), never by this one.
            assert relation not in bank.get((head, assoc), set()) | bank.get((assoc, head), set())
            assert len(bank.get((head, assoc), set())) == 1
    words = [w for rows in RELATIONS.values() for row in rows for w in row]
    assert all(re.fullmatch(r"[A-Za-z]+", w) for w in words)  # one-word answers
    assert not {w.casefold() for w in words} & set(NONCE_WORDS)
    assert len(set(NONCE_WORDS)) == len(NONCE_WORDS) >= 10 + 5
    assert all(w[0] not in "aeiou" for w in NONCE_WORDS)  # "a blick", never "a ablick"
    # Spelling cannot pair a word with its head: no tail shares its head's first letter (issue 28: "Sweden :
    # Swedish", "duck : duckling", "baker : bakery").
    assert all(tail[0].casefold() != head[0].casefold() for rows in RELATIONS.values() for head, tail, _ in rows)
    assert set(NONCE_RELATIONS) == set(FACT_PATTERNS)


def test_key_and_lure_places_cycle_within_each_condition():
    # 480 items = 120 per condition: the key at each place 30 times; the associate 1, 2 and 3 places
    # after it 40 times each.
    docs = ANA.generate(3, 480)
    for cond in ANA.conditions:
        cell = [d for d in docs if d["condition"] == cond]
        assert Counter(d["gold"] for d in cell) == {k: 30 for k in range(4)}
        if cond.endswith("lure"):
            assert Counter((d["lure"] - d["gold"]) % 4 for d in cell) == {1: 40, 2: 40, 3: 40}
            assert Counter(d["lure"] for d in cell) == {k: 30 for k in range(4)}


def test_every_lure_word_is_a_key_elsewhere_as_often_as_other_words():
    # The associate of a semantic item is a tail of the domain's other relation, so the words offered as
    # lures are the words offered as keys: a lure's text does not give it away.
    bank_tails = {t for rows in RELATIONS.values() for _, t, _ in rows}
    assert {x for rows in RELATIONS.values() for _, _, x in rows} == bank_tails
    # Four seeds: a seed asks each semantic stem at most once (about 520 exist).
    docs = [d for seed in (6, 7, 8, 9) for d in ANA.generate(seed, 1000) if d["condition"].startswith("semantic")]
    keys = Counter(d["choices"][d["gold"]] for d in docs)
    lures = Counter(d["choices"][d["lure"]] for d in docs if d["lure"] != -1)
    assert set(lures) <= set(keys) and set(keys) == bank_tails
    mean = len(docs) / len(bank_tails)
    assert all(0.4 * mean < n < 1.8 * mean for n in keys.values())


def test_no_two_items_are_the_same_up_to_option_order():
    docs = ANA.generate(0, 1000)  # about the most a seed holds: each semantic stem at most once
    assert len({ANA.identity(d) for d in docs}) == 1000


def _doc(condition, lure=1):
    return {"choices": ["unlock", "door", "sweep", "stir"], "gold": 0, "condition": condition, "lure": lure}


def test_metrics_on_hand_scored_answers():
    answers = [
        (_doc("semantic_lure"), "Unlock"), (_doc("semantic_lure"), "door"), (_doc("semantic_lure"), "cat"),
        (_doc("semantic_lure"), "unlock, I think"),  # right, lure, wrong (-1), invalid -> 1/4
        (_doc("semantic_control", -1), "unlock"), (_doc("semantic_control", -1), "stir"),  # 1/2
        (_doc("nonce_lure"), "door"), (_doc("nonce_lure"), "**unlock**"),  # 1/2
        (_doc("nonce_control", -1), "unlock"), (_doc("nonce_control", -1), "unlock."),  # 2/2
    ]
    scores = aggregate(ANA, [ANA.score_gen(doc, text) for doc, text in answers])
    # controls 3/4 right, lure conditions 2/6 right: 3/4 - 1/3 = 5/12.
    assert scores["associative_interference"] == pytest.approx(5 / 12)
    # errors in lure conditions: door, cat, invalid, door = 4; 2 name the associate.
    assert scores["lure_error_share"] == 0.5
    # semantic 2/6 right, nonce 3/4 right: 1/3 - 3/4 = -5/12.
    assert scores["nonce_cost"] == pytest.approx(-5 / 12)
    assert scores["invalid_rate"] == pytest.approx(1 / 10) and scores["acc"] == pytest.approx(5 / 10)


def test_the_prepotent_player_takes_the_associate():
    docs = ANA.generate(0, 300)
    scores = play(ANA, "prepotent", docs, "gen")
    assert scores["acc_semantic_lure"] == scores["acc_nonce_lure"] == 0.0
    assert scores["acc_semantic_control"] == scores["acc_nonce_control"] == 1.0
    assert scores["associative_interference"] == 1.0 and scores["lure_error_share"] == 1.0
    assert scores["nonce_cost"] == 0.0
    rand = play(ANA, "random", docs, "gen")
    assert abs(rand["associative_interference"]) < 0.2 and 0.2 < rand["lure_error_share"] < 0.47


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("unlock", 0), ("**Unlock.**", 0), ("'UNLOCK'", 0), ("door", 1), ("Stir!", 3), ("cat", -1), ("Tokyo", -1),
     ("dax", -1), ("hammer", None), ("unlock or door", None), ("to unlock", None), ("", None),
     ("The key unlocks", None)],
)
def test_read_takes_one_word(answer, expected):
    assert ANA.read(_doc("semantic_lure"), answer) == expected


@pytest.mark.parametrize(
    ("overrides", "param"),
    [({"nonce_facts": 1}, "nonce_facts"), ({"nonce_facts": 6}, "nonce_facts"), ({"nonce_facts": 0}, "nonce_facts"),
     ({"nonce_facts": 2.0}, "nonce_facts"), ({"facts": 2}, "facts")],
)
def test_bad_parameters_name_themselves(overrides, param):
    with pytest.raises(ValueError, match=f"'{param}'"):
        ANA.make_params(overrides)


@pytest.mark.parametrize("facts", [2, 5])
def test_more_nonce_facts_add_irrelevant_links(facts):
    docs = [d for d in ANA.generate(4, 40, ANA.make_params({"nonce_facts": facts})) if d["condition"].startswith("nonce")]
    assert all(len(d["facts"]) == 8 + facts == len(_stated_facts(d["prompt"])) for d in docs)


# -- the declared heuristics and the cheap strategies of issue 28 -----------------------
HEURISTICS = {h.name: h for h in ANA.heuristics}
NONCE_STEM = (
    "Here are some facts about a made-up world:\n- a dax works in a pell.\n- a wug is the young of a dax.\n"
    "- a blick works in a toma.\nUsing only these facts, answer the question.\n"
    "Complete the analogy: blick is to toma as dax is to ?\n"
)


def test_the_associate_heuristic_picks_the_options_stated_with_c():
    # Gentner's relational shift: pell (C's workplace: the key) and wug (C's young) go with dax; zorp
    # and kiv are never stated with it.
    scores = HEURISTICS["associate"].scores(NONCE_STEM, ["pell", "wug", "zorp", "kiv"])
    assert scores == [1.0, 1.0, 0.0, 0.0]
    assert HEURISTICS["associate"].scores("Complete the analogy: dog is to puppy as cat is to ?\n", ["kitten"]) is None


def test_the_appearance_heuristic_picks_the_option_spelled_like_c():
    # A mere-appearance match: "Swedish" shares "Swed" with Sweden; Stockholm only "S".
    stem = "Complete the analogy: Poland is to Warsaw as Sweden is to ?\n"
    scores = HEURISTICS["appearance"].scores(stem, ["Stockholm", "Swedish", "Oslo", "krona"])
    assert max(range(4), key=scores.__getitem__) == 1 and scores[0] > scores[2]


def test_declared_heuristics_are_at_chance_in_each_condition():
    # Seeds 11-13, 400 items each: 300 per condition.
    for heuristic in ANA.heuristics:
        accuracy = accuracy_by_condition("analogy", heuristic, (11, 12, 13), 400)
        assert max(accuracy[c] for c in ANA.conditions) <= 0.25 + 0.05, (heuristic.name, accuracy)


def _on_a_fact_line_with_c(stem, options):
    """Issue 28: the option on a fact line with the third term (1.00 on nonce controls, 0.50 on nonce lures)."""
    c = re.search(r"as (\w+) is to \?", stem).group(1)
    lines = [line for line in stem.split("\n") if line.startswith("- ") and re.search(rf"\b{c}\b", line)]
    return [float(any(re.search(rf"\b{re.escape(o)}\b", line) for line in lines)) for o in options] if lines else None


def _longest_prefix_with_c(stem, options):
    """Issue 28: the option sharing the longest prefix with the third term (0.47 / 0.39 on semantic control / lure)."""
    c = re.search(r"as (\w+) is to \?", stem).group(1).casefold()
    return [float(len(os.path.commonprefix([c, o.casefold()]))) for o in options]


@pytest.mark.parametrize("strategy", [_on_a_fact_line_with_c, _longest_prefix_with_c])
def test_issue_28_strategies_are_at_chance_in_each_condition(strategy):
    accuracy = accuracy_by_condition("analogy", strategy, (11, 12), 600)
    assert max(accuracy[c] for c in ANA.conditions) <= 0.25 + 0.05, accuracy
