"""Edges of ``rendering.Renderer`` that mutation testing found unpinned.

Where ``--system_instruction`` goes with and without the paradigm's instructions, when a
chat template is called a second time with the instructions folded in, and the context
budget at its exact boundary (fits, drops one or two turns, or overflows with a message
giving every number). Token counts are words (``str.split``), so every length is counted
by hand in the comments.
"""

from __future__ import annotations

import pytest
from lm_eval.models.api_models import JsonChatStr

from lm_eval_cog.rendering import ContextOverflow, Renderer
from lm_eval_cog.runner import Episode, Turn


def words(text: str) -> int:
    return len(text.split())


def episode(n_done: int, system: str = "Sort cards.") -> Episode:
    """``n_done`` answered turns ("card i" -> "2") and one open turn."""
    turns = [Turn(user=f"card {i}", reply="2") for i in range(n_done)] + [Turn(user=f"card {n_done}")]
    return Episode(spec={}, system=system, turns=turns)


# --- messages ------------------------------------------------------------------------


def test_system_instruction_is_prepended_to_the_paradigm_instructions():
    r = Renderer(chat_template=None, count_tokens=words, system_instruction="Be brief.")
    assert r.messages(episode(0), 0) == [
        {"role": "system", "content": "Be brief.\n\nSort cards."},
        {"role": "user", "content": "card 0"},
    ]


def test_system_instruction_becomes_the_system_message_when_the_paradigm_has_none():
    r = Renderer(chat_template=None, count_tokens=words, system_instruction="Be brief.")
    assert r.messages(episode(0, system=""), 0) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "card 0"},
    ]


def test_without_system_instruction_the_messages_are_the_episodes():
    ep = episode(1)
    assert Renderer(chat_template=None, count_tokens=words).messages(ep, 1) == ep.messages(1)


# --- to_prompt -----------------------------------------------------------------------


class Template:
    """A chat template that records its calls; ``keep`` chars of the system message survive."""

    def __init__(self, keep: int | None = None, wrap: bool = False) -> None:
        self.keep, self.wrap = keep, wrap
        self.calls: list[list[dict[str, str]]] = []

    def __call__(self, msgs):
        self.calls.append(msgs)
        parts = []
        for m in msgs:
            content = m["content"][: self.keep] if m["role"] == "system" and self.keep is not None else m["content"]
            parts.append(f"<{m['role']}>{content.strip()}")
        text = "".join(parts)
        return JsonChatStr(text) if self.wrap else text


def test_template_keeping_the_first_200_characters_of_the_instructions_is_called_once():
    # 300-character instructions, of which the template keeps 200: the check looks at the
    # first 200 (after stripping), which are there, so no second call with them folded in.
    template = Template(keep=200)
    r = Renderer(chat_template=template, count_tokens=words)
    ep = episode(0, system="x" * 300)
    assert r.to_prompt(r.messages(ep, 0)) == "<system>" + "x" * 200 + "<user>card 0"
    assert len(template.calls) == 1


def test_template_keeping_fewer_than_200_characters_gets_the_instructions_folded_in():
    template = Template(keep=199)
    r = Renderer(chat_template=template, count_tokens=words)
    prompt = r.to_prompt(r.messages(episode(0, system="x" * 300), 0))
    assert len(template.calls) == 2
    assert template.calls[1] == [{"role": "user", "content": "x" * 300 + "\n\ncard 0"}]
    assert prompt == "<user>" + "x" * 300 + "\n\ncard 0"


def test_instructions_with_surrounding_blanks_are_found_by_their_stripped_text():
    # The template strips contents: "  Sort cards.\n" appears as "Sort cards.".
    template = Template()
    r = Renderer(chat_template=template, count_tokens=words)
    r.to_prompt(r.messages(episode(0, system="  Sort cards.\n"), 0))
    assert len(template.calls) == 1


def test_a_non_string_prompt_object_is_not_checked_for_the_instructions():
    # lm-eval's chat-completions models return a JsonChatStr wrapper: it is sent as it is.
    template = Template(keep=0, wrap=True)
    r = Renderer(chat_template=template, count_tokens=words)
    assert r.to_prompt(r.messages(episode(0), 0)) == JsonChatStr("<system><user>card 0")
    assert len(template.calls) == 1


def test_messages_without_instructions_are_rendered_once():
    template = Template(keep=0)
    r = Renderer(chat_template=template, count_tokens=words)
    assert r.to_prompt(r.messages(episode(0, system=""), 0)) == "<user>card 0"
    assert len(template.calls) == 1


# --- render: the budget --------------------------------------------------------------

# Plain prompt of episode(n): "Sort cards.\n\nUser: card 0\nAssistant:2\nUser: card 1 ... User: card n\nAssistant:"
# Words: "Sort cards." 2; each answered turn "User: card i Assistant:2" 4; the open turn
# "User: card n Assistant:" 4. So episode(n) counts 2 + 4n + 4 words.


def test_prompt_exactly_at_the_budget_fits_without_dropping():
    # episode(2): 2 + 8 + 4 = 14 words.
    prompt, dropped, n = Renderer(chat_template=None, count_tokens=words, max_prompt_tokens=14).render(episode(2))
    assert (dropped, n) == (0, 14)


def test_dropping_continues_one_turn_at_a_time_until_the_prompt_fits():
    # episode(3) is 18 words; budget 10 -> drop 1 (14), drop 2 (10): fits with 2 dropped.
    prompt, dropped, n = Renderer(chat_template=None, count_tokens=words, max_prompt_tokens=10).render(episode(3))
    assert (dropped, n) == (2, 10)
    assert prompt == "Sort cards.\n\nUser: card 2\nAssistant:2\nUser: card 3\nAssistant:"


def test_overflow_message_gives_the_prompt_size_the_budget_and_the_turns_dropped():
    # episode(2) with both old turns dropped is 6 words; a budget of 5 cannot be met.
    with pytest.raises(ContextOverflow) as err:
        Renderer(chat_template=None, count_tokens=words, max_prompt_tokens=5).render(episode(2))
    assert str(err.value) == (
        "prompt of 6 tokens exceeds the budget of 5 tokens (context length minus generation budget) "
        "even with all 2 old turns dropped"
    )


def test_first_turn_over_budget_overflows_with_no_old_turns():
    # episode(0): 6 words, nothing to drop.
    with pytest.raises(ContextOverflow, match=r"prompt of 6 tokens exceeds the budget of 4 tokens .* all 0 old turns"):
        Renderer(chat_template=None, count_tokens=words, max_prompt_tokens=4).render(episode(0))


def test_dropping_starts_from_the_previous_turns_count():
    # The previous turn dropped 1; with room for everything, this turn still drops 1 (monotone).
    ep = episode(2)
    ep.turns[-2].dropped_turns = 1
    _, dropped, n = Renderer(chat_template=None, count_tokens=words, max_prompt_tokens=100).render(ep)
    assert (dropped, n) == (1, 10)


def test_tokens_of_a_wrapped_prompt_are_counted_on_its_text():
    # The wrapper's prompt text "<system>Sort cards.<user>card 0" is 3 words.
    r = Renderer(chat_template=Template(wrap=True), count_tokens=words, max_prompt_tokens=3)
    assert r.render(episode(0)) == (JsonChatStr("<system>Sort cards.<user>card 0"), 0, 3)
