"""Taboo (clembench, as Momentè et al. 2025 ran it): protocol, reply reading, both taboo rules,
hostile replies, scores of hand-played games and of the reference players, instances.

Most tests play a small word list (one word per band, :data:`BANDS`) so that the target is known;
the tests marked "shipped list" read ``lm_eval_cog/games/data/taboo_words.json``.
"""

from __future__ import annotations

import json
import math
import re
import time

import numpy as np
import pytest

from lm_eval_cog.games.taboo import PARADIGM, TabooEnv, TabooParams, instances, taboo_metrics
from lm_eval_cog.games.taboo.agents import SAFE_CLUES, breaks_a_rule, safe_clue
from lm_eval_cog.games.taboo.prompts import guesser_prompt
from lm_eval_cog.games.taboo import rules
from lm_eval_cog.games.taboo.rules import (
    JOIN_SLACK,
    JOIN_SPREAD,
    fold_accents,
    letters,
    normalise_guess,
    paper_hits,
    paper_tokens,
    read_tagged,
    stem,
    stem_prefix,
    strict_hits,
)
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import Strategy
from lm_eval_cog.paradigms.chance import play

FIXTURE = {
    "source": {"note": "test fixture"},
    "bands": {
        "high": {"words": [{"word": "flashlight", "related": ["torch", "lamp", "battery"]}]},
        "medium": {"words": [{"word": "running", "related": ["race", "jog", "sprint"]}]},
        "low": {"words": [{"word": "autograph", "related": ["signature", "celebrity", "firing"]}]},
    },
}
SHIPPED = instances.resources.files(instances.DATA_PACKAGE).joinpath(instances.DATA_DIR).joinpath(instances.DATA_NAME)
shipped_list = pytest.mark.skipif(not SHIPPED.is_file(), reason="lm_eval_cog/games/data/taboo_words.json not built yet")


@pytest.fixture
def bands(monkeypatch):
    """The one-word-per-band fixture in place of the shipped list (for the env and the agents)."""
    parsed = instances.parse_bands(FIXTURE)
    monkeypatch.setattr(instances, "word_bands", lambda: parsed)
    return parsed


def game(*replies: str, experiment: str = "high", **params) -> TabooEnv:
    """A game on the fixture's band ``experiment`` after ``replies`` (describer first, then in turn)."""
    env = TabooEnv(TabooParams(experiment=experiment, **params))
    env.reset(seed=0)
    for reply in replies:
        env.step(reply)
    return env


def outcome(env: TabooEnv) -> str | None:
    return env.log[-1]["outcome"] if env.log and env.log[-1]["type"] == "end" else None


def metrics(env: TabooEnv) -> dict[str, float]:
    return taboo_metrics(env.log, env.params)


# ---------------------------------------------------------------- hand-played games and their scores
def test_a_win_at_turn_2_scores_50(bands):
    """Wrong guess, new clue, right guess: main = 100 / 2 = 50; 4 model calls, all in form."""
    env = game("CLUE: it shines in the dark", "GUESS: candle", "CLUE: carried on camping trips", "GUESS: flashlight")
    m = metrics(env)
    assert outcome(env) == "success" and env.log[-1]["turn"] == 2
    assert m["main_score"] == 50.0 and m["clemscore"] == 50.0 and m["win_turn"] == 2.0
    assert (m["success"], m["lose"], m["aborted"], m["played"]) == (1.0, 0.0, 0.0, 1.0)
    assert (m["request_count"], m["parsed_request_count"], m["violated_request_count"]) == (4.0, 4.0, 0.0)
    assert m["request_success_ratio"] == 1.0
    assert (m["violation_paper_rule"], m["violation_strict_rule"]) == (0.0, 0.0)
    assert (m["repetition_describer"], m["repetition_guesser"]) == (0.0, 0.0)


def test_a_win_at_turn_1_scores_100_and_at_turn_3_scores_100_over_3(bands):
    """main = 100 / t, not rounded: 100 at turn 1, 33.333... at turn 3."""
    assert metrics(game("CLUE: it shines", "GUESS: flashlight"))["main_score"] == 100.0
    env = game("CLUE: a", "GUESS: x", "CLUE: b", "GUESS: y", "CLUE: c", "GUESS: flashlight")
    assert metrics(env)["main_score"] == 100 / 3 and metrics(env)["win_turn"] == 3.0


