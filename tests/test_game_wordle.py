"""Wordle, Wordle with clue and Wordle with critic (clembench as Momentè et al. ran them).

Protocol tests play a small word list (``small_words``: the only high target is *spree*, clue
"Binge"; the only medium one is *steed*), so that every hand-built game has a known target.
Instance and reference-player tests use the real ``games/data/wordle_words.json``.
"""

from __future__ import annotations

import json
import math
import time

import pytest

from lm_eval_cog.games.base import ABORTED, INVALID, LOSE, REJECTED, SUCCESS, VALID
from lm_eval_cog.games.wordle import (
    WordleClueParams,
    WordleCriticEnv,
    WordleCriticParams,
    WordleEnv,
    WordleParams,
    words,
)
from lm_eval_cog.games.wordle.feedback import paper_colours, render, standard_colours
from lm_eval_cog.games.wordle.parse import (
    INVALID_FORMAT,
    INVALID_START_WORD,
    INVALID_WORD_LENGTH,
    MORE_THAN_ONE_GUESS,
    NOT_VALID_CRITIC_WORD,
    UNKNOWN_TAGS,
    FormError,
    Reading,
    read_agreement,
    read_guess,
)
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import agent_rng
from lm_eval_cog.paradigms.chance import play

GAMES = ("wordle", "wordle_clue", "wordle_critic")
COMMON = {"main_score", "played", "clemscore", "success", "lose", "aborted", "request_count",
          "parsed_request_count", "violated_request_count", "request_success_ratio"}
EXTRAS = {"win_guess", "closeness", "repeated_guesses", "feedback_differs_from_paper"}
CRITIC_EXTRAS = {"critic_agreement_rate", "guess_changed_after_critic"}
# A well-formed 5-letter string in neither word list (the real one has "zzzzz"): refused and asked again.
UNKNOWN = "qxzvj"
SMALL_ALLOWED = ("spree steed spare seeds crane apple other about which their there first would these "
                 "click price shade stone brick")


@pytest.fixture
def small_words(tmp_path, monkeypatch):
    data = {
        "source": {"note": "test fixture"},
        "bands": {
            "high": {"words": [{"word": "spree", "per_million": 5.0, "zipf": 3.7, "clue": "Binge"}]},
            "medium": {"words": [{"word": "steed", "per_million": 1.0, "zipf": 3.0, "clue": "Horse"}]},
            "low": {"words": []},
        },
        "allowed": SMALL_ALLOWED,
    }
    path = tmp_path / "wordle_words.json"
    path.write_text(json.dumps(data))
    monkeypatch.setattr(words, "DATA_FILE", path)
    return path


def g(word: str, why: str = "a reason") -> str:
    return f"guess: {word}\nexplanation: {why}"


def a(verdict: str, why: str = "a reason") -> str:
    return f"agreement: {verdict}\nexplanation: {why}"


def start(game: str, *, index: int = 0, seed: int = 0, **overrides):
    paradigm = get_paradigm(game)
    params = paradigm.make_params(overrides=overrides)
    env = paradigm.env_cls(params)
    message, info = env.reset(seed=seed, options={"index": index})
    return env, message, info


def run(game: str, replies, *, index: int = 0, **overrides):
    """Play ``replies`` in order; returns (env, messages sent after each reply, last info). Fails
    if the game ends before the last reply or is still running after it."""
    env, message, info = start(game, index=index, **overrides)
    messages = [message]
    for i, reply in enumerate(replies):
        message, terminated, truncated, info = env.step(reply)
        messages.append(message)
        assert not truncated
        assert terminated == (i == len(replies) - 1), f"reply {i} ({reply[:30]!r}): terminated={terminated}"
    return env, messages, info


def scores(env):
    return get_paradigm(env.params.variant.name).metrics(env.log, env.params)


def end(env):
    return env.log[-1]


def calls(env):
    return [r for r in env.log if r["type"] == "move"]


