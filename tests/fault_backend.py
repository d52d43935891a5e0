"""An lm-eval backend that injects faults on chosen turns of chosen episodes (tests only).

Registered as ``cog-fault`` on import, so the real CLI can use it too::

    python -c "import fault_backend; from lm_eval.__main__ import cli_evaluate; cli_evaluate()" \\
        --model cog-fault --model_args "faults=1:2:raise;2:3:hang" --tasks cog_wcst_direct ...

``faults``: ``doc:turn:kind`` entries separated by ``;`` (``turn`` counts from 1). The
turn is read from the prompt (the number of user lines, ``User: `` or ``<|user|>``),
the episode from the request's ``doc_id``. Every other request gets ``reply``.

``ll``: the log-likelihood every ``loglikelihood`` request gets (e.g. ``ll='nan'``, ``ll='inf'``: a broken
backend on the ``_mc`` probes); without it, ``loglikelihood`` is not implemented.
"""

from __future__ import annotations

import threading
from typing import Any

from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

from lm_eval_cog.lmeval.compat import make_instance
from lm_eval_cog.paradigms.base import episode_seed

#: 100,000 characters of prose without a digit, then an answer line.
LONG_REPLY = ("lorem ipsum dolor sit amet " * 3704)[:99_990] + "\nAnswer: 2"
#: A reply holding bytes that are not UTF-8, decoded losslessly (lone surrogates \udcff \udcfe).
UNDECODABLE_REPLY = b"Answer: 3 \xff\xfe".decode("utf-8", "surrogateescape")
#: The episodes the helpers play: cog_wcst_direct, four trials each.
TASK = "cog_wcst_direct"
TRIALS = 4


def requests(
    n: int,
    *,
    system_instruction: str | None = None,
    chat: bool = False,
    task: str = TASK,
    paradigm: str = "wcst",
    preset: str = "wcst64",
    overrides: dict | None = None,
    max_gen_toks: int = 32,
) -> list:
    """What ``InteractiveTask.construct_requests`` builds: one ``cog_episode`` request per episode."""
    out = []
    for index in range(n):
        spec = {
            "task": task,
            "paradigm": paradigm,
            "preset": preset,
            "strategy": "direct",
            "overrides": {"trials": TRIALS} if overrides is None else overrides,
            "task_seed": 1234,
            "index": index,
            "seed": episode_seed(1234, index),
        }
        payload = {
            "spec": spec,
            "gen_kwargs": {"until": [], "max_gen_toks": max_gen_toks, "do_sample": False},
            "apply_chat_template": chat,
            "system_instruction": system_instruction,
        }
        out.append(make_instance("cog_episode", ("ctx", payload), task_name=task, doc_id=index, metadata=(task, index, 1)))
    return out


KINDS = ("raise", "empty", "long", "undecodable", "bytes", "none", "hang")


def parse_faults(spec: str | dict | None) -> dict[tuple[int, int], str]:
    if isinstance(spec, dict):
        return dict(spec)
    faults = {}
    for entry in filter(None, (spec or "").split(";")):
        doc, turn, kind = entry.split(":")
        if kind not in KINDS:
            raise ValueError(f"fault kind {kind!r} is not one of {KINDS}")
        faults[(int(doc), int(turn))] = kind
    return faults


@register_model("cog-fault")
class FaultLM(LM):
    def __init__(
        self, faults: str | dict | None = None, reply: str = "Answer: 1", hang_s: float = 600, ll: Any = None, **_: Any
    ) -> None:
        super().__init__()
        self.ll = None if ll is None else float(ll)  # "nan" / "inf" from --model_args
        self.faults = parse_faults(faults)
        self.reply = reply
        self.hang_s = float(hang_s)
        self.release = threading.Event()  # set it to end a hanging request early
        #: (doc_id, prompt) of every request received, in order.
        self.received: list[tuple[int, Any]] = []
        self.calls = 0

    def generate_until(self, requests, disable_tqdm: bool = False) -> list:
        self.calls += 1
        out = []
        for request in requests:
            prompt = request.args[0]
            self.received.append((request.doc_id, prompt))
            turn = str(prompt).count("User: ") + str(prompt).count("<|user|>")
            kind = self.faults.get((request.doc_id, turn))
            if kind == "raise":
                raise RuntimeError(f"injected fault on episode {request.doc_id}")
            if kind == "hang":
                self.release.wait(self.hang_s)
            out.append(
                {
                    None: self.reply,
                    "hang": self.reply,
                    "empty": "",
                    "long": LONG_REPLY,
                    "undecodable": UNDECODABLE_REPLY,
                    "bytes": b"Answer: 2 \xff",
                    "none": None,
                }[kind]
            )
        return out

    def apply_chat_template(self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
        return "".join(f"<|{m['role']}|>{m['content']}\n" for m in chat_history) + "<|assistant|>"

    def loglikelihood(self, requests, disable_tqdm: bool = False) -> list:
        if self.ll is None:
            raise NotImplementedError
        return [(self.ll, False) for _ in requests]

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False) -> list:
        raise NotImplementedError