def test_three_wrong_guesses_lose_with_score_0(bands):
    """After the 3rd wrong guess the game is lost: main 0 (played, counted in the quality score)."""
    env = game("CLUE: a", "GUESS: x", "CLUE: b", "GUESS: y", "CLUE: c", "GUESS: z")
    m = metrics(env)
    assert outcome(env) == "lose" and env._done
    assert (m["main_score"], m["clemscore"], m["lose"], m["played"], m["request_count"]) == (0.0, 0.0, 1.0, 1.0, 6.0)
    assert math.isnan(m["win_turn"])


def test_max_clues_sets_the_number_of_turns(bands):
    """With max_clues = 1 the first wrong guess loses; with 5 a win at turn 5 scores 100 / 5 = 20."""
    assert outcome(game("CLUE: a", "GUESS: x", max_clues=1)) == "lose"
    replies = [r for t in range(4) for r in ("CLUE: hint", f"GUESS: w{t}")] + ["CLUE: hint", "GUESS: flashlight"]
    assert metrics(game(*replies, max_clues=5))["main_score"] == 20.0


def test_a_missing_clue_tag_aborts(bands):
    """No 'CLUE:' at the start: invalid, aborted, main None (NaN), 0 for clemscore, nothing to count."""
    env = game("It shines in the dark.")
    m = metrics(env)
    assert env.log[0]["status"] == "invalid" and outcome(env) == "aborted" and env.log[-1]["main_score"] is None
    assert math.isnan(m["main_score"])
    assert (m["clemscore"], m["played"], m["aborted"], m["lose"]) == (0.0, 0.0, 1.0, 0.0)
    assert (m["request_count"], m["parsed_request_count"], m["violated_request_count"], m["request_success_ratio"]) == (
        1.0, 0.0, 1.0, 0.0)  # fmt: skip
    extras = ("win_turn", "violation_paper_rule", "violation_strict_rule", "repetition_describer", "repetition_guesser")
    for extra in extras:
        assert math.isnan(m[extra]), extra


def test_a_missing_guess_tag_aborts_after_a_valid_clue(bands):
    """2 calls, the 1st in form: request_success_ratio = 1 / 2; the clue was read (violations 0)."""
    m = metrics(game("CLUE: it shines", "flashlight"))
    assert m["aborted"] == 1.0 and m["request_success_ratio"] == 0.5
    assert (m["violation_paper_rule"], m["violation_strict_rule"]) == (0.0, 0.0) and math.isnan(m["repetition_guesser"])


def test_a_stem_variant_of_a_related_word_loses(bands):
    """Snowball stems 'runs' and 'running' alike ('run'): a clue with 'runs' for the target 'running'
    is a violation under both rules; the game is lost (main 0), not aborted. ('runner' is no such pair:
    Snowball keeps it 'runner'.)"""
    assert stem("runs") == stem("running") == "run" and stem("runner") == "runner"
    env = game("CLUE: what a person does who runs a marathon", experiment="medium")
    m = metrics(env)
    assert env.log[0]["status"] == "violation" and env.log[0]["taboo_paper"] and env.log[0]["taboo_strict"]
    assert "runs ~ running" in env.log[0]["reason"]
    assert outcome(env) == "lose"
    assert (m["main_score"], m["lose"], m["aborted"], m["request_count"]) == (0.0, 1.0, 0.0, 1.0)
    assert (m["parsed_request_count"], m["violation_paper_rule"], m["violation_strict_rule"]) == (1.0, 1.0, 1.0)


def test_a_clue_with_a_related_words_stem_variant_loses_after_a_wrong_guess(bands):
    """A taboo clue at turn 2 still loses with main 0 (3 calls, all in form)."""
    m = metrics(game("CLUE: it shines", "GUESS: lamp", "CLUE: the batteries run down"))
    assert (m["main_score"], m["lose"], m["request_count"], m["parsed_request_count"]) == (0.0, 1.0, 3.0, 3.0)


# ---------------------------------------------------------------- the two taboo rules
TABOO = ("flashlight", "torch", "lamp", "battery")
#: The issue's target and related words (issue 29): the evasions a scan of clembench's rule found.
POLITICS = ("government", "political", "like", "politics")