# ---------------------------------------------------------------- feedback
def test_standard_feedback_spree_spare_marks_greens_first():
    # target s p r e e, guess s p a r e. Pass 1 (greens): s=s, p=p, a/r no, r/e no, e=e -> G G . . G.
    # Unmatched target letters at the non-green positions 2,3: {r:1, e:1}.
    # Pass 2: a -> none left -> red; r -> r:1 -> yellow.
    assert standard_colours("spare", "spree") == ("green", "green", "red", "yellow", "green")


def test_paper_feedback_spree_spare_makes_the_last_e_yellow():
    # One pass: s -> find 0 = own position, green; p -> 1, green; a -> absent, red;
    # r -> first r at 2 != 3, guess[2]='a' != 'r' -> yellow (takes 2);
    # e -> first e at 3 != 4, guess[3]='r' != 'e' -> yellow (takes 3): should be green.
    assert paper_colours("spare", "spree") == ("green", "green", "red", "yellow", "yellow")


def test_standard_feedback_steed_seeds():
    # target s t e e d, guess s e e d s. Pass 1: s=s green, e/t no, e=e green, d/e no, s/d no.
    # Unmatched at positions 1,3,4: {t:1, e:1, d:1}. Pass 2: e -> e:1 -> yellow; d -> d:1 -> yellow;
    # s -> none left (the only s is green) -> red.
    assert standard_colours("seeds", "steed") == ("green", "yellow", "green", "yellow", "red")


def test_paper_feedback_steed_seeds_makes_the_first_e_red():
    # s -> 0, green; e -> first e at 2 != 1 and guess[2]='e' is the same letter -> red (should be yellow);
    # e -> 2, own position, green; d -> 4 != 3, guess[4]='s' -> yellow; s -> 0 taken, no other s -> red.
    assert paper_colours("seeds", "steed") == ("green", "red", "green", "yellow", "red")


def test_feedback_of_the_word_itself_and_of_a_word_without_common_letters():
    assert standard_colours("spree", "spree") == paper_colours("spree", "spree") == ("green",) * 5
    assert standard_colours("which", "steed") == paper_colours("which", "steed") == ("red",) * 5


def test_feedback_renders_letter_colour_pairs():
    assert render("spare", standard_colours("spare", "spree")) == "s<green> p<green> a<red> r<yellow> e<green>"


# ---------------------------------------------------------------- parsing
def test_read_guess_reads_the_word_lowercased_and_the_explanation():
    assert read_guess("guess: APPLE\nexplanation: red fruit") == Reading("apple", "red fruit")
    assert read_guess("guess: apple\r\nexplanation: crlf") == Reading("apple", "crlf")
    assert read_guess("guess:apple") == Reading("apple", None)


def test_read_guess_explanation_is_optional_and_runs_to_the_end_of_its_line():
    assert read_guess("guess: apple").explanation is None
    assert read_guess("guess: apple\nexplanation:").explanation == ""
    assert read_guess("guess: apple\nexplanation: x; explanation: y").explanation == "x; explanation: y"
    # On the guess's line it is part of the guess, which is then not one word.
    assert read_guess("guess: apple explanation: x").key == INVALID_FORMAT


@pytest.mark.parametrize(
    ("reply", "key"),
    [
        ("", INVALID_START_WORD),
        ("I guess: apple", INVALID_START_WORD),
        ("Guess: apple", INVALID_START_WORD),  # case-sensitive start
        ("GUESS: apple", INVALID_START_WORD),
        ("**guess: apple**", INVALID_START_WORD),
        ("guess: apple\nexplanation: x\nmore", UNKNOWN_TAGS),
        ("guess: apple\n\nexplanation: x", UNKNOWN_TAGS),  # a blank line is a line
        ("guess: apple\nGUESS: crane", MORE_THAN_ONE_GUESS),  # any case counts for 'exactly one'
        ("guess: apple\nexplanation: my guess: apple", MORE_THAN_ONE_GUESS),
        ("guess:", MORE_THAN_ONE_GUESS),  # empty value
        ("guess:   \nexplanation: x", MORE_THAN_ONE_GUESS),
        ("guess: apple.", INVALID_FORMAT),
        ("guess: **apple**", INVALID_FORMAT),
        ("guess: ap ple", INVALID_FORMAT),
        ("guess: appl3", INVALID_FORMAT),
        ("guess: ap\x00le", INVALID_FORMAT),
        ("guess: apples", INVALID_WORD_LENGTH),
        ("guess: app", INVALID_WORD_LENGTH),
    ],
)
def test_read_guess_form_errors_in_the_papers_order(reply, key):
    result = read_guess(reply)
    assert isinstance(result, FormError) and result.key == key, result


