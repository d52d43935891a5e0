"""Rendering edges: prompt objects that are not strings, and undecodable bytes in a reply."""

from __future__ import annotations

from types import SimpleNamespace

from lm_eval_cog.rendering import Renderer, encodable, prompt_text
from lm_eval_cog.runner import Episode, Turn


def test_prompt_text_of_a_string_is_the_string():
    assert prompt_text("User: card 1\nAssistant:") == "User: card 1\nAssistant:"


def test_prompt_text_of_a_wrapper_is_its_prompt_field():
    # lm-eval's chat-completions models return a JSON wrapper with a `prompt` field
    assert prompt_text(SimpleNamespace(prompt="[{'role': 'user'}]")) == "[{'role': 'user'}]"


def test_prompt_text_of_another_object_is_its_str():
    assert prompt_text(42) == "42"
    assert prompt_text(["a", "b"]) == "['a', 'b']"


def test_lone_surrogates_become_the_replacement_character_and_nothing_else_changes():
    # a backend's undecodable byte arrives as a lone surrogate (surrogateescape of 0xff)
    assert encodable("a\udcffb") == "a\ufffdb"
    assert encodable("é 😀 \ufffd") == "é 😀 \ufffd"


def test_rendered_prompt_carries_the_replacement_character_for_a_bad_reply_byte():
    ep = Episode(spec={}, system="S", turns=[Turn(user="q1", reply="x\udcffy"), Turn(user="q2")])
    prompt, _, _ = Renderer(chat_template=None, count_tokens=lambda t: len(t.split())).render(ep)
    assert prompt == "S\n\nUser: q1\nAssistant:x\ufffdy\nUser: q2\nAssistant:"