@pytest.mark.parametrize(
    ("clue", "taboo", "paper", "strict"),
    [
        # issue 29: split, inflected and accented forms the paper rule misses, the strict rule catches
        ("gov ernments", POLITICS, False, True),
        ("pol itical", POLITICS, False, True),
        ("lik es", POLITICS, False, True),
        ("polítics", POLITICS, False, True),  # NFKD drops the accent; .lower() keeps it
        # issue 29: a word that merely contains a taboo word is fair under both (clembench, clemcore#9)
        ("a train", ("rain",), False, False),
        ("a brain", ("rain",), False, False),
        ("the hearth", ("heart",), False, False),
        ("a start", ("star",), False, False),
        ("a trait", ("portrait",), False, False),
        # 24 more
        ("it shines in the dark", TABOO, False, False),
        ("FLASHLIGHTS!", TABOO, True, True),  # stem, lowercase, punctuation
        ("flash-light", TABOO, True, True),  # the paper removes "-" before splitting
        ("flash light", TABOO, False, True),  # two adjacent runs join to the target
        ("FLASH\nLIGHT", TABOO, False, True),  # a line break splits it too
        ("t o r c h", TABOO, False, True),  # letter by letter
        ("t-o-r-c-h", TABOO, True, True),  # the paper removes the hyphens
        ("bat tery", TABOO, False, True),
        ("a bat, a tery", TABOO, False, False),  # "bat" and "tery" are not adjacent runs
        ("ｆｌａｓｈｌｉｇｈｔ", TABOO, False, True),  # full-width letters: NFKD folds them, .lower() does not
        ("ﬂashlight", TABOO, False, True),  # the "fl" ligature
        ("Lámps", TABOO, False, True),
        ("torch\u200bes", TABOO, False, True),  # a zero-width space: one paper token, two letter runs
        ("the lamp’s glow", TABOO, True, True),  # the stemmer reads the curly apostrophe as "'"
        ("torches and lamps", TABOO, True, True),
        ("batteries", TABOO, True, True),  # Snowball: batteri
        ("superflashlightish", TABOO, False, False),  # contains the target: fair, as clembench decided
        ("torchbearer", TABOO, False, False),  # contains a related word
        ("a lampshade", TABOO, False, False),
        ("a light to carry", TABOO, False, False),  # part of the target: fair
        ("a batter", TABOO, False, False),  # batter vs batteri: other stems
        ("flаshlight", TABOO, False, False),  # Cyrillic "а": another letter for NFKD, not the target
        ("not one", ("tone",), False, False),  # the join "notone" is no word of the list
        ("as sure as can be", ("assure",), False, True),
        ("the dying light", ("die",), True, True),  # Snowball: dying -> die (y read as i)
    ],
)
def test_paper_and_strict_rules_on_clues(clue, taboo, paper, strict):
    """Both rules as documented; the strict rule holds every paper hit."""
    assert bool(paper_hits(clue, taboo)) is paper
    assert bool(strict_hits(clue, taboo)) is strict
    assert set(paper_hits(clue, taboo)) <= set(strict_hits(clue, taboo))


def test_the_rules_name_each_hit_with_the_runs_that_spell_it():
    """The hits read as the log's reason shows them: the token or the runs, and the taboo word."""
    assert strict_hits("gov ernments", POLITICS) == ["gov ernments ~ government"]
    assert strict_hits("as sure as can be", ("assure",)) == ["as sure ~ assure"]
    assert strict_hits("the flashlight", ("flashlight",)) == ["flashlight ~ flashlight"]
    assert paper_hits("the lamp’s glow", TABOO) == ["lamp’s ~ lamp"]
    assert strict_hits("a smart start every year", ("art", "ear")) == []


def test_the_strict_rule_checks_stems_of_stopwords_the_paper_drops():
    """sklearn's stopword list holds content words ('fire'): the paper rule drops them, the strict rule
    still compares their stem ('fire' ~ 'firing'); a clue that breaks only it loses under 'strict'."""
    assert paper_hits("fire", ("firing",)) == [] and strict_hits("fire", ("firing",)) == ["fire ~ firing"]


def test_the_paper_rule_takes_its_stop_words_as_a_parameter():
    """Another stop word list (e.g. NLTK's, where 'fire' is no stop word) changes what the paper rule skips."""
    assert paper_hits("fire", ("firing",), stop_words=frozenset({"the"})) == ["fire ~ firing"]
    assert paper_hits("the firing", ("firing",), stop_words=frozenset({"firing"})) == []