def test_read_guess_lets_lookalike_letters_through_to_the_word_list():
    # Cyrillic "а" (U+0430) and full-width letters are letters to isalpha() and make 5 letters:
    # the form is fine; only the list check (a reprompt) refuses them.
    assert read_guess("guess: \u0430pple") == Reading("\u0430pple", None)
    assert read_guess("guess: ａｐｐｌｅ").value == "ａｐｐｌｅ"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("agreement: yes\nexplanation: fits", Reading("yes", "fits")),
        ("agreement: No", Reading("no", None)),
        ("agreement: maybe", NOT_VALID_CRITIC_WORD),
        ("agreement: yes!", INVALID_FORMAT),
        ("Agreement: yes", INVALID_START_WORD),
        ("guess: apple", INVALID_START_WORD),
        ("agreement: yes\nexplanation: x\nextra", UNKNOWN_TAGS),
        ("agreement:\nexplanation: x", MORE_THAN_ONE_GUESS),
    ],
)
def test_read_agreement(reply, expected):
    result = read_agreement(reply)
    assert result == expected if isinstance(expected, Reading) else result.key == expected


def test_parsing_is_linear_in_the_reply_length():
    # 1 MB of tags on one line, and 1 MB of newlines: each read well under a second.
    for reply in ("guess:" * 200_000, "guess: " + "\n" * 1_000_000, "guess: " + "a" * 1_000_000):
        t0 = time.perf_counter()
        assert isinstance(read_guess(reply), FormError)
        assert time.perf_counter() - t0 < 1.0


# ---------------------------------------------------------------- plain wordle, hand-built games
@pytest.mark.usefixtures("small_words")
def test_wordle_won_at_the_third_guess_scores_100_and_logs_both_feedbacks():
    env, messages, _ = run("wordle", [g("crane"), g("spare"), g("spree")])
    assert end(env)["outcome"] == SUCCESS and end(env)["main_score"] == 100.0  # n = 3 <= 3
    crane, spare, spree = calls(env)
    # crane vs spree: only the final e is in place (green); r is elsewhere (yellow). The paper's
    # pass gives the final e the first free e of the target (index 3) and calls it yellow.
    assert crane["feedback"] == "c<red> r<yellow> a<red> n<red> e<green>"
    assert crane["feedback_paper"] == "c<red> r<yellow> a<red> n<red> e<yellow>"
    assert messages[1].startswith("guess_feedback: c<red> r<yellow> a<red> n<red> e<green>\n\n")
    assert spare["feedback"] != spare["feedback_paper"]
    assert spree["feedback"] == spree["feedback_paper"]
    m = scores(env)
    # closeness: crane 1 green + 1 yellow = 5 + 3 = 8; spare 3 green + 1 yellow = 15 + 3 = 18;
    # spree 25. Mean (8 + 18 + 25) / 3 = 51 / 3 = 17.
    assert m["closeness"] == 17.0
    assert m["feedback_differs_from_paper"] == 2.0  # crane and spare
    assert m["win_guess"] == 3.0 and m["repeated_guesses"] == 0.0
    assert (m["main_score"], m["clemscore"], m["played"], m["success"]) == (100.0, 100.0, 1.0, 1.0)
    assert (m["request_count"], m["parsed_request_count"], m["violated_request_count"]) == (3.0, 3.0, 0.0)


@pytest.mark.usefixtures("small_words")
@pytest.mark.parametrize(("n", "score"), [(1, 100.0), (2, 100.0), (3, 100.0), (4, 50.0), (5, 30.0), (6, 20.0)])
def test_wordle_speed_score_is_the_v16_step_function(n, score):
    env, _, _ = run("wordle", [g("crane")] * (n - 1) + [g("spree")])
    assert end(env)["main_score"] == score
    assert scores(env)["win_guess"] == float(n)


