"""Analogy: pinned items, keys re-derived from the bank / the stated facts, bank checks, hand-computed effects."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from lm_eval_cog.probes._analogy_bank import DOMAINS, NONCE_RELATIONS, NONCE_WORDS, RELATIONS
from lm_eval_cog.probes.core import get_probe
from lm_eval_cog.probes.reference import aggregate, play

ANA = get_probe("analogy")
QUESTION = re.compile(
    r"Complete the analogy: (\w+) is to (\w+) as (\w+) is to \?\nOptions: (.+)\n"
    r"Choose the option that is related to \"\3\" in the same way as \"\2\" is related to \"\1\"\. "
    r"Answer with one word\."
)
#: The test's own reading of the stated facts (one pattern per nonce relation, written out here).
FACT_PATTERNS = {
    "young_of": r"a (\w+) is the young of a (\w+)", "lives_in": r"a (\w+) lives in a (\w+)",
    "eats": r"a (\w+) eats (\w+)s", "part_of": r"a (\w+) is a part of a (\w+)",
    "made_of": r"a (\w+) is made of (\w+)", "works_in": r"a (\w+) works in a (\w+)",
}


def test_first_items_of_seed_0_are_pinned():
    # Checked by hand (the first item of each condition has its key first, the lure second): item 0,
    # workplace (surgeon : hospital), key miner -> mine; pickaxe is the miner's tool (the lure: C's
    # partner by the domain's other relation), bakery and oven the baker's workplace and tool. Item 1
    # is a control: language, Poland -> Polish; Italian another country's language, Ankara and Paris
    # other countries' capitals. Item 2: the facts say "a naff works in a dax" and "a blick works in a
    # rellet" (key), "a blick is a part of a tiv" (the lure: C's other stated link), plim and gazzer are
    # the workplaces of cheb and kloff. Item 3: "a moke works in a fep" (key); yuzz, quib and gorm are
    # the workplaces of gazzer, tiv and drin.
    docs = ANA.generate(0, 4)
    tail = 'Answer with one word.'
    assert [d["prompt"] for d in docs] == [
        "Complete the analogy: surgeon is to hospital as miner is to ?\nOptions: mine, pickaxe, bakery, oven\n"
        'Choose the option that is related to "miner" in the same way as "hospital" is related to "surgeon". ' + tail,
        "Complete the analogy: Germany is to German as Poland is to ?\nOptions: Polish, Ankara, Italian, Paris\n"
        'Choose the option that is related to "Poland" in the same way as "German" is related to "Germany". ' + tail,
        "Here are some facts about a made-up world:\n- a naff works in a dax.\n- a kloff works in a gazzer.\n"
        "- a cheb works in a plim.\n- a blick works in a rellet.\n- a naff is a part of a slaff.\n"
        "- a wug works in a wopp.\n- a blick is a part of a tiv.\nUsing only these facts, answer the question.\n"
        "Complete the analogy: naff is to dax as blick is to ?\nOptions: rellet, tiv, gazzer, plim\n"
        'Choose the option that is related to "blick" in the same way as "dax" is related to "naff". ' + tail,
        "Here are some facts about a made-up world:\n- a mup lives in a lunt.\n- a drin works in a gorm.\n"
        "- a tiv works in a quib.\n- a moke lives in a nuv.\n- a mup works in a pell.\n- a gazzer works in a yuzz.\n"
        "- a moke works in a fep.\nUsing only these facts, answer the question.\n"
        "Complete the analogy: mup is to pell as moke is to ?\nOptions: fep, yuzz, quib, gorm\n"
        'Choose the option that is related to "moke" in the same way as "pell" is related to "mup". ' + tail,
    ]
    assert [(d["choices"], d["gold"], d["condition"], d["lure"]) for d in docs] == [
        (["mine", "pickaxe", "bakery", "oven"], 0, "semantic_lure", 1),
        (["Polish", "Ankara", "Italian", "Paris"], 0, "semantic_control", -1),
        (["rellet", "tiv", "gazzer", "plim"], 0, "nonce_lure", 1),
        (["fep", "yuzz", "quib", "gorm"], 0, "nonce_control", -1),
    ]


def _stated_facts(prompt: str) -> set[tuple[str, str, str]]:
    facts = set()
    for line in re.findall(r"^- (.+)\.$", prompt, flags=re.MULTILINE):
        found = [(rel, *m.groups()) for rel, p in FACT_PATTERNS.items() if (m := re.fullmatch(p, line))]
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
            assert sorted(linked) == sorted([doc["gold"], doc["lure"]])
        else:
            assert linked == [doc["gold"]] and doc["lure"] == -1
        # The other options are linked to other heads: in nonce items tails of the analogy's relation; in
        # semantic items one tail of it and one of the domain's other relation, so that every semantic item
        # holds two words of each kind, and in lure items the two others share a head (as key and lure do).
        others = [o for k, o in enumerate(options) if k not in (doc["gold"], doc["lure"])]
        owners = [{(h, r) for h, t, r in links if t == o and h not in (a, c)} for o in others]
        assert all(owners)
        if doc["condition"].startswith("nonce"):
            assert all(r in relations for own in owners for _, r in own)
        else:
            domain = next(rels for rels, _ in DOMAINS.values() if set(relations) <= set(rels))
            kinds = [r for k, o in enumerate(options) for h, t, r in links if t == o and r in domain]
            assert sorted(Counter(kinds).values()) == [2, 2]
            if doc["condition"] == "semantic_lure":
                assert {h for own in owners for h, _ in own} == {next(iter(owners[0]))[0]}
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
    docs = [d for d in ANA.generate(6, 4000) if d["condition"].startswith("semantic")]
    keys = Counter(d["choices"][d["gold"]] for d in docs)
    lures = Counter(d["choices"][d["lure"]] for d in docs if d["lure"] != -1)
    assert set(lures) <= set(keys) and set(keys) == bank_tails
    mean = len(docs) / len(bank_tails)
    assert all(0.4 * mean < n < 1.8 * mean for n in keys.values())


def test_no_two_items_are_the_same_up_to_option_order():
    docs = ANA.generate(0, 1200)
    assert len({ANA.identity(d) for d in docs}) == 1200


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
    [("unlock", 0), ("**Unlock.**", 0), ("'UNLOCK'", 0), ("door", 1), ("Stir!", 3), ("cat", -1), ("Paris", -1),
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
    assert all(len(d["facts"]) == 5 + facts == len(_stated_facts(d["prompt"])) for d in docs)