def test_a_split_clue_loses_under_strict_and_passes_under_the_default_paper_rule(bands):
    """'flash light': paper (the default) -> valid, the game goes on, and violation_strict_rule still
    records it (1) while violation_paper_rule is 0; strict -> violation, lose."""
    assert TabooParams().taboo_rule == "paper"
    strict = game("CLUE: flash light", taboo_rule="strict")
    assert strict.log[0]["status"] == "violation" and outcome(strict) == "lose"
    paper = game("CLUE: flash light", "GUESS: flashlight")
    assert paper.log[0]["status"] == "valid"
    assert (paper.log[0]["taboo_paper"], paper.log[0]["taboo_strict"]) == (False, True)
    m = metrics(paper)
    assert (m["main_score"], m["violation_paper_rule"], m["violation_strict_rule"]) == (100.0, 0.0, 1.0)


def test_every_snowball_stem_starts_as_its_word_does():
    """The property that lets both rules skip most tokens unstemmed (rules.stem_prefix): every word of
    up to two letters, with 50 suffixes (and after a curly apostrophe), starts with its stem's prefix."""
    suffixes = ["", "s", "es", "ies", "ied", "ing", "ingly", "ed", "edly", "eed", "eedly", "y", "ly", "e", "ement",
                "ational", "ness", "sses", "ss", "us", "ful", "ization", "izations", "fulness", "ousness", "iveness",
                "alism", "ability", "ibly", "ically", "ments", "ations", "ator", "ence", "ency", "ance", "able", "ible",
                "ant", "ent", "ism", "iti", "ous", "ive", "ize", "ise", "al", "er", "ic", "ate"]  # fmt: skip
    letters_ = "abcdefghijklmnopqrstuvwxyz"
    stems = [a + b for a in letters_ for b in ["", *letters_]] + ["dy", "ly", "ty", "sk", "id", "ug", "ea", "on", "si", "ge"]
    for start in stems:
        for suffix in suffixes:
            for word in (start + suffix, "\u2019" + start + suffix):
                read = word[1:] if len(word) > 2 and word[0] == "\u2019" else word  # as the stemmer reads it
                assert read.replace("y", "i").startswith(stem_prefix(stem(word))), (word, stem(word))


def _reference_hits(clue: str, taboo: tuple[str, ...]) -> tuple[set[str], set[str]]:
    """Both rules computed the slow way, every token stemmed (what the regular expressions must equal)."""
    by_stem: dict[str, str] = {}
    for w in taboo:
        by_stem.setdefault(stem(w.lower()), w)
    paper = {f"{t} ~ {by_stem[stem(t)]}" for t in paper_tokens(clue) if stem(t) in by_stem}
    strict_stems: dict[str, str] = {}
    for w in taboo:
        strict_stems.setdefault(stem(letters(w)), w)
    folded = fold_accents(clue)
    runs = [(m.start(), m.end(), m.group()) for m in re.finditer(r"[^\W\d_]+", folded)]
    longest = max(len(letters(w)) for w in taboo) + JOIN_SLACK
    strict = set(paper)
    for i, (start, _, run) in enumerate(runs):
        if stem(run) in strict_stems:
            strict.add(f"{run} ~ {strict_stems[stem(run)]}")
        for j in range(i + 1, len(runs)):
            joined = "".join(r for _, _, r in runs[i : j + 1])
            if len(joined) > longest or runs[j][1] - start > JOIN_SPREAD * longest:
                break
            if stem(joined) in strict_stems:
                strict.add(f"{' '.join(r for _, _, r in runs[i : j + 1])} ~ {strict_stems[stem(joined)]}")
    return paper, strict


def test_skipping_tokens_unstemmed_never_changes_a_hit():
    """On 400 clues mixing the taboo words' split, inflected, accented and capitalised forms with other
    words, both rules give exactly the hits of stemming every token and every join."""
    rng = np.random.default_rng(7)
    taboo_sets = [TABOO, POLITICS, ("die", "tying", "yes", "ice cream"), ("assure", "rain", "heart", "star")]
    pieces = ["gov ernments", "pol-itical", "lik es", "polítics", "LIKES", "dying", "ty ing", "y es", "icecreams",
              "ice-creams", "as sure", "rains", "train", "hearth", "star s", "t o r c h", "bat teries", "Lámp",
              "’likes", "the", "a", "of", "fire", "light", "flash", "start", "x", "y", "i", "1", "--", "’",
              "g", "o", "v", "e", "rnment", "f l a s h l i g h t"]  # fmt: skip
    for k in range(400):
        taboo = taboo_sets[k % len(taboo_sets)]
        clue = rng.choice([" ", "", "-", "  ", "\n"], size=12).tolist()
        clue = "".join(sep + str(rng.choice(pieces)) for sep in clue)
        paper, strict = _reference_hits(clue, taboo)
        assert set(paper_hits(clue, taboo)) == paper, clue
        assert set(strict_hits(clue, taboo)) == strict, clue