@pytest.mark.usefixtures("small_words")
@pytest.mark.parametrize(("n", "score"), [(1, 100.0), (2, 50.0), (3, 33.33), (4, 25.0), (5, 20.0), (6, 16.67)])
def test_wordle_clue_speed_score_is_100_over_n_rounded(n, score):
    env, _, _ = run("wordle_clue", [g("crane")] * (n - 1) + [g("spree")])
    assert end(env)["main_score"] == score  # round(100 / n, 2)


@pytest.mark.usefixtures("small_words")
def test_six_wrong_guesses_lose_with_score_0_and_repeats_are_counted():
    env, messages, _ = run("wordle_clue", [g(w) for w in ("crane", "crane", "apple", "crane", "other", "apple")])
    assert end(env)["outcome"] == LOSE and end(env)["main_score"] == 0.0
    assert "The word was 'spree'" in messages[-1]
    m = scores(env)
    # repeats: crane x3 and apple x2 -> 6 guesses - 3 distinct = 3.
    assert m["repeated_guesses"] == 3.0
    assert (m["main_score"], m["clemscore"], m["played"], m["lose"], m["success"]) == (0.0, 0.0, 1.0, 1.0, 0.0)
    assert math.isnan(m["win_guess"])


@pytest.mark.usefixtures("small_words")
def test_clue_variant_appends_the_clue_to_the_first_message_only():
    _, first, _ = start("wordle_clue")
    assert first.endswith("\n\nclue: Binge")
    _, plain, _ = start("wordle")
    assert "clue" not in plain
    _, messages, _ = run("wordle_clue", [g("crane"), g("spree")])
    assert "clue" not in messages[1]


# ---------------------------------------------------------------- reprompts
@pytest.mark.usefixtures("small_words")
def test_unknown_word_is_rejected_and_asked_again_and_counts_as_parsed():
    env, messages, _ = run("wordle", [g(UNKNOWN), g("spree")])
    rejected, won = calls(env)
    assert rejected["status"] == REJECTED and rejected["reprompt"] == 1
    assert messages[1].startswith("Your guess is not a valid word for this game.")
    assert "guess: <your 5-letter word>" in messages[1]
    assert won["guess_number"] == 1  # a rejected word is not a committed guess
    m = scores(env)
    assert end(env)["main_score"] == 100.0
    assert (m["request_count"], m["parsed_request_count"], m["violated_request_count"]) == (2.0, 2.0, 0.0)


@pytest.mark.usefixtures("small_words")
def test_five_unknown_words_are_reprompted_and_a_sixth_aborts():
    env, messages, _ = run("wordle", [g(UNKNOWN)] * 6)
    statuses = [r["status"] for r in calls(env)]
    assert statuses == [REJECTED] * 6
    assert end(env)["outcome"] == ABORTED and end(env)["main_score"] is None
    assert "after 5 reprompts" in calls(env)[-1]["reason"]
    m = scores(env)
    assert math.isnan(m["main_score"]) and m["clemscore"] == 0.0 and m["aborted"] == 1.0
    assert math.isnan(m["closeness"])  # no committed guess
    # Every reply had the required form: 6 requests, 6 parsed (the paper also counted 6 parsed).
    assert (m["request_count"], m["parsed_request_count"], m["request_success_ratio"]) == (6.0, 6.0, 1.0)


@pytest.mark.usefixtures("small_words")
def test_reprompt_counter_resets_after_a_valid_guess():
    replies = [g(UNKNOWN)] * 5 + [g("crane")] + [g(UNKNOWN)] * 5 + [g("spree")]
    env, _, _ = run("wordle", replies)
    assert end(env)["outcome"] == SUCCESS and end(env)["main_score"] == 100.0  # won at guess 2
    assert scores(env)["request_count"] == 12.0


