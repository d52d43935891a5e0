"""Edges of the lock-step runner (``lm_eval_cog.runner``) that mutation testing found unpinned.

Failure isolation (how many calls a failing batch costs, and what each episode gets),
replies that are bytes, non-text or exceptions, the environment failing at reset or
step, the turn timeout's thread, the recorded reasons, and the conversation an
episode shows its player. Players are scripted and count their calls; the env is a
minimal counting env (one trial per reply), so every expected value is hand-computed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import pytest

from lm_eval_cog import runner
from lm_eval_cog.paradigms.base import Env
from lm_eval_cog.runner import COMPLETED, FAILED, RUNNING, TRUNCATED, Episode, Turn


@dataclass(frozen=True)
class _Params:
    max_turns: int = 3


class _EchoEnv(Env):
    """Logs each reply; terminates on the reply "stop", else truncates at ``max_turns``.
    Raises on the reply "crash" (an environment bug)."""

    name = "echo"

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        self.system_prompt = "sys"
        return "u1", {"turn": 1}

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        if reply == "crash":
            raise KeyError("boom")
        self.log.append({"reply": reply})
        if reply == "stop":
            return "bye", True, {"turn": self.turns}
        return f"u{self.turns + 1}", False, {"turn": self.turns + 1}


def _make_env(spec: dict[str, Any]) -> Env:
    if spec.get("broken"):
        raise ValueError("bad spec")
    return _EchoEnv(_Params(max_turns=spec.get("max_turns", 3)))


def _episodes(n: int, **spec: Any) -> list[Episode]:
    return runner.start_episodes(({"seed": i, "index": i, **spec} for i in range(n)), _make_env)


class _Player:
    """Replies ``reply``; the call sizes are recorded. ``fail_batches``: a call over more
    than one episode raises; ``fail_index``: any call containing that episode raises."""

    def __init__(self, reply: Any = "ok", fail_batches: bool = False, fail_index: int | None = None) -> None:
        self.reply, self.fail_batches, self.fail_index = reply, fail_batches, fail_index
        self.calls: list[list[int]] = []

    def respond(self, episodes):
        self.calls.append([ep.spec["index"] for ep in episodes])
        if self.fail_batches and len(episodes) > 1:
            raise RuntimeError("batch down")
        if self.fail_index is not None and any(ep.spec["index"] == self.fail_index for ep in episodes):
            raise RuntimeError(f"episode {self.fail_index} down")
        return [self.reply for _ in episodes]


# --- failure isolation ---------------------------------------------------------------


def test_a_failing_batch_is_retried_once_per_episode_and_only_the_failing_one_fails():
    # Turn 1: the batch [0, 1, 2] raises -> one retry each: [0], [1] (raises), [2].
    # Turns 2-3: [0, 2] raises as a batch -> [0], [2]. max_turns 3 -> truncated.
    eps = _episodes(3)
    player = _Player(fail_batches=True, fail_index=1)
    runner.run_lockstep(eps, player, progress=False)
    assert player.calls == [[0, 1, 2], [0], [1], [2], [0, 2], [0], [2], [0, 2], [0], [2]]
    assert [ep.status for ep in eps] == [TRUNCATED, FAILED, TRUNCATED]
    assert eps[1].error.startswith("model request failed: RuntimeError: episode 1 down at ")


def test_a_single_live_episode_whose_call_fails_is_not_called_again():
    eps = _episodes(1)
    player = _Player(fail_index=0)
    runner.run_lockstep(eps, player, progress=False)
    assert player.calls == [[0]]
    assert eps[0].status == FAILED


def test_a_wrong_number_of_replies_fails_the_batch_and_each_episode_is_asked_alone():
    class Short(_Player):
        def respond(self, episodes):
            self.calls.append([ep.spec["index"] for ep in episodes])
            return ["ok"]  # one reply, whatever the number of episodes

    eps = _episodes(2, max_turns=1)
    player = Short()
    runner.run_lockstep(eps, player, progress=False)
    assert player.calls == [[0, 1], [0], [1]]
    assert [ep.status for ep in eps] == [TRUNCATED, TRUNCATED]


def test_too_many_replies_for_a_single_episode_fail_it_with_the_counts():
    class Twice:
        def respond(self, episodes):
            return ["ok", "ok"]

    eps = _episodes(1)
    runner.run_lockstep(eps, Twice(), progress=False)
    assert eps[0].status == FAILED
    assert eps[0].error.startswith("model request failed: RuntimeError: player returned 2 replies for 1 episodes")


# --- replies -------------------------------------------------------------------------


def test_bytes_replies_are_decoded_with_undecodable_bytes_kept_as_surrogates():
    # b"stop" decodes to "stop" (the env terminates); b"\xff" to the lone surrogate "\udcff".
    eps = _episodes(2, max_turns=1)

    class Bytes:
        def respond(self, episodes):
            return [b"stop", bytearray(b"\xff")]

    runner.run_lockstep(eps, Bytes(), progress=False)
    assert [ep.turns[0].reply for ep in eps] == ["stop", "\udcff"]
    assert [ep.status for ep in eps] == [COMPLETED, TRUNCATED]


def test_a_non_text_reply_fails_its_episode_with_the_type_and_value_named():
    eps = _episodes(2, max_turns=1)

    class Mixed:
        def respond(self, episodes):
            return [42, "ok"]

    runner.run_lockstep(eps, Mixed(), progress=False)
    assert eps[0].error == "model request failed: the backend returned int 42, not a str"
    assert eps[0].turns[0].reply is None  # never recorded as a reply
    assert eps[1].status == TRUNCATED


def test_an_exception_returned_as_a_reply_fails_only_that_episode():
    eps = _episodes(2, max_turns=1)

    class Partial:
        def respond(self, episodes):
            return [ValueError("nope"), "ok"]

    runner.run_lockstep(eps, Partial(), progress=False)
    # A returned (never raised) exception has no traceback: no " at file:line".
    assert eps[0].error == "model request failed: ValueError: nope"
    assert eps[1].status == TRUNCATED


# --- environment ---------------------------------------------------------------------


def test_an_env_that_raises_at_reset_fails_its_episode_and_the_others_start():
    specs = [{"seed": 0, "index": 0, "broken": True}, {"seed": 1, "index": 1}]
    eps = runner.start_episodes(specs, _make_env)
    assert eps[0].status == FAILED and eps[0].env is None
    assert eps[0].error.startswith("environment reset failed: ValueError: bad spec at ")
    assert eps[0].error.endswith(f"{__file__}:{_make_env.__code__.co_firstlineno + 2}")
    assert (eps[1].status, eps[1].system, [t.user for t in eps[1].turns], eps[1].info) == (RUNNING, "sys", ["u1"], {"turn": 1})


def test_start_episodes_copies_each_spec():
    spec = {"seed": 0, "index": 0}
    (ep,) = runner.start_episodes([spec], _make_env)
    ep.spec["model"] = "m"
    assert spec == {"seed": 0, "index": 0}


def test_an_env_that_raises_at_step_fails_its_episode_with_the_reply_kept():
    eps = _episodes(1)
    runner.run_lockstep(eps, _Player(reply="crash"), progress=False)
    assert eps[0].status == FAILED
    assert eps[0].error.startswith("environment step failed: KeyError: 'boom' at ")
    assert eps[0].turns[-1].reply == "crash"


def test_terminated_episode_is_completed_with_its_closing_message_and_no_new_turn():
    eps = _episodes(1)
    runner.run_lockstep(eps, _Player(reply="stop"), progress=False)
    ep = eps[0]
    assert (ep.status, ep.closing, len(ep.turns), ep.info) == (COMPLETED, "bye", 1, {"turn": 1})


def test_truncated_episode_keeps_every_turn_and_the_closing_message():
    # max_turns 2: turn 1 -> "u2" (a new turn), turn 2 truncates with the message "u3".
    eps = _episodes(1, max_turns=2)
    runner.run_lockstep(eps, _Player(reply="a"), progress=False)
    ep = eps[0]
    assert (ep.status, ep.closing, [t.user for t in ep.turns], [t.reply for t in ep.turns]) == (
        TRUNCATED, "u3", ["u1", "u2"], ["a", "a"],
    )


def test_run_one_at_a_time_plays_each_episode_alone():
    eps = _episodes(2, max_turns=2)
    player = _Player()
    runner.run_one_at_a_time(eps, player)
    assert player.calls == [[0], [0], [1], [1]]


# --- conversation and transcript -----------------------------------------------------


def test_messages_drop_the_oldest_turns_but_keep_the_system_prompt():
    ep = Episode(spec={}, system="sys", turns=[Turn("u1", "r1"), Turn("u2", None), Turn("u3")])
    assert ep.messages() == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "u1"}, {"role": "assistant", "content": "r1"},
        {"role": "user", "content": "u2"}, {"role": "assistant", "content": ""},  # no reply recorded
        {"role": "user", "content": "u3"},
    ]
    assert ep.messages(drop=2) == [{"role": "system", "content": "sys"}, {"role": "user", "content": "u3"}]


def test_messages_without_a_system_prompt_start_with_the_user():
    assert Episode(spec={}, turns=[Turn("u1")]).messages() == [{"role": "user", "content": "u1"}]


def test_transcript_of_an_episode_without_env_has_no_trials():
    ep = Episode(spec={"task": "t"})
    ep.fail("why")
    assert ep.transcript() == {
        "task": "t", "status": FAILED, "error": "why", "system": "", "turns": [], "closing": None, "trials": [],
    }


# --- turn timeout --------------------------------------------------------------------


def test_a_call_past_the_turn_timeout_raises_with_the_limit_and_the_call_size():
    release = threading.Event()

    class Hang:
        def respond(self, episodes):
            release.wait(5)
            return ["late"] * len(episodes)

    eps = _episodes(2)
    try:
        with pytest.raises(runner.TurnTimeout) as err:
            runner._call(Hang(), eps, 0.05)
    finally:
        release.set()
    assert str(err.value) == "no reply within the turn timeout of 0.05 s (2 episode(s) in the call)"


def test_a_call_under_the_turn_timeout_returns_the_replies_and_reraises_errors():
    eps = _episodes(2)
    assert runner._call(_Player(), eps, 5.0) == ["ok", "ok"]
    with pytest.raises(RuntimeError, match="batch down"):
        runner._call(_Player(fail_batches=True), eps, 5.0)


def test_turn_timeout_runs_the_player_in_a_daemon_thread_and_no_thread_without_it():
    seen: list[threading.Thread] = []

    class Where:
        def respond(self, episodes):
            seen.append(threading.current_thread())
            return ["ok"] * len(episodes)

    eps = _episodes(1)
    runner._call(Where(), eps, None)
    runner._call(Where(), eps, 5.0)
    assert seen[0] is threading.main_thread()
    assert (seen[1].name, seen[1].daemon) == ("cog-turn", True)


def test_a_turn_timeout_of_threading_timeout_max_or_more_is_no_limit_and_uses_no_thread():
    # TIMEOUT_MAX itself is already "no limit" (the player is called directly, as with None).
    seen: list[threading.Thread] = []

    class Where:
        def respond(self, episodes):
            seen.append(threading.current_thread())
            return ["ok"] * len(episodes)

    runner._call(Where(), _episodes(1), threading.TIMEOUT_MAX)
    assert seen == [threading.main_thread()]


def test_lockstep_with_a_turn_timeout_fails_only_the_hanging_episode():
    release = threading.Event()

    class HangOn1(_Player):
        def respond(self, episodes):
            if any(ep.spec["index"] == 1 for ep in episodes):
                release.wait(5)
            return ["ok"] * len(episodes)

    eps = _episodes(2, max_turns=1)
    try:
        runner.run_lockstep(eps, HangOn1(), progress=False, turn_timeout=0.05)
    finally:
        release.set()
    assert [ep.status for ep in eps] == [TRUNCATED, FAILED]
    # The batch [0, 1] times out, then [0] answers and [1] times out alone.
    assert eps[1].error.startswith(
        "model request failed: TurnTimeout: no reply within the turn timeout of 0.05 s (1 episode(s) in the call) at "
    )


# Thread.join(timeout) raises OverflowError past threading.TIMEOUT_MAX (e.g.
# LM_EVAL_COG_TURN_TIMEOUT=inf): such a limit must mean "no limit", not fail every episode.
@pytest.mark.parametrize("seconds", [float("inf"), 1e10])
def test_a_turn_timeout_longer_than_a_thread_can_wait_does_not_fail_the_episodes(seconds):
    assert seconds > threading.TIMEOUT_MAX
    eps = _episodes(2, max_turns=1)
    runner.run_lockstep(eps, _Player(), progress=False, turn_timeout=seconds)
    assert [ep.status for ep in eps] == [TRUNCATED, TRUNCATED]


# --- progress bar --------------------------------------------------------------------


def test_progress_bar_counts_turns_up_to_the_longest_episode_and_takes_a_label():
    eps = _episodes(1, max_turns=2) + _episodes(1, max_turns=5)
    bar = runner._progress_bar(eps, "cog episodes x")
    try:
        assert (bar.total, bar.desc, bar.unit) == (5, "cog episodes x", "turn")
    finally:
        bar.close()
    bar = runner._progress_bar(eps, True)
    try:
        assert bar.desc == "cog episodes"
    finally:
        bar.close()
    assert runner._progress_bar(eps, False) is None


def test_progress_bar_without_any_env_has_no_total():
    eps = runner.start_episodes([{"seed": 0, "index": 0, "broken": True}], _make_env)
    bar = runner._progress_bar(eps, True)
    try:
        assert bar.total is None
    finally:
        bar.close()


def test_transcript_of_a_played_episode_has_its_turns_and_trials_as_plain_data():
    # max_turns 1, reply "a": one turn (user "u1", reply "a"), one trial {"reply": "a"}.
    (ep,) = _episodes(1, max_turns=1)
    runner.run_lockstep([ep], _Player(reply="a"), progress=False)
    t = ep.transcript()
    assert t["turns"] == [{"user": "u1", "reply": "a", "dropped_turns": 0, "prompt_tokens": None, "cached_tokens": None}]
    assert t["trials"] == [{"reply": "a"}] and t["trials"] is not ep.env.log
    assert (t["status"], t["closing"], t["system"], t["seed"]) == (TRUNCATED, "u2", "sys", 0)


def test_failure_reason_points_at_the_innermost_frame():
    # The error is raised in _EchoEnv._step, called by Env.step, called by the runner:
    # the reason names the line of the raise, not an outer frame.
    eps = _episodes(1)
    runner.run_lockstep(eps, _Player(reply="crash"), progress=False)
    raise_line = next(i for i, line in enumerate(open(__file__, encoding="utf-8"), 1) if 'raise KeyError("boom")' in line)
    assert eps[0].error.endswith(f"{__file__}:{raise_line}")


class _FakeBar:
    """Stands in for tqdm.auto.tqdm: records what the runner tells its progress bar."""

    made: list[_FakeBar] = []

    def __init__(self, total=None, desc=None, unit=None):
        self.total, self.desc, self.unit = total, desc, unit
        self.updates: list[Any] = []
        self.postfix: list[dict[str, Any]] = []
        self.closed = False
        _FakeBar.made.append(self)

    def update(self, n):
        self.updates.append(n)

    def set_postfix(self, **kwargs):
        self.postfix.append(kwargs)

    def close(self):
        self.closed = True


@pytest.fixture
def bars(monkeypatch):
    import tqdm.auto

    _FakeBar.made = []
    monkeypatch.setattr(tqdm.auto, "tqdm", _FakeBar)
    return _FakeBar.made


def test_lockstep_shows_a_turn_bar_by_default_with_the_live_count_after_each_turn(bars):
    # Episodes of 2 and 3 turns: after turn 1 both live, after 2 one, after 3 none.
    eps = _episodes(1, max_turns=2) + _episodes(1, max_turns=3)
    runner.run_lockstep(eps, _Player())
    (bar,) = bars
    assert (bar.total, bar.desc, bar.unit, bar.closed) == (3, "cog episodes", "turn", True)
    assert bar.updates == [1, 1, 1]
    assert bar.postfix == [{"live": 2, "refresh": False}, {"live": 1, "refresh": False}, {"live": 0, "refresh": False}]


def test_one_at_a_time_shows_no_bar_unless_asked_and_then_one_per_episode(bars):
    runner.run_one_at_a_time(_episodes(2, max_turns=1), _Player())
    assert bars == []
    runner.run_one_at_a_time(_episodes(2, max_turns=1), _Player(), progress="solo")
    assert [b.desc for b in bars] == ["solo", "solo"]


@dataclass(frozen=True)
class _NoTurnBound:
    """Params without ``max_turns`` (the bar then has no total)."""


def test_progress_bar_ignores_episodes_whose_params_have_no_turn_bound(bars):
    unbounded = Episode(spec={}, env=_EchoEnv(_NoTurnBound()))
    runner._progress_bar([unbounded], True)
    runner._progress_bar([unbounded] + _episodes(1, max_turns=3), True)
    assert [b.total for b in bars] == [None, 3]