def test_a_4_mb_clue_stems_a_few_tokens_and_is_checked_in_seconds(monkeypatch):
    """Defect C of issue 30: a 4 MB clue of distinct words took 28.5 s. Now only tokens that start as a
    taboo stem does are stemmed (about 1 in 80 here), windows of joins are bounded, and both rules
    finish well within a generous bound (measured about 1.5 s on the 2-core development machine under load)."""
    rng = np.random.default_rng(3)
    codes = rng.integers(97, 123, size=4_000_000, dtype=np.uint8)
    codes[rng.random(4_000_000) < 1 / 7] = 32  # a space every 7 letters on average
    clue = codes.tobytes().decode("ascii")
    distinct = len(set(clue.split()))
    assert len(clue) == 4_000_000 and distinct > 300_000
    calls = []
    real = rules._stemmer()

    class Counting:
        def stem(self, word: str) -> str:
            calls.append(word)
            return real.stem(word)

    monkeypatch.setattr(rules, "_stemmer", lambda: Counting())
    rules.stem.cache_clear()
    start = time.perf_counter()
    hits = (paper_hits(clue, POLITICS), strict_hits(clue, POLITICS))
    elapsed = time.perf_counter() - start
    rules.stem.cache_clear()
    assert len(calls) < distinct / 50, len(calls)
    assert elapsed < 10.0, elapsed
    # The check still works at that size: one split target at the end is found.
    assert hits == ([], []) or all(isinstance(h, list) for h in hits)
    assert strict_hits(clue + " gov ernment", POLITICS)[-1] == "gov ernment ~ government"


def test_look_alike_cyrillic_letters_are_not_the_target(bands):
    """'flаshlight' with a Cyrillic 'а' (U+0430) passes both rules (NFKC folds compatibility forms, not
    other scripts), and as a guess it is wrong: a documented loophole."""
    env = game("CLUE: fl\u0430shlight", "GUESS: fl\u0430shlight")
    assert env.log[0]["status"] == "valid" and env.log[1]["correct"] is False and outcome(env) is None


# ---------------------------------------------------------------- reading replies
def test_tags_are_read_at_the_start_of_the_stripped_reply_case_sensitively():
    assert read_tagged("  CLUE: shines \n", "CLUE:") == "shines"
    assert read_tagged("CLUE:", "CLUE:") == ""
    for reply in ("clue: shines", "Clue: shines", "**CLUE:** shines", "My CLUE: shines", "\x00CLUE: x", "", "  "):
        assert read_tagged(reply, "CLUE:") is None, reply


@pytest.mark.parametrize(
    ("guess", "expected"),
    [(" Flashlight! ", "flashlight"), ("'flashlight'.", "flashlight"), ("ＦＬＡＳＨＬＩＧＨＴ", "flashlight"),
     ("flashlight\nbecause it shines", "flashlight\nbecause it shines"), ("the flashlight", "the flashlight")],
)  # fmt: skip
def test_guess_normalisation(guess, expected):
    """Stripped, NFKC + casefold, ASCII punctuation removed; line breaks kept."""
    assert normalise_guess(guess) == expected


def test_guesses_match_the_target_up_to_case_punctuation_and_width(bands):
    for reply in ("GUESS: Flashlight.", "GUESS:flashlight", "GUESS: ＦＬＡＳＨＬＩＧＨＴ", "  GUESS: flashlight  "):
        assert outcome(game("CLUE: it shines", reply)) == "success", reply


def test_a_guess_of_several_lines_is_a_wrong_guess_not_an_abort(bands):
    env = game("CLUE: it shines", "GUESS: flashlight\nI am sure.")
    assert env.log[1]["status"] == "valid" and env.log[1]["correct"] is False and outcome(env) is None


def test_replies_with_both_tags(bands):
    """Only the leading tag counts: a clue may mention 'GUESS:' (valid, forwarded); a describer reply that
    starts with 'GUESS:' aborts; a guesser reply 'GUESS: lamp CLUE: x' is the wrong guess 'lamp clue x';
    one that starts with 'CLUE:' aborts."""
    env = game("CLUE: you hold it GUESS: what?", "GUESS: lamp CLUE: x")
    assert env.log[0]["status"] == "valid" and env.log[1]["content"] == "lamp clue x" and outcome(env) is None
    assert outcome(game("GUESS: flashlight CLUE: x")) == "aborted"
    assert outcome(game("CLUE: it shines", "CLUE: x GUESS: flashlight")) == "aborted"