@pytest.mark.usefixtures("small_words")
def test_max_reprompts_zero_aborts_at_the_first_unknown_word():
    env, _, _ = run("wordle", [g(UNKNOWN)], max_reprompts=0)
    assert end(env)["outcome"] == ABORTED


# ---------------------------------------------------------------- hostile replies
@pytest.mark.usefixtures("small_words")
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(
    ("reply", "key"),
    [
        ("", INVALID_START_WORD),
        ("   \n\t ", INVALID_START_WORD),
        ("The word is apple.", INVALID_START_WORD),  # no tag
        ("Guess: apple", INVALID_START_WORD),
        ("guess: apple\nguess: crane", MORE_THAN_ONE_GUESS),
        ("guess: apple.", INVALID_FORMAT),
        ("guess: **apple**", INVALID_FORMAT),
        ("guess: ap\x07le\nexplanation: bell", INVALID_FORMAT),
        ("x" * 100_000, INVALID_START_WORD),  # 100 kB of text
        ("guess: " + "a" * 100_000, INVALID_WORD_LENGTH),
        ("guess: apple\n" + "explanation: long\n" * 6_000, UNKNOWN_TAGS),  # ~100 kB of lines
    ],
    ids=["empty", "blank", "no_tag", "capitalised_tag", "two_guesses", "trailing_dot", "markdown", "control_char",
         "100kB_prose", "100kB_word", "100kB_lines"],
)
def test_hostile_first_reply_aborts_with_the_papers_error(game, reply, key):
    env, messages, _ = run(game, [reply])
    (only,) = calls(env)
    assert only["status"] == INVALID and only["reason"].startswith(key)
    assert len(only["content"]) <= 201  # the log keeps at most 200 characters and an ellipsis
    assert end(env)["outcome"] == ABORTED
    m = scores(env)
    assert (m["request_count"], m["parsed_request_count"], m["violated_request_count"]) == (1.0, 0.0, 1.0)
    assert m["played"] == 0.0 and m["clemscore"] == 0.0
    json.dumps(env.log, allow_nan=False)


@pytest.mark.usefixtures("small_words")
@pytest.mark.parametrize("word", ["\u0430pple", "spr\u0435e", "ｓｐｒｅｅ"])
def test_lookalike_letters_are_rejected_and_reprompted_not_read_as_the_word(word):
    # Cyrillic а/е pass isalpha() and make 5 letters, as do full-width letters; not in the list.
    env, _, _ = run("wordle", [g(word), g("spree")])
    first = calls(env)[0]
    assert first["status"] == REJECTED and first["guess"] == word
    assert end(env)["main_score"] == 100.0  # the real word at guess 1 still wins


@pytest.mark.usefixtures("small_words")
def test_step_never_raises_on_junk_in_any_phase_of_the_critic_game():
    # Before the first guess, before the critic's verdict, before the final guess.
    junk = ["", "\x00", "guess:" * 1000, "agreement: yes\nguess: spree\nx", "🙂" * 50, "guess: spree\u2028x",
            "agreement: \u0443es", "\ud800"]
    for reply in junk:
        for prefix in ([], [g("crane")], [g("crane"), a("no")]):
            env, _, _ = start("wordle_critic")
            for r in prefix:
                env.step(r)
            _, terminated, _, _ = env.step(reply)
            assert terminated and calls(env)[-1]["status"] == INVALID, (prefix, reply)
            json.dumps(env.log, allow_nan=False)


