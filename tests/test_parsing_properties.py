"""Property-based tests (hypothesis) of every paradigm's reply reader and ``env.step``.

For any text: reading never raises; the result is a valid choice of the paradigm or a
``ParseFailure``, and the recorded path agrees with it; a closing answer line naming one
choice wins whatever precedes it; text without any choice word is invalid; ``env.step``
logs a valid or an ``invalid`` trial and never raises.

Deterministic and quick in CI: the ``lm_eval_cog`` profile derandomizes, keeps no example
database and runs a modest number of examples. ``LM_EVAL_COG_HYPOTHESIS=deep`` runs many
more, randomized, for a local search.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lm_eval_cog.paradigms import arms, available, get_paradigm, igt, is_game, nback, wpt
from lm_eval_cog.paradigms.base import ParseFailure, ParsePath, Reading, Strategy
from lm_eval_cog.paradigms.lnt import read_reply as lnt_read_reply
from lm_eval_cog.paradigms.wcst import KEY_CARDS
from lm_eval_cog.paradigms.wcst import read_reply as wcst_read_reply

#: Paradigms that read choices from replies (the dialogue games read moves in their own formats).
CHOICE_PARADIGMS = [n for n in available() if not is_game(n)]

settings.register_profile(
    "lm_eval_cog",
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("lm_eval_cog-deep", parent=settings.get_profile("lm_eval_cog"), derandomize=False,
                          max_examples=5000)  # fmt: skip
PROFILE = settings.get_profile("lm_eval_cog-deep" if os.environ.get("LM_EVAL_COG_HYPOTHESIS") == "deep" else "lm_eval_cog")


@dataclass(frozen=True)
class Reader:
    """A paradigm's reader, its valid choices, ways to write each, and words that are no choice."""

    read: Callable[[str, Strategy], Reading]
    spellings: dict[Any, tuple[str, ...]]
    near_misses: tuple[str, ...]


READERS: dict[str, Reader] = {
    "wcst": Reader(
        lambda r, s: wcst_read_reply(r, s, KEY_CARDS),
        {
            0: ("1", "Card 1", "**1**", "card one", "red triangle"),
            1: ("2", "Card 2.", "(2)", "option two", "two green stars"),
            2: ("3", "card #3", "three yellow crosses"),
            3: ("4", "Card 4:", "blue circles"),
        },
        # No colour + shape pair of a key card, no number word that "card"/"option" could take.
        ("5", "12", "0", "4-5", "1-4", "2:30", "0.3", "1,2", "1/4", "-2", "3rd", "2%", "red", "stars",
         "three red stars", "colour", "shape"),
    ),
    "nback": Reader(
        nback.read_reply,
        {"yes": ("yes", "Yes", "YES"), "no": ("no", "No."), "not available": ("Not Available", "N/A", "not  available")},
        ("not", "nope", "yesterday", "know", "none", "noon", "n/b", "unavailable"),
    ),
    "wpt": Reader(
        wpt.read_reply,
        {"sunny": ("sunny", "Sunny", "sun"), "rainy": ("rainy", "Rain", "RAINY")},
        ("sunday", "rainbow", "sunset", "brain", "weather", "cloudy", "train"),
    ),
    "lnt": Reader(
        lnt_read_reply,
        {"vowel": ("vowel", "Vowel", "VOWEL"), "consonant": ("consonant", "Consonant"), "even": ("even", "Even."),
         "odd": ("odd", "ODD")},
        ("vowels", "consonants", "evenly", "oddly", "number", "letter", "uneven"),
    ),
    "igt": Reader(
        igt.read_reply,
        {d: (d, d.lower(), f"deck {d[0]}") for d in igt.DECKS},
        ("AA", "AAAA", "ABC", "decks", "DD", "deckA", "E", "deck E"),  # never a lone A-D after "deck"
    ),
    "arms": Reader(
        arms.read_reply,
        {"left": ("left", "Left arm", "LEFT"), "right": ("right", "the right arm")},
        ("leftover", "rightly", "bright", "arm", "lefty", "righteous"),
    ),
}
NEUTRAL = ("the", "card", "answer", "Answer", "think", "letter", "pattern", "I", "so", "because", "trial", "deck",
           "choose", "option", "maybe", ":", "=", "**", "#", "(", ")", "0", "7")  # fmt: skip