# (reply, outcome as the describer's 1st reply, outcome as the guesser's 1st reply); None: the game goes on.
HOSTILE = [
    ("", "aborted", "aborted"),
    ("   ", "aborted", "aborted"),
    ("\x00\n\t", "aborted", "aborted"),
    ("\x00CLUE: x", "aborted", "aborted"),  # a control character before the tag
    ("\u202e\u200bGUESS: flashlight", "aborted", "aborted"),  # invisible characters before the tag
    ("clue: lower case", "aborted", "aborted"),
    ("Guess: flashlight", "aborted", "aborted"),
    ("🙂 " * 50, "aborted", "aborted"),
    ("x" * 100_000, "aborted", "aborted"),  # 100 kB, no tag
    ("CLUE" + ":" * 50_000, None, "aborted"),  # a (harmless) clue of colons; no GUESS: tag
    ("GUESS: " + "a\n" * 50_000, "aborted", None),  # no CLUE: tag; a 50,000-line wrong guess
]


@pytest.mark.parametrize(("reply", "as_describer", "as_guesser"), HOSTILE, ids=[f"h{i}" for i in range(len(HOSTILE))])
def test_hostile_replies_never_raise_and_follow_the_rules(bands, reply, as_describer, as_guesser):
    """No tag at the very start -> aborted, from either role; the log stays strict JSON."""
    for replies, expected in (([reply], as_describer), (["CLUE: it shines", reply], as_guesser)):
        env = game(*replies)
        assert outcome(env) == expected
        assert env.log[len(replies) - 1]["status"] == ("invalid" if expected == "aborted" else "valid")
        json.dumps(env.log, allow_nan=False)


def test_a_100_kb_clue_is_checked_in_linear_time(bands):
    """17,000 distinct words (~100 kB): both rules run, the clue is forwarded whole, well under 5 s."""
    rng = np.random.default_rng(1)
    words = ["".join(chr(97 + int(c)) for c in rng.integers(26, size=int(k))) for k in rng.integers(3, 10, size=17_000)]
    clue = "CLUE: " + " ".join(w for w in words if "flashlight" not in w)
    assert len(clue) > 100_000
    env = TabooEnv(TabooParams(experiment="high", taboo_rule="paper"))
    env.reset(seed=0)
    start = time.perf_counter()
    message, terminated, _, _ = env.step(clue)
    assert time.perf_counter() - start < 5.0
    assert message.endswith(clue) and len(env.log[0]["content"]) <= 201  # the log keeps 200 characters


# ---------------------------------------------------------------- messages
def test_each_role_gets_what_the_protocol_forwards(bands):
    """Describer: rules + target + related words; guesser: its rules, a blank line and the describer's whole
    first reply; later the guesser gets the clue reply only and the describer the guesser's whole reply."""
    env = TabooEnv(TabooParams(experiment="high"))
    first, info = env.reset(seed=0)
    assert info["role"] == "describer" and env.due == "describer"
    assert "Target word: flashlight" in first and all(f"- {w}" in first for w in ("torch", "lamp", "battery"))
    assert "CLUE:" in first and "3 tries" in first
    message, _, _, info = env.step("  CLUE: it shines  ")
    assert info["role"] == "guesser" and message == guesser_prompt(3) + "\n\nCLUE: it shines"
    assert "GUESS:" in message and "3 tries" in message
    message, _, _, info = env.step("GUESS: candle, I think")
    assert info["role"] == "describer" and message == "GUESS: candle, I think"
    message, _, _, info = env.step("CLUE: on camping trips")
    assert info["role"] == "guesser" and message == "CLUE: on camping trips"
    closing, terminated, truncated, _ = env.step("GUESS: flashlight")
    assert terminated and not truncated and '"flashlight"' in closing


# ---------------------------------------------------------------- repetitions
def test_repetitions_are_counted_per_role(bands):
    """Clues 'a b', 'A  b', 'a b' (case and spacing ignored): 2 repeats; guesses 'x', 'X.', 'y': 1 repeat
    (clembench's counters were always 0: it looked for actions named 'clue'/'guess' but logged 'valid clue')."""
    env = game("CLUE: a b", "GUESS: x", "CLUE: A  b", "GUESS: X.", "CLUE: a b", "GUESS: y")
    m = metrics(env)
    assert (m["repetition_describer"], m["repetition_guesser"]) == (2.0, 1.0)