# ---------------------------------------------------------------- wordle with critic
@pytest.mark.usefixtures("small_words")
def test_critic_game_turn_order_messages_and_metrics():
    replies = [
        g("crane", "common letters"), a("no", "binge is not a bird"), g("spare", "plural s"),
        g("spree", "a binge"), a("yes", "fits"), g("spree", "agreed"),
    ]  # fmt: skip
    env, messages, _ = run("wordle_critic", replies)
    assert [r["role"] for r in calls(env)] == ["guesser", "critic", "guesser"] * 2
    assert [r["action"] for r in calls(env)] == ["guess", "agreement", "final_guess"] * 2
    # The critic's first message: its rules, then clue, guess and explanation.
    assert messages[1].startswith("You are the critic")
    assert messages[1].endswith("clue: Binge\nguess: crane\nexplanation: common letters")
    # The guesser gets the verdict and guesses again.
    assert messages[2].startswith("clue: Binge\nguess_agreement: no\nagreement_explanation: binge is not a bird\n\n")
    # Only the final guess got feedback.
    assert messages[3].startswith("guess_feedback: s<green> p<green> a<red> r<yellow> e<green>\n\n")
    # Later critic messages: the case, then a format reminder (not the rules again).
    assert messages[4].startswith("clue: Binge\nguess: spree\nexplanation: a binge\n\nReply only in this format:")
    assert end(env)["main_score"] == 50.0  # won at committed guess 2: round(100 / 2, 2)
    first_guess = calls(env)[0]
    assert first_guess["committed"] is False and "feedback" not in first_guess
    m = scores(env)
    assert m["critic_agreement_rate"] == 0.5  # no, yes
    assert m["guess_changed_after_critic"] == 0.5  # crane -> spare changed; spree -> spree did not
    # committed spare (3 green, 1 yellow: 18) and spree (25): closeness (18 + 25) / 2 = 21.5
    assert m["closeness"] == 21.5 and m["win_guess"] == 2.0 and m["feedback_differs_from_paper"] == 1.0
    assert (m["request_count"], m["parsed_request_count"]) == (6.0, 6.0)


@pytest.mark.usefixtures("small_words")
def test_critic_game_a_right_first_guess_does_not_win_until_the_final_guess():
    env, _, _ = run("wordle_critic", [g("spree"), a("no"), g("crane"), g("spree"), a("yes"), g("spree")])
    assert calls(env)[2]["guess_number"] == 1 and end(env)["main_score"] == 50.0


@pytest.mark.usefixtures("small_words")
def test_critic_game_missing_explanations_are_forwarded_as_none_not_a_crash():
    env, messages, _ = run("wordle_critic", ["guess: crane", "agreement: no", "guess: spree"])
    assert messages[1].endswith("guess: crane\nexplanation: (none)")
    assert "agreement_explanation: (none)\n\n" in messages[2]
    assert end(env)["main_score"] == 100.0


@pytest.mark.usefixtures("small_words")
@pytest.mark.parametrize(
    ("reply", "key"),
    [("agreement: maybe", NOT_VALID_CRITIC_WORD), ("Agreement: yes", INVALID_START_WORD), ("yes", INVALID_START_WORD),
     ("agreement: yes\nagreement: no", MORE_THAN_ONE_GUESS)],
)
def test_critic_form_errors_abort_without_reprompt(reply, key):
    env, _, _ = run("wordle_critic", [g("crane"), reply])
    last = calls(env)[-1]
    assert last["role"] == "critic" and last["status"] == INVALID and last["reason"].startswith(key)
    assert end(env)["outcome"] == ABORTED
    m = scores(env)
    assert (m["request_count"], m["parsed_request_count"], m["violated_request_count"]) == (2.0, 1.0, 1.0)
    assert math.isnan(m["critic_agreement_rate"]) and math.isnan(m["guess_changed_after_critic"])


@pytest.mark.usefixtures("small_words")
def test_critic_game_reprompts_both_guesses_and_the_worst_case_ends_within_max_calls():
    # Every guess (first and final) takes 5 unknown words before a valid wrong one: per attempt
    # 6 + 1 critic + 6 = 13 calls; 6 attempts = 78 calls, the game lost at the 78th.
    attempt = [g(UNKNOWN)] * 5 + [g("crane")] + [a("no")] + [g(UNKNOWN)] * 5 + [g("crane")]
    assert WordleCriticParams().max_calls() == 78
    env, _, _ = run("wordle_critic", attempt * 6, max_turns=78)
    assert end(env)["outcome"] == LOSE and env.turns == 78
    assert scores(env)["request_count"] == 78.0 and scores(env)["repeated_guesses"] == 5.0