SEPARATORS = (" ", "  ", "\n", ". ", ", ", "! ", "? ", "\n\n", "\t", "\r\n", "\u3000", "...", " - ", "\x00")
STRATEGIES = st.sampled_from(list(Strategy))
NAMES = st.sampled_from(sorted(READERS))


def choice_words(reader: Reader) -> list[str]:
    return [w for spellings in reader.spellings.values() for w in spellings]


@st.composite
def replies(draw: st.DrawFn, reader: Reader) -> str:
    """Prose mixing choice words, near misses, answer markers, separators and arbitrary text."""
    pieces = st.one_of(
        st.sampled_from(choice_words(reader)),
        st.sampled_from(reader.near_misses + NEUTRAL),
        st.sampled_from(("Answer:", "answer is", "Answer：", "**Answer**:", "My answer:")),
        st.sampled_from(SEPARATORS),
        st.text(max_size=12),
    )
    return "".join(draw(st.lists(pieces, max_size=30)))


@st.composite
def choice_free_replies(draw: st.DrawFn, reader: Reader) -> str:
    """Prose of neutral words and near misses only, joined by separators: no choice word."""
    words = draw(st.lists(st.sampled_from(reader.near_misses + NEUTRAL), max_size=25))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(words), max_size=len(words)))
    return "".join(w + s for w, s in zip(words, seps))


def check_reading(reader: Reader, strategy: Strategy, reading: Reading) -> None:
    """A valid choice with a choice path, or a ParseFailure with the invalid path."""
    assert isinstance(reading, Reading)
    if isinstance(reading.value, ParseFailure):
        assert reading.path is ParsePath.INVALID
        assert reading.value.code in ("no_answer", "ambiguous")
    else:
        assert reading.value in reader.spellings
        allowed = {ParsePath.ANSWER_LINE, ParsePath.WHOLE_REPLY if strategy is Strategy.DIRECT else ParsePath.FALLBACK}
        assert reading.path in allowed


@PROFILE
@given(data=st.data(), name=NAMES, strategy=STRATEGIES)
def test_reading_any_prose_gives_a_valid_choice_or_a_parse_failure(data, name, strategy):
    """Mixed prose: never raises; a choice of the paradigm or a ParseFailure, with a matching path."""
    reader = READERS[name]
    check_reading(reader, strategy, reader.read(data.draw(replies(reader)), strategy))


@PROFILE
@given(text=st.text(), name=NAMES, strategy=STRATEGIES)
def test_reading_arbitrary_unicode_never_raises(text, name, strategy):
    """Any text (control characters, any script, no surrogates): a valid choice or a ParseFailure."""
    reader = READERS[name]
    check_reading(reader, strategy, reader.read(text, strategy))


@PROFILE
@given(unit=st.text(min_size=1, max_size=40), repeat=st.integers(100, 2500), name=NAMES, strategy=STRATEGIES)
def test_reading_very_long_text_never_raises(unit, repeat, name, strategy):
    """Long replies (up to 100k characters) are read like short ones."""
    reader = READERS[name]
    check_reading(reader, strategy, reader.read(unit * repeat, strategy))


@PROFILE
@given(data=st.data(), name=NAMES, strategy=STRATEGIES, ending=st.sampled_from(("", ".", " ", "**", "\n")))
def test_closing_answer_line_naming_one_choice_always_wins(data, name, strategy, ending):
    """Whatever precedes it, a final 'Answer: <one choice>' line is the choice read."""
    reader = READERS[name]
    prefix = data.draw(st.one_of(replies(reader), st.text()))
    value = data.draw(st.sampled_from(sorted(reader.spellings, key=str)))
    spelling = data.draw(st.sampled_from(reader.spellings[value]))
    reading = reader.read(f"{prefix}\nAnswer: {spelling}{ending}", strategy)
    assert reading == Reading(value, ParsePath.ANSWER_LINE)


@PROFILE
@given(data=st.data(), name=NAMES, strategy=STRATEGIES)
def test_text_without_any_choice_word_is_invalid(data, name, strategy):
    """Neutral words, near misses ('nope', 'bright', '4-5', 'deck') and answer markers: never a choice."""
    reader = READERS[name]
    text = data.draw(choice_free_replies(reader))
    reading = reader.read(text, strategy)
    assert reading.path is ParsePath.INVALID and reading.value.code == "no_answer"