# ---------------------------------------------------------------- reference players
SEEDS = range(6)


@pytest.mark.parametrize("experiment", ["high", "medium", "low"])
def test_reference_players_exact_scores_on_the_fixture(bands, experiment):
    """optimal 100 (turn 1); slow_winner 100/3 (turn 3, two different wrong guesses); rule_breaker aborted."""
    params = TabooParams(experiment=experiment)
    for seed in SEEDS:
        optimal, slow, breaker = (taboo_metrics(play(PARADIGM, params, seed, p).log, params)
                                  for p in ("optimal", "slow_winner", "rule_breaker"))  # fmt: skip
        assert optimal["main_score"] == 100.0 and optimal["request_count"] == 2.0
        assert slow["main_score"] == 100 / 3 and slow["request_count"] == 6.0 and slow["repetition_guesser"] == 0.0
        assert slow["violation_strict_rule"] == 0.0 and slow["repetition_describer"] == 0.0
        assert breaker["aborted"] == 1.0 and breaker["request_count"] == 1.0


def test_slow_winner_wins_at_the_last_turn_for_any_max_clues(bands):
    for max_clues, score in ((1, 100.0), (2, 50.0), (4, 25.0)):
        params = TabooParams(max_clues=max_clues)
        assert taboo_metrics(play(PARADIGM, params, 3, "slow_winner").log, params)["main_score"] == score


def test_the_random_player_is_deterministic_in_form_and_within_bounds(bands):
    """Random clues never break a rule here; guesses are band words (the fixture's band has 1: it always wins)."""
    params = TabooParams()
    for seed in SEEDS:
        a, b = play(PARADIGM, params, seed, "random"), play(PARADIGM, params, seed, "random")
        assert a.log == b.log
        m = taboo_metrics(a.log, params)
        assert m["main_score"] == 100.0 and m["violation_strict_rule"] == 0.0


def test_safe_clue_falls_back_when_a_template_word_is_taboo():
    """The 1st template says 'letters': with the related word 'letter' the 2nd template is used, and the
    game's own checks accept it."""
    assert safe_clue("flashlight", ("torch",)) == "CLUE: 10 letters, beginning with F."
    clue = safe_clue("flashlight", ("letter", "torch"))
    assert clue == "CLUE: " + SAFE_CLUES[1].format(n=10, first="F", last="T")
    assert breaks_a_rule("10 letters, beginning with F.", "flashlight", ("letter",))
    assert not breaks_a_rule(clue[len("CLUE: ") :], "flashlight", ("letter", "torch"))


# ---------------------------------------------------------------- instances, determinism, params
def test_experiments_cycle_with_the_episode_index_and_the_instance_follows_the_seed(bands):
    env = TabooEnv(TabooParams())
    seen = []
    for index in range(6):
        _, info = env.reset(seed=5, options={"index": index})
        seen.append((info["experiment"], info["target"]))
    assert [e for e, _ in seen] == ["high", "medium", "low"] * 2
    assert seen[0] == ("high", "flashlight") and seen[1] == ("medium", "running")
    _, info = TabooEnv(TabooParams(experiment="low")).reset(seed=5, options={"index": 1})
    assert info["experiment"] == "low"


def test_the_word_file_parser_rejects_malformed_data():
    with pytest.raises(ValueError, match="no 'bands'"):
        instances.parse_bands({})
    with pytest.raises(ValueError, match="band 'low' has no 'words'"):
        instances.parse_bands({"bands": {"high": FIXTURE["bands"]["high"], "medium": FIXTURE["bands"]["medium"]}})
    bad = {"bands": {**FIXTURE["bands"], "high": {"words": [{"word": "x", "related": "y"}]}}}
    with pytest.raises(ValueError, match="'related' must be a list"):
        instances.parse_bands(bad)


@pytest.mark.parametrize(
    ("overrides", "named"),
    [({"strategy": "cot"}, "strategy"), ({"experiment": "mid"}, "experiment"), ({"max_clues": 0}, "max_clues"),
     ({"max_clues": True}, "max_clues"), ({"taboo_rule": "loose"}, "taboo_rule"), ({"bogus": 1}, "bogus")],
)  # fmt: skip
def test_parameter_errors_name_the_parameter(overrides, named):
    with pytest.raises(ValueError, match=named):
        PARADIGM.make_params(overrides=overrides)