# ---------------------------------------------------------------- parameters and registry
@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"strategy": "cot"}, "'strategy'"),
        ({"experiment": "hgh"}, "experiment 'hgh'"),
        ({"max_guesses": 0}, "'max_guesses'"),
        ({"max_guesses": 7}, "'max_guesses' must be at most 6"),
        ({"max_reprompts": -1}, "'max_reprompts'"),
        ({"max_turns": 35}, "'max_turns' must be at least 36"),
        ({"max_turns": True}, "'max_turns'"),
    ],
)
def test_wordle_parameter_errors_name_the_parameter(overrides, named):
    with pytest.raises(ValueError, match=named.replace("(", r"\(")):
        get_paradigm("wordle").make_params(overrides=overrides)


def test_clue_and_critic_variants_allow_more_than_6_guesses_and_bound_max_turns_by_their_calls():
    assert WordleClueParams(max_guesses=10).max_guesses == 10
    with pytest.raises(ValueError, match="'max_turns' must be at least 78"):
        WordleCriticParams(max_turns=77)
    assert WordleParams().max_calls() == 36 and WordleCriticParams().max_calls() == 78


def test_the_variant_is_not_an_overridable_parameter():
    with pytest.raises(ValueError, match="Unknown wordle parameter 'variant'"):
        get_paradigm("wordle").make_params(overrides={"variant": "wordle_critic"})


def test_paradigms_are_registered_with_their_roles_and_own_metrics():
    specs = {name: {s.name for s in get_paradigm(name).metric_specs} for name in GAMES}
    assert specs["wordle"] == specs["wordle_clue"] == COMMON | EXTRAS
    assert specs["wordle_critic"] == COMMON | EXTRAS | CRITIC_EXTRAS
    assert get_paradigm("wordle").env_cls is WordleEnv and WordleEnv.roles == ("guesser",)
    assert get_paradigm("wordle_clue").env_cls is WordleEnv
    assert get_paradigm("wordle_critic").env_cls is WordleCriticEnv and WordleCriticEnv.roles == ("guesser", "critic")
    assert all(get_paradigm(name).primary_metric == "clemscore" for name in GAMES)


def test_an_env_refuses_the_params_of_another_variant():
    with pytest.raises(ValueError, match="cannot play wordle_critic"):
        WordleEnv(WordleCriticParams())
    with pytest.raises(ValueError, match="cannot play wordle_clue"):
        WordleCriticEnv(WordleClueParams())


