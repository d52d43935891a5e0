"""clembench's Image Game: instances, the giver's and drawer's reply formats, F1 scoring, the
25-command limit, hostile replies and the reference players' exact scores."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from lm_eval_cog.games.base import ABORTED, INVALID, LOSE, SUCCESS, VALID
from lm_eval_cog.games.grids import EMPTY, LETTER_GRIDS, SHAPE_GRIDS, filled_cells, from_bitmap, parse_grid, render
from lm_eval_cog.games.image import (
    EXPERIMENTS,
    PARADIGM,
    ImageEnv,
    ImageParams,
    draw_instance,
    image_metrics,
    read_command,
    score_grid,
)
from lm_eval_cog.games.image.agents import apply_command, row_commands
from lm_eval_cog.games.image.prompts import DRAWER_RULES, NEXT_COMMAND
from lm_eval_cog.games.image.scoring import changed_cells
from lm_eval_cog.paradigms import get_paradigm
from lm_eval_cog.paradigms.base import agent_rng
from lm_eval_cog.paradigms.chance import play

PARAMS = ImageParams()


def grid(text: str) -> tuple:
    """A grid from rows of 5 characters ('.' for empty): "..W.." -> ▢ ▢ W ▢ ▢."""
    return tuple(tuple(EMPTY if ch == "." else ch for ch in row) for row in text.split())


def drawing(text: str) -> str:
    """What a drawer replies for ``grid(text)``."""
    return render(grid(text))


#: Seed 0, index 0: the plus sign in W (9 filled cells), pinned below.
PLUS_W = grid("..W.. ..W.. WWWWW ..W.. ..W..")


def start(index: int = 0, seed: int = 0, params: ImageParams = PARAMS) -> tuple[ImageEnv, str, dict]:
    env = ImageEnv(params)
    message, info = env.reset(seed=seed, options={"index": index})
    return env, message, info


def play_indexed(policy: str, seed: int, index: int) -> ImageEnv:
    """An episode of a reference player at a given index (``chance.play`` always plays index 0)."""
    env, message, info = start(index, seed)
    agent = PARADIGM.make_agent(policy, PARAMS, agent_rng(seed))
    done = False
    while not done:
        message, terminated, truncated, info = env.step(agent.act(message, info))
        done = terminated or truncated
    return env


def metrics(env: ImageEnv) -> dict[str, float]:
    return image_metrics(env.log, env.params)


# ---------------------------------------------------------------- F1 (the required hand computation)
def test_f1_of_a_partly_right_grid_computed_by_hand():
    target = grid("AAA.. ..A.. ..... ..... .....")  # 4 filled target cells
    drawn = grid("AA... ..B.. ..... ..... C...C")  # 5 filled drawn cells
    # Correct = target cells drawn with the same letter: (1,1) and (1,2) -> 2 ((2,3) holds B, not A).
    # Precision = 2 / 5 = 0.4 -> 40; recall = 2 / 4 = 0.5 -> 50;
    # F1 = 2 * 0.4 * 0.5 / (0.4 + 0.5) = 0.4 / 0.9 = 4/9 -> 44.44...
    score = score_grid(drawn, target)
    assert score.precision == 40.0 and score.recall == 50.0
    assert score.f1 == pytest.approx(400 / 9, abs=1e-12)
    assert score.f1 == pytest.approx(2 * score.precision * score.recall / (score.precision + score.recall), abs=1e-12)


def test_f1_edge_cases_empty_drawing_perfect_drawing_and_case_insensitivity():
    target = grid("AAA.. ..A.. ..... ..... .....")
    empty = score_grid(grid("..... ..... ..... ..... ....."), target)
    assert (empty.precision, empty.recall, empty.f1) == (0.0, 0.0, 0.0)  # clembench divided by zero here
    perfect = score_grid(target, target)
    assert (perfect.precision, perfect.recall, perfect.f1) == (100.0, 100.0, 100.0)
    lower = score_grid(grid("aaa.. ..a.. ..... ..... ....."), target)
    assert lower.f1 == 100.0
    wrong_letters = score_grid(grid("BBB.. ..B.. ..... ..... ....."), target)
    assert (wrong_letters.precision, wrong_letters.recall, wrong_letters.f1) == (0.0, 0.0, 0.0)


def test_changed_cells_counts_cells_that_differ():
    before = grid("AAA.. ..... ..... ..... .....")
    after = grid("AB... ..... ..... ..... ....A")  # (1,2) A->B, (1,3) A->empty, (5,5) empty->A
    assert changed_cells(before, after) == 3


# ---------------------------------------------------------------- instances
def test_compact_targets_are_one_of_our_patterns_in_one_capital_letter():
    patterns = {tuple(filled_cells(g)) for g in LETTER_GRIDS + SHAPE_GRIDS}
    for seed in range(40):
        inst = draw_instance(np.random.default_rng(seed), "compact_grids")
        assert tuple(filled_cells(inst.target)) in patterns
        assert {c for row in inst.target for c in row} == {EMPTY, inst.letter} and inst.letter.isupper()


def test_random_targets_have_5_to_10_distinct_cells_of_one_letter():
    counts = set()
    for seed in range(200):
        inst = draw_instance(np.random.default_rng(seed), "random_grids")
        counts.add(len(filled_cells(inst.target)))
        assert {c for row in inst.target for c in row} == {EMPTY, inst.letter}
    assert counts == set(range(5, 11))  # k = 5..10, never fewer (no collisions)


def test_pattern_library_has_at_least_ten_letters_and_ten_shapes_all_distinct():
    assert len(LETTER_GRIDS) >= 10 and len(SHAPE_GRIDS) >= 10
    assert len(set(LETTER_GRIDS + SHAPE_GRIDS)) == len(LETTER_GRIDS) + len(SHAPE_GRIDS)
    with pytest.raises(ValueError):
        from_bitmap("#####")


def test_experiment_all_alternates_and_same_seed_and_index_repeat_the_episode():
    for index in range(6):
        assert start(index, seed=3)[2]["experiment"] == EXPERIMENTS[index % 2]
    assert start(5, 9)[1] == start(5, 9)[1]
    assert len({start(1, seed)[1] for seed in range(8)}) == 8
    assert start(0, 0)[0].instance.target == PLUS_W
    only_random = ImageParams(experiment="random_grids")
    assert all(start(i, 1, only_random)[2]["experiment"] == "random_grids" for i in range(4))


# ---------------------------------------------------------------- reading replies
@pytest.mark.parametrize("reply, done, line", [
    ("Command: DONE", True, None),
    ("command : done", True, None),
    ("COMMAND:DONE", True, None),
    ("Command: put W in row 3", False, "Command: put W in row 3"),
    ("command: put W in row 3", False, "command: put W in row 3"),
    ("COMMAND: PUT W IN ROW 3", False, "COMMAND: PUT W IN ROW 3"),
    ("Command: DONE.", False, "Command: DONE."),  # not the DONE pattern: forwarded as a command
    ("Command: a Command: b", False, "Command: a Command: b"),  # two tags, one line
])  # fmt: skip
def test_commands_that_are_read(reply, done, line):
    command = read_command(reply)
    assert command.done is done
    if not done:
        assert command.line == line and command.instruction == line[len("Command: "):]


@pytest.mark.parametrize("reply", [
    "", "put W in row 3", "Command:put W in row 3", "Command: ", "Instruction: put W in row 3",
    "Command: put W in row 3\nCommand: put W in row 1",  # two lines: abort (not forwarded in part)
    "Command: put W in row 3\nthanks", "Сommand: put W in row 3",  # Cyrillic Es
    "Sure. Command: put W in row 3",
])  # fmt: skip
def test_commands_that_are_not_read(reply):
    assert read_command(reply) is None


def test_parse_grid_reads_exactly_five_rows_of_five_cells_with_surrounding_blank_lines():
    text = "\n\n" + drawing("..W.. ..W.. WWWWW ..W.. ..W..") + "\n\n"
    assert parse_grid(text) == PLUS_W


@pytest.mark.parametrize("text, reason", [
    (drawing("..... ..... ..... ..... .....") + "\n▢ ▢ ▢ ▢ ▢", "more than 5 rows"),
    (drawing("..... ..... ..... ....."), "4 rows instead of 5"),
    ("\n".join(["▢ ▢ ▢ ▢"] * 5), "7 characters"),  # 4 columns
    ("\n".join(["a ▢ ▢ ▢ ▢"] * 5), "'a'"),  # lowercase
    ("\n".join(["▢  ▢ ▢ ▢"] * 5), "single spaces"),
    ("\n".join(["▢\t▢\t▢\t▢\t▢"] * 5), "single spaces"),
    ("Here is the grid:\n" + drawing("..... ..... ..... ..... ....."), "line 1"),
    (drawing("..... ..... ..... ..... .....") + "\nDone!", "more than 5 rows"),
    (drawing("..... ..... ..... ..... .....").replace("\n", "\n\n", 1), "line 2"),  # inner blank line
    ("\n".join(["А ▢ ▢ ▢ ▢"] * 5), "'А'"),  # Cyrillic A
    ("\n".join(["Ｘ ▢ ▢ ▢ ▢"] * 5), "'Ｘ'"),  # full-width X
    ("\n".join(["1 ▢ ▢ ▢ ▢"] * 5), "'1'"),
    ("", "empty reply"),
])  # fmt: skip
def test_parse_grid_refuses_anything_else_and_says_why(text, reason):
    result = parse_grid(text)
    assert isinstance(result, str) and reason in result


# ---------------------------------------------------------------- episodes and scores
def test_hand_played_episode_scores_the_last_drawing_and_means_over_turns():
    env, first, info = start(0, 0)
    assert "Target grid:\n" + render(PLUS_W) in first and first.endswith(NEXT_COMMAND)
    message, *_ = env.step("Command: put W in row 3, all columns")
    # The drawer's first message: its rules, then only the command line.
    assert message == f"{DRAWER_RULES}\n\nCommand: put W in row 3, all columns"
    message, *_ = env.step(drawing("..... ..... WWWWW ..... ....."))
    assert message == NEXT_COMMAND
    message, *_ = env.step("Command: put W in column 3, rows 1, 2, 4 and 5\n")
    assert message == "Command: put W in column 3, rows 1, 2, 4 and 5"  # later: the command only
    _, done, truncated, _ = env.step(drawing("W.W.. ..W.. WWWWW ..W.. ..V.."))
    assert not done
    _, done, truncated, _ = env.step("Command: DONE")
    assert done and not truncated and env.log[-1]["outcome"] == LOSE
    m = metrics(env)
    # Turn 1: 5 drawn, 5 correct, 9 target: P = 100, R = 5/9, F1 = 2*5/(5+9) = 10/14 -> 71.43; 5 cells changed.
    # Turn 2: 10 drawn ((1,1) W extra, (5,3) V wrong), 8 correct: P = 8/10, R = 8/9,
    #   F1 = 2*0.8*(8/9) / (0.8 + 8/9) = 16/19 -> 84.21; 5 cells changed (4 in column 3, (1,1)).
    assert env.log[1]["f1"] == pytest.approx(1000 / 14) and env.log[3]["f1"] == pytest.approx(1600 / 19)
    assert env.log[3]["precision"] == 80.0 and env.log[3]["recall"] == pytest.approx(800 / 9)
    assert m["main_score"] == pytest.approx(1600 / 19) and m["success"] == 0.0 and m["lose"] == 1.0
    assert m["f1_per_turn"] == pytest.approx((1000 / 14 + 1600 / 19) / 2)
    assert m["changed_cells"] == 5.0 and m["drawer_turns"] == 2.0
    # Instructions: "put W in row 3, all columns" = 27 characters, "put W in column 3, rows 1, 2, 4 and 5" = 37.
    assert m["command_length"] == (27 + 37) / 2
    assert (m["request_count"], m["parsed_request_count"], m["request_success_ratio"]) == (5.0, 5.0, 1.0)


def test_perfect_last_drawing_is_a_success_scoring_100():
    env, _, _ = start(0, 0)
    env.step("Command: draw the plus sign in W")
    env.step(render(PLUS_W))
    env.step("Command: DONE")
    m = metrics(env)
    assert env.log[-1]["outcome"] == SUCCESS and (m["main_score"], m["success"], m["clemscore"]) == (100.0, 1.0, 100.0)


def test_done_before_any_drawing_is_a_loss_scoring_0():
    env, _, _ = start(0, 0)
    _, done, _, _ = env.step("command: done")
    m = metrics(env)
    assert done and env.log[-1]["outcome"] == LOSE  # clembench crashed dividing by zero
    assert (m["main_score"], m["lose"], m["aborted"]) == (0.0, 1.0, 0.0)
    assert (m["drawer_turns"], m["request_count"]) == (0.0, 1.0)
    assert math.isnan(m["f1_per_turn"]) and math.isnan(m["command_length"])


def test_an_empty_drawing_has_precision_0_and_the_game_goes_on():
    env, _, _ = start(0, 0)
    env.step("Command: wait")
    env.step(drawing("..... ..... ..... ..... ....."))
    env.step("Command: DONE")
    assert (env.log[1]["precision"], env.log[1]["recall"], env.log[1]["f1"]) == (0.0, 0.0, 0.0)
    assert metrics(env)["main_score"] == 0.0 and env.log[-1]["outcome"] == LOSE


def test_the_game_ends_after_the_25th_drawing_without_done_and_within_max_turns():
    env, _, _ = start(0, 0, ImageParams(max_turns=50))
    row3 = drawing("..... ..... WWWWW ..... .....")
    for turn in range(25):
        _, done, truncated, _ = env.step("Command: put W in row 3")
        assert not done
        _, done, truncated, _ = env.step(row3)
        assert done == (turn == 24) and not truncated
    m = metrics(env)
    # Last drawing: F1 = 2*5/(5+9) = 10/14; changed cells 5 then 0 x 24 -> mean 5/25 = 0.2.
    assert m["request_count"] == 50.0 and m["main_score"] == pytest.approx(1000 / 14) and m["aborted"] == 0.0
    assert m["changed_cells"] == pytest.approx(0.2) and m["drawer_turns"] == 25.0
    with pytest.raises(RuntimeError):
        env.step("Command: DONE")


HUGE = "x" * 100_000


@pytest.mark.parametrize("reply, expected", [
    ("", ABORTED),
    ("put W in row 3", ABORTED),  # no tag
    ("Command: put W in row 3\nCommand: put W in row 1", ABORTED),  # two tags, two lines
    ("Command: put W in row 3 Command: put W in row 1", "drawer"),  # two tags, one line
    ("command: put W in row 3", "drawer"),
    ("COMMAND: PUT W IN ROW 3", "drawer"),
    ("COMMAND: DONE", LOSE),
    ("Command: " + HUGE, "drawer"),  # one 100 kB line is one command
    (HUGE, ABORTED),
    ("Command: a\n" * 10_000, ABORTED),
    ("Сommand: put W in row 3", ABORTED),  # Cyrillic
    ("\x00Command: put W in row 3", ABORTED),
])  # fmt: skip
def test_hostile_giver_replies(reply, expected):
    env, _, _ = start(0, 0)
    started = time.perf_counter()
    _, done, _, info = env.step(reply)
    assert time.perf_counter() - started < 1.0  # linear parsing
    if expected == "drawer":
        assert not done and info["role"] == "drawer" and env.log[0]["status"] == VALID
    else:
        assert done and env.log[-1]["outcome"] == expected
    json.dumps(env.log, allow_nan=False)


@pytest.mark.parametrize("reply", [
    "",
    "\n".join(["▢ ▢ ▢ ▢ ▢"] * 6),  # 6 rows
    "\n".join(["▢ ▢ ▢ ▢ ▢"] * 4),  # 4 rows
    "\n".join(["▢ ▢ ▢ ▢"] * 5),  # 4 columns
    "\n".join(["w w w w w"] * 5),  # lowercase
    "Here you go:\n" + "\n".join(["▢ ▢ ▢ ▢ ▢"] * 5),
    "\n".join(["▢ ▢ ▢ ▢ ▢"] * 5) + "\nDone.",
    HUGE,
    "\n".join(["▢ ▢ ▢ ▢ ▢"] * 20_000),
    "\x00\x07",
])  # fmt: skip
def test_hostile_drawer_replies_abort(reply):
    env, _, _ = start(0, 0)
    env.step("Command: put W in row 3")
    started = time.perf_counter()
    _, done, _, _ = env.step(reply)
    assert time.perf_counter() - started < 1.0
    assert done and env.log[-1]["outcome"] == ABORTED and env.log[1]["status"] == INVALID
    m = metrics(env)
    assert math.isnan(m["main_score"]) and m["lose"] == 0.0 and m["request_success_ratio"] == 0.5
    json.dumps(env.log, allow_nan=False)


# ---------------------------------------------------------------- reference players
def test_scripted_commands_describe_the_cells_and_the_scripted_drawer_applies_them():
    assert row_commands(PLUS_W) == ["put W in row 1, column 3", "put W in row 2, column 3",
                                    "put W in row 3, columns 1, 2, 3, 4, 5", "put W in row 4, column 3",
                                    "put W in row 5, column 3"]  # fmt: skip
    canvas = [[EMPTY] * 5 for _ in range(5)]
    apply_command(canvas, "put L in row 2, columns 1, 3, 5")
    assert [r for r, row in enumerate(canvas) for c in row if c == "L"] == [1, 1, 1] and canvas[1][2] == "L"


@pytest.mark.parametrize("index", range(6))
def test_optimal_player_draws_perfectly_with_one_command_per_filled_row(index):
    for seed in range(4):
        env = play_indexed("optimal", seed, index)
        m = metrics(env)
        rows = sum(any(c != EMPTY for c in row) for row in env.instance.target)
        # rows commands, rows drawings, one DONE.
        assert (m["main_score"], m["success"], m["drawer_turns"]) == (100.0, 1.0, rows)
        assert m["request_count"] == 2 * rows + 1


@pytest.mark.parametrize("index", range(6))
def test_slow_winner_draws_perfectly_with_one_command_per_filled_cell(index):
    for seed in range(4):
        env = play_indexed("slow_winner", seed, index)
        m = metrics(env)
        cells = len(filled_cells(env.instance.target))
        assert (m["main_score"], m["success"], m["drawer_turns"], m["changed_cells"]) == (100.0, 1.0, cells, 1.0)
        assert m["request_count"] == 2 * cells + 1


def test_slow_winner_on_the_plus_sign_takes_9_drawings_and_19_calls():
    m = metrics(play(PARADIGM, PARAMS, 0, "slow_winner"))
    assert (m["drawer_turns"], m["request_count"], m["main_score"]) == (9.0, 19.0, 100.0)
    m = metrics(play(PARADIGM, PARAMS, 0, "optimal"))
    assert (m["drawer_turns"], m["request_count"], m["main_score"]) == (5.0, 11.0, 100.0)


@pytest.mark.parametrize("seed", range(4))
def test_rule_breaker_aborts_at_the_first_giver_reply(seed):
    m = metrics(play(PARADIGM, PARAMS, seed, "rule_breaker"))
    assert (m["aborted"], m["request_count"], m["parsed_request_count"]) == (1.0, 1.0, 0.0)
    assert math.isnan(m["main_score"])


def test_random_drawer_plays_valid_grids_with_pinned_scores():
    # F1 = 200 * correct / (drawn + target), pinned per seed (agent_rng(seed)): e.g. seed 0 (the
    # plus sign, 9 cells): 4 distinct cells drawn in 5 turns, 3 right -> 600/13.
    expected = [600 / 13, 400 / 17, 400 / 13, 400 / 21, 400 / 15, 0.0]
    for seed, score in enumerate(expected):
        m = metrics(play(PARADIGM, PARAMS, seed, "random"))
        assert m["main_score"] == pytest.approx(score, abs=1e-12), seed
        assert (m["aborted"], m["request_success_ratio"]) == (0.0, 1.0)
    assert all(0 <= metrics(play_indexed("random", s, s))["main_score"] < 99 for s in range(20))


# ---------------------------------------------------------------- contract
def test_parameters_are_validated_by_name():
    with pytest.raises(ValueError, match="'strategy'"):
        ImageParams(strategy="free")
    with pytest.raises(ValueError, match="'experiment'.*Did you mean: compact_grids"):
        ImageParams(experiment="compact")
    with pytest.raises(ValueError, match="'max_turns'"):
        ImageParams(max_turns=49)  # 25 commands + 25 drawings = 50 calls
    assert get_paradigm("image") is PARADIGM
    assert set(PARADIGM.policies()) == {"optimal", "slow_winner", "random", "rule_breaker", "heuristic"}


def test_log_is_strict_json_and_metrics_keys_match_the_specs_and_survive_a_round_trip():
    names = {s.name for s in PARADIGM.metric_specs}
    for policy in ("optimal", "slow_winner", "random", "rule_breaker"):
        env = play(PARADIGM, PARAMS, 2, policy)
        m = metrics(env)
        assert set(m) == names
        again = image_metrics(json.loads(json.dumps(env.log, allow_nan=False)), PARAMS)
        assert all(a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(m.values(), again.values()))
    assert math.isnan(image_metrics([], PARAMS)["drawer_turns"])


def test_step_before_reset_raises():
    with pytest.raises(RuntimeError):
        ImageEnv(PARAMS).step("Command: DONE")
