"""The runner plays games with several model roles: one conversation per role, every due role of
every live episode in one batched call per round, probes left out of later prompts, failures
recorded per episode. A toy game stands in for the real ones (exactly known moves and scores)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval_cog import runner
from lm_eval_cog.games.base import ABORTED, INVALID, LOSE, SUCCESS, VALID, GameEnv, common_metrics
from lm_eval_cog.transcripts import rebuild_prompt


@dataclass(frozen=True)
class EchoParams:
    rounds: int = 2
    max_turns: int = 20
    strategy: str = "direct"


class EchoGame(GameEnv):
    """The caller names a word; the echoer must repeat it. After each echo, the caller is asked
    aside (a probe) whether the echo was right. ``rounds`` rounds; a reply without its tag aborts."""

    roles = ("caller", "echoer")

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        self.round, self.word, self.probing = 1, None, False
        self.due = "caller"
        return "Name a word: reply 'WORD: <word>'.", {"role": self.due, "index": options.get("index")}

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        if self.due == "caller" and not self.probing:
            if not reply.startswith("WORD: "):
                self.record_move("word", INVALID, reply, "no WORD: tag")
                self.finish(ABORTED, None)
                return "aborted", True, {"role": self.due}
            self.word = reply[6:]
            self.record_move("word", VALID, self.word)
            self.due = "echoer"
            return f"Repeat: {self.word}", False, {"role": self.due}
        if self.due == "echoer":
            self.record_move("echo", VALID if reply == self.word else INVALID, reply)
            self.due, self.probing = "caller", True
            return f"ME: did they say {self.word}?", False, {"role": self.due, "ephemeral": True}
        # the probe's answer
        self.record_move("probe", VALID, reply)
        self.probing = False
        if self.round == self.params.rounds:
            self.finish(SUCCESS if reply == "yes" else LOSE, 100.0 if reply == "yes" else 0.0)
            return "done", True, {"role": self.due}
        self.round += 1
        return "Name another word.", False, {"role": self.due}


class ScriptedBatchPlayer:
    """Replies by role from a script; records every call's conversations."""

    def __init__(self, script: dict[str, Any]) -> None:
        self.script = script
        self.calls: list[list[tuple[str, list[dict[str, str]]]]] = []

    def respond(self, episodes: Sequence[runner.Episode]) -> list[str | BaseException]:
        self.calls.append([(ep.current.role, ep.messages()) for ep in episodes])
        return [self.script[ep.current.role](ep) for ep in episodes]


def start(n: int, fail_index: int | None = None) -> list[Any]:
    def make_env(spec: dict[str, Any]) -> GameEnv:
        if spec["index"] == fail_index:
            raise RuntimeError("no instance")
        return EchoGame(EchoParams())

    return runner.start_episodes([{"seed": 10 + i, "index": i} for i in range(n)], make_env)


def good_script() -> dict[str, Any]:
    return {
        "caller": lambda ep: "yes" if ep.current.user.startswith("ME:") else f"WORD: w{len(ep.turns)}",
        "echoer": lambda ep: ep.current.user.removeprefix("Repeat: "),
    }


def test_each_round_sends_every_live_episodes_due_role_in_one_call():
    episodes = start(3)
    player = ScriptedBatchPlayer(good_script())
    runner.run_lockstep(episodes, player, progress=False)
    # 2 rounds x (word, echo, probe) = 6 calls, each carrying all 3 episodes' due seat.
    assert len(player.calls) == 6
    assert [[role for role, _ in call] for call in player.calls] == [
        ["caller"] * 3, ["echoer"] * 3, ["caller"] * 3, ["caller"] * 3, ["echoer"] * 3, ["caller"] * 3,
    ]  # fmt: skip
    assert all(ep.status == runner.COMPLETED for ep in episodes)
    assert common_metrics(episodes[0].env.log)["main_score"] == 100.0


def test_each_role_sees_only_its_own_conversation_and_probes_drop_out_of_later_prompts():
    episodes = start(1)
    player = ScriptedBatchPlayer(good_script())
    runner.run_lockstep(episodes, player, progress=False)
    (role, second_word_prompt) = player.calls[3][0]  # the caller, naming its second word
    assert role == "caller"
    # Its first word and the answer to it, then the new request: the probe and its "yes" are gone.
    assert [m["content"] for m in second_word_prompt] == [
        "Name a word: reply 'WORD: <word>'.", "WORD: w1", "Name another word.",
    ]  # fmt: skip
    (role, echo_prompt) = player.calls[4][0]
    assert role == "echoer"
    assert [m["content"] for m in echo_prompt] == ["Repeat: w1", "w1", "Repeat: w3"]


def test_the_transcript_tags_turns_with_roles_and_rebuilds_each_roles_prompt():
    episodes = start(1)
    runner.run_lockstep(episodes, ScriptedBatchPlayer(good_script()), progress=False)
    transcript = json.loads(json.dumps(episodes[0].transcript()))
    assert [t["role"] for t in transcript["turns"]] == ["caller", "echoer", "caller", "caller", "echoer", "caller"]
    assert [t["kept"] for t in transcript["turns"]] == [True, True, False, True, True, False]
    assert transcript["systems"] == {"caller": "", "echoer": ""}
    # Turn 4 (0-based) is the echoer's second: its prompt holds only the echoer's conversation.
    assert rebuild_prompt(transcript, 4) == rebuild_prompt(transcript, 4)  # deterministic
    assert "Name a word" not in rebuild_prompt(transcript, 4) and "Repeat: w3" in rebuild_prompt(transcript, 4)
    assert "did they say" not in rebuild_prompt(transcript, 3)  # the answered probe is not kept


def test_a_failing_reset_or_request_fails_only_that_episode():
    episodes = start(3, fail_index=1)
    script = good_script()
    script["echoer"] = lambda ep: RuntimeError("backend down") if ep.spec["index"] == 2 else ep.current.user[8:]
    runner.run_lockstep(episodes, ScriptedBatchPlayer(script), progress=False)
    assert [ep.status for ep in episodes] == [runner.COMPLETED, runner.FAILED, runner.FAILED]
    assert "environment reset failed: RuntimeError: no instance" in episodes[1].error
    assert "model request failed: RuntimeError: backend down" in episodes[2].error


def test_an_abort_ends_the_episode_and_counts_as_not_played():
    episodes = start(2)
    script = good_script()
    script["caller"] = lambda ep: "no tag" if ep.spec["index"] == 0 else good_script()["caller"](ep)
    runner.run_lockstep(episodes, ScriptedBatchPlayer(script), progress=False)
    first = common_metrics(episodes[0].env.log)
    assert first["aborted"] == 1.0 and first["played"] == 0.0 and first["clemscore"] == 0.0
    assert first["lose"] == 0.0 and first["violated_request_count"] == 1.0
    assert common_metrics(episodes[1].env.log)["success"] == 1.0