@PROFILE
@given(text=st.text(st.characters(exclude_categories=("Cs", "L", "N"))), name=NAMES, strategy=STRATEGIES)
def test_text_without_letters_or_digits_is_invalid(text, name, strategy):
    """Punctuation, symbols, blanks and controls (after NFKC still no letter or digit): no choice."""
    # NFKC turns a few symbols into letters (a circled letter): those are not this case.
    assume(not any(c.isalnum() for c in unicodedata.normalize("NFKC", text)))
    reading = READERS[name].read(text, strategy)
    assert reading.path is ParsePath.INVALID


PARSE_FIELDS = {"igt": (("first_parse", "first_invalid"), ("final_parse", "final_invalid"))}
CHOICE_FIELDS = {"igt": ("first", "final"), "wpt": ("prediction",), "lnt": ("answer",)}
# The reader whose words the env-step test mixes into its text; paradigms without a Reader
# (their replies are not one of a few words) get arbitrary text and well-formed replies.
STEP_READER = {"prlt": "arms", "mbt": "arms"}
STEP_TEXTS = {
    "wason246": ("QUERY: 1, 2, 3 (expect yes)", "QUERY: 2, 4, 6", "RULE: x < y < z", "Answer: RULE: z == x + y",
                 "RULE: __import__('os')", "QUERY: 1, 2"),
    # A rule, then any text or a reflection: the reflection record has parse / invalid / choice too.
    "wason246_reflect": ("QUERY: 1, 2, 3 (expect yes)", "RULE: x < y < z", "RULE: __import__('os')",
                         '{"rationality_judgement": "Not reasonable", "confidence_score": 30, '
                         '"new_response": "RULE: x + y == z"}', '{"new_response": "QUERY: 1, 2, 3"}',
                         "Reasonableness: Reasonable\nConfidence level: 85"),
    "reflect": ("Answer: True", "Answer: 3", "Answer: red", '{"rationality_judgement": "Reasonable", '
                '"confidence_score": 90, "model_reflection": "ok", "new_response": "None"}'),
}
# The metacognition pass's first turn is a static probe's _gen prompt, which asks for an answer line only.
ONLY_STRATEGY = {"reflect": Strategy.FREE}


@PROFILE
@given(data=st.data(), name=st.sampled_from(CHOICE_PARADIGMS), strategy=STRATEGIES)
def test_env_step_on_any_text_logs_a_valid_or_invalid_trial(data, name, strategy):
    """env.step never raises; each logged reply is valid (a choice) or invalid (no choice), never both."""
    paradigm = get_paradigm(name)
    strategy = ONLY_STRATEGY.get(name, strategy)
    params = paradigm.make_params(None, strategy.value)
    env = paradigm.env_cls(params)
    _, info = env.reset(seed=data.draw(st.integers(0, 3)))
    reader = READERS.get(STEP_READER.get(name, name))
    texts = st.one_of(replies(reader), st.text()) if reader else st.one_of(st.text(), st.sampled_from(STEP_TEXTS[name]))
    while len(env.log) < 2:
        message, terminated, truncated, info = env.step(data.draw(texts))
        assert isinstance(message, str)
        if terminated or truncated:
            break
    for record in env.log:
        if name == "reflect":  # its answer turn: the probe's reading; the metacognition turn: tests/test_metacognition.py
            if record.get("phase") == "answer":
                assert record["parse"] in {p.value for p in ParsePath}
                assert (record["parse"] == ParsePath.INVALID.value) == (record["choice"] is None)
            continue
        for (parse, invalid), choice in zip(PARSE_FIELDS.get(name, (("parse", "invalid"),)),
                                            CHOICE_FIELDS.get(name, ("choice",))):  # fmt: skip
            assert record[parse] in {p.value for p in ParsePath}
            assert (record[parse] == ParsePath.INVALID.value) == (record[invalid] is not None)
            assert (record[choice] is None) == (record[invalid] is not None)
    scores = paradigm.metrics(env.log, params)
    assert 0.0 <= scores["fallback_share"] <= 1.0