def test_params_defaults_and_bounds():
    """max_turns (model calls) = 2 x max_clues + 1: never reached by the rules; Strategy.DIRECT is accepted."""
    assert TabooParams().max_turns == 7 and TabooParams(max_clues=5).max_turns == 11
    assert PARADIGM.make_params(strategy=Strategy.DIRECT).strategy == "direct"
    assert get_paradigm("taboo") is PARADIGM and PARADIGM.policies() == ["heuristic", "optimal", "random", "rule_breaker", "slow_winner"]


def test_metrics_keys_equal_the_specs_and_the_log_is_strict_json(bands):
    names = {s.name for s in PARADIGM.metric_specs}
    for policy in PARADIGM.policies():
        env = play(PARADIGM, TabooParams(), 0, policy)
        assert set(PARADIGM.metrics(env.log, env.params)) == names
        assert json.loads(json.dumps(env.log, allow_nan=False)) == env.log
    assert set(taboo_metrics([], TabooParams())) == names


# ---------------------------------------------------------------- the shipped word list
@shipped_list
def test_the_shipped_list_has_three_bands_of_words_with_related_words():
    bands = instances.word_bands()
    assert set(bands) == {"high", "medium", "low"} and all(len(words) >= 20 for words in bands.values())
    for words in bands.values():
        assert all(len(w.related) == 3 for w in words)


@shipped_list
def test_on_the_shipped_list_both_rules_catch_every_target_and_optimal_clues_are_clean():
    """Every target said outright breaks both rules (the list has no stopword targets, which the paper
    rule would miss); the optimal player's clue breaks neither rule for every word and turn."""
    for words in instances.word_bands().values():
        for w in words:
            assert paper_hits(w.word, (w.word, *w.related)) and strict_hits(w.word, (w.word, *w.related)), w.word
            for turn in (1, 2, 3):
                assert not breaks_a_rule(safe_clue(w.word, w.related, turn)[len("CLUE: ") :], w.word, w.related)


@shipped_list
@pytest.mark.parametrize("experiment", ["all", "high", "medium", "low"])
def test_reference_players_exact_scores_on_the_shipped_list(experiment):
    """optimal 100, slow_winner 100/3, rule_breaker aborted; random: never aborted, a score in {0, 100/t}."""
    params = TabooParams(experiment=experiment)
    targets = set()
    for seed in range(8):
        for policy, expected in (("optimal", 100.0), ("slow_winner", 100 / 3)):
            assert taboo_metrics(play(PARADIGM, params, seed, policy).log, params)["main_score"] == expected
        assert math.isnan(taboo_metrics(play(PARADIGM, params, seed, "rule_breaker").log, params)["main_score"])
        env = play(PARADIGM, params, seed, "random")
        assert taboo_metrics(env.log, params)["main_score"] in (0.0, 100.0, 50.0, 100 / 3)
        assert env.log == play(PARADIGM, params, seed, "random").log
        targets.add(env.log[-1]["target"])
    assert len(targets) > 1  # different seeds, different targets


@shipped_list
def test_same_seed_and_index_give_the_same_instance_and_the_index_picks_the_band_on_the_shipped_list():
    env = TabooEnv(TabooParams())
    bands = instances.word_bands()
    for seed in range(5):
        for index in range(6):
            _, info = env.reset(seed=seed, options={"index": index})
            again = TabooEnv(TabooParams()).reset(seed=seed, options={"index": index})[1]
            assert (info["target"], info["related"]) == (again["target"], again["related"])
            band = ("high", "medium", "low")[index % 3]
            assert info["experiment"] == band and info["target"] in {w.word for w in bands[band]}


def test_the_log_reason_shows_at_most_five_hits(bands):
    """The target split at each of its 9 places, and its plural at 9 more: 18 strict hits or more; the
    reason lists 5 and says how many more."""
    splits = [f"{w[:k]} {w[k:]}" for w in ("flashlight", "flashlights") for k in range(1, 10)]
    clue = "; ".join(splits)
    hits = strict_hits(clue, TABOO)
    assert len(hits) >= 18 and all(f"{s} ~ flashlight" in hits for s in splits)
    env = game(f"CLUE: {clue}", taboo_rule="strict")
    assert env.log[0]["status"] == "violation" and env.log[0]["reason"].endswith(f"; and {len(hits) - 5} more")
    assert env.log[0]["reason"].count("~ flashlight") == 5
