"""lm-eval's OpenAI-compatible models play episodes too: a scripted server on loopback.

The server answers every request with a fixed reply and records what it was sent,
so the tests see exactly what an API backend receives each turn.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from lm_eval import simple_evaluate
from lm_eval.tasks import TaskManager

from lm_eval_cog._autoload import task_dir

pytest.importorskip("aiohttp")
pytest.importorskip("tenacity")


@pytest.fixture
def server():
    received: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append({"path": self.path, **body})
            if self.path.endswith("/chat/completions"):
                choice = {"index": 0, "message": {"role": "assistant", "content": "Answer: 2"}, "finish_reason": "stop"}
            else:
                prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
                choice = [{"index": i, "text": " 2", "finish_reason": "stop"} for i in range(len(prompts))]
            payload = json.dumps({"choices": choice if isinstance(choice, list) else [choice]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", received
    httpd.shutdown()


def run(model: str, model_args: str, **kwargs):
    return simple_evaluate(
        model=model,
        model_args=model_args,
        tasks=["cog_wcst_kennedy"],
        limit=2,
        task_manager=TaskManager(include_path=str(task_dir()), include_defaults=False),
        log_samples=True,
        bootstrap_iters=0,
        **kwargs,
    )


def test_chat_completions_backend_gets_the_growing_conversation_as_messages(server):
    base, received = server
    out = run(
        "local-chat-completions",
        f"base_url={base}/chat/completions,model=fake,tokenizer_backend=None,max_length=100000",
        apply_chat_template=True,
    )
    assert len(received) == 2 * 25  # chat completions: one request per episode per turn
    first, last = received[0]["messages"], received[-1]["messages"]
    assert first[0]["role"] == "system" and "Wisconsin Card Sorting" in first[0]["content"]
    assert [m["role"] for m in last[1:]] == ["user", "assistant"] * 24 + ["user"]
    assert all(m["content"] == "Answer: 2" for m in last if m["role"] == "assistant")
    row = out["results"]["cog_wcst_kennedy"]
    assert row["episode_failed,none"] == 0 and row["invalid_rate,none"] == 0


def test_completions_backend_gets_the_plain_transcript(server):
    base, received = server
    out = run("local-completions", f"base_url={base}/completions,model=fake,tokenizer_backend=None")
    prompts = [p for r in received for p in (r["prompt"] if isinstance(r["prompt"], list) else [r["prompt"]])]
    assert len(prompts) == 2 * 25
    assert all(p.endswith("\nAssistant:") and p.startswith("You are performing") for p in prompts)
    assert "\nUser:" in received[0]["stop"]
    assert out["results"]["cog_wcst_kennedy"]["invalid_rate,none"] == 0