# ---------------------------------------------------------------- word data
def test_word_file_loader_refuses_a_target_outside_the_allowed_list(tmp_path, monkeypatch):
    bad = {"source": {}, "bands": {"high": {"words": [{"word": "spree", "clue": "Binge"}]}}, "allowed": "crane"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    monkeypatch.setattr(words, "DATA_FILE", path)
    with pytest.raises(ValueError, match="'spree' is not in the allowed guesses"):
        words.word_data()


def test_real_word_file_has_both_bands_with_clues_and_targets_in_the_allowed_list():
    data = words.word_data()  # the loader checks every target (5 lowercase letters, allowed, a clue)
    assert len(data.bands["high"]) > 0 and len(data.bands["medium"]) > len(data.bands["high"])
    assert len(data.allowed) > 10_000
    assert all(t.word in data.allowed and t.clue for band in ("high", "medium") for t in data.bands[band])


# ---------------------------------------------------------------- instances (real word file)
def test_same_seed_and_index_give_the_same_target_and_other_seeds_vary():
    for game in GAMES:
        targets = [start(game, seed=s, index=1)[0].target for s in range(8)]
        assert targets == [start(game, seed=s, index=1)[0].target for s in range(8)]
        assert len(set(targets)) > 1


def test_the_same_seed_gives_every_variant_the_same_target():
    for s in range(5):
        assert len({start(game, seed=s, index=s)[0].target for game in GAMES}) == 1


def test_episode_index_cycles_high_medium_medium():
    for game in GAMES:
        experiments = [start(game, seed=3, index=i)[0].experiment for i in range(6)]
        assert experiments == ["high", "medium", "medium"] * 2
    env, _, _ = start("wordle", index=0, experiment="medium")
    assert env.experiment == "medium"
    data = words.word_data()
    for i in range(9):
        env, _, _ = start("wordle", seed=i, index=i)
        assert env.target in data.bands[env.experiment]


# ---------------------------------------------------------------- reference players (real word file)
EXPECTED = {  # game: (optimal score, its calls, slow_winner score, its calls)
    "wordle": (100.0, 1, 20.0, 6),  # slow winner: won at guess 6 -> 20
    "wordle_clue": (100.0, 1, 16.67, 6),  # round(100 / 6, 2)
    "wordle_critic": (100.0, 3, 16.67, 18),  # 3 calls (guess, critic, final guess) per attempt
}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_reference_players_exact_scores(game, seed):
    paradigm = get_paradigm(game)
    params = paradigm.make_params()
    optimal, optimal_calls, slow, slow_calls = EXPECTED[game]
    m = paradigm.metrics(play(paradigm, params, seed, "optimal").log, params)
    assert (m["main_score"], m["clemscore"], m["win_guess"]) == (optimal, optimal, 1.0)
    assert m["request_count"] == optimal_calls
    env = play(paradigm, params, seed, "slow_winner")
    m = paradigm.metrics(env.log, params)
    assert (m["main_score"], m["clemscore"], m["request_count"], m["win_guess"]) == (slow, slow, slow_calls, 6.0)
    assert m["repeated_guesses"] == 0.0  # five distinct wrong words
    m = paradigm.metrics(play(paradigm, params, seed, "rule_breaker").log, params)
    assert math.isnan(m["main_score"]) and (m["clemscore"], m["aborted"], m["request_count"]) == (0.0, 1.0, 1.0)
    if game == "wordle_critic":
        assert m.keys() >= CRITIC_EXTRAS


def test_optimal_and_slow_critics_are_truthful():
    paradigm = get_paradigm("wordle_critic")
    params = paradigm.make_params()
    m = paradigm.metrics(play(paradigm, params, 5, "optimal").log, params)
    assert (m["critic_agreement_rate"], m["guess_changed_after_critic"]) == (1.0, 0.0)
    m = paradigm.metrics(play(paradigm, params, 5, "slow_winner").log, params)
    assert m["critic_agreement_rate"] == pytest.approx(1 / 6)  # no x5, yes at the target


@pytest.mark.parametrize("game", GAMES)
def test_random_player_plays_valid_allowed_words_and_loses_on_these_seeds(game):
    paradigm = get_paradigm(game)
    params = paradigm.make_params()
    per_attempt = 3 if game == "wordle_critic" else 1
    for seed in range(6):
        env = play(paradigm, params, seed, "random")
        m = paradigm.metrics(env.log, params)
        assert all(r["status"] == VALID for r in calls(env))
        # Regression pin: 6 uniform words out of ~13k never hit the target on seeds 0-5.
        assert (m["main_score"], m["lose"], m["request_count"]) == (0.0, 1.0, 6.0 * per_attempt)


def test_reference_agents_are_deterministic_given_their_generator():
    paradigm = get_paradigm("wordle_critic")
    params = paradigm.make_params()
    assert play(paradigm, params, 9, "random").log == play(paradigm, params, 9, "random").log
    slow = paradigm.make_agent("slow_winner", params, agent_rng(9))
    assert slow.act("", {"role": "guesser", "target": "crane", "committed": 0}).startswith("guess: ")


# ---------------------------------------------------------------- logs and metrics
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("policy", ["optimal", "slow_winner", "rule_breaker", "random"])
def test_log_is_strict_json_and_metrics_match_the_specs(game, policy):
    paradigm = get_paradigm(game)
    params = paradigm.make_params()
    env = play(paradigm, params, 4, policy)
    text = json.dumps(env.log, allow_nan=False)
    m = paradigm.metrics(env.log, params)
    assert set(m) == {s.name for s in paradigm.metric_specs}
    assert all(isinstance(v, float) for v in m.values())
    rescored = paradigm.metrics(json.loads(text), params)
    assert all((math.isnan(m[k]) and math.isnan(rescored[k])) or m[k] == rescored[k] for k in m)
