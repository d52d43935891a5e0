"""The reflection reader's field splitting, unquoting and log record, pinned case by case.

Written after a mutation run of ``lm_eval_cog/metacognition.py`` left survivors in exactly these
helpers: each case below is the smallest reply that tells one step of them from its absence.
"""

from __future__ import annotations

import pytest

from lm_eval_cog.metacognition import _line_fields, _read_text, _unquote, parse_reflection, reflection_record


@pytest.mark.parametrize(
    "raw, value",
    [
        ("  80  ", "80"),  # whitespace around
        ("**80**", "80"),  # markdown emphasis
        ("__80__", "80"),
        ("80,", "80"),  # a JSON line's trailing comma
        ("80}", "80"),  # ... or closing brace
        ("80 },", "80"),  # both, with a space between
        ('**"80"**,', "80"),  # emphasis outside the quotes, comma after the emphasis
        ('"Reasonable"', "Reasonable"),  # balanced double quotes
        ("'Reasonable'", "Reasonable"),  # balanced single quotes
        ('"Reasonable', "Reasonable"),  # an unbalanced quote
        ('" 80 "', "80"),  # whitespace inside the quotes
        ('"He said no"', "He said no"),  # inner text kept whole
        ("**80,**", "80"),  # a comma inside the emphasis
        ("**XL**", "XL"),  # letters at the ends are kept
        ("MAX,", "MAX"),
        ('"XL"', "XL"),
        ("level", "level"),  # equal first and last letters are no quotes
    ],
)
def test_unquote_removes_exactly_the_json_and_markdown_dressing(raw, value):
    assert _unquote(raw) == value


def test_the_first_occurrence_of_a_field_wins_and_later_fields_are_still_read():
    assert _line_fields("Confidence: 80\nConfidence: 20") == {"confidence": "80"}
    assert _line_fields("Confidence: 80\nConfidence: 20\nJudgement: Reasonable") == {
        "confidence": "80",
        "judgement": "Reasonable",
    }


def test_a_one_line_field_ends_at_its_line_and_the_reflection_runs_to_the_next_key():
    fields = _line_fields("Judgement: Reasonable\nmore\ntext\nReflection: line one\nline two\nConfidence: 70")
    assert fields == {"judgement": "Reasonable", "reflection": "line one\nline two", "confidence": "70"}


def test_the_last_field_runs_to_the_end_of_the_reply_and_keys_on_one_line_split_it():
    assert _line_fields("Reflection: a\nb") == {"reflection": "a\nb"}
    assert _line_fields("Judgement: Reasonable  Confidence: 70") == {"judgement": "Reasonable", "confidence": "70"}


def test_read_text_strips_and_refuses_blank_or_non_text():
    assert _read_text("  I misread the card.  ") == ("I misread the card.", True)
    assert _read_text("   ") == (None, False)
    assert _read_text(None) == (None, False)
    assert _read_text(42) == (None, False)


def test_the_log_record_holds_every_field_under_its_name():
    reflection = parse_reflection("Judgement: Not reasonable\nConfidence: 30\nReflection: wrong card\nNew response: 2")
    record = reflection_record(reflection, first=1, gold=2, final=2, revision="changed")
    assert record == {
        "first_choice": 1,
        "first_correct": False,
        "first_invalid": False,
        "judgement": "Not reasonable",
        "confidence": 30.0,
        "reflection": "wrong card",
        "new_response": "2",
        "fields": dict(reflection.fields),
        "source": reflection.source,
        "reflection_invalid": reflection.invalid,
        "final_choice": 2,
        "final_correct": True,
        "revision": "changed",
    }
    unread = reflection_record(reflection, first=None, gold=0, final=None, revision="unchanged")
    assert unread["first_invalid"] is True and unread["first_correct"] is False and unread["final_correct"] is False
    assert reflection_record(reflection, first=0, gold=0, final=0, revision="x")["first_correct"] is True


# Written after the full mutation run of metacognition.py (437 / 499 killed): the boundaries of the
# confidence and new-answer readers and the Python-literal fallback, each case the smallest one
# that tells a survivor from the code.
@pytest.mark.parametrize(
    "value, expected",
    [
        (100, (100.0, True)), (101, (None, False)), (0, (0.0, True)),  # the int range, both ends
        ("100", (100.0, True)), ("101", (None, False)), ("150", (None, False)),  # the text range
        (100.0, (100.0, True)), (100.5, (None, False)), (float("nan"), (None, False)),
        ("1", (1.0, True)),  # a bare 1 is 1 %, not a fraction: only a point makes it ambiguous
        ("1.0", (None, False)), ("0.5", (None, False)),  # fractions <= 1 written with a point
        ("0.0", (0.0, True)), ("1.5", (1.5, True)),  # 0 and above 1 are plain percentages
        (True, (None, False)), ("high", (None, False)), (None, (None, False)),
    ],
)  # fmt: skip
def test_confidence_reader_range_and_fraction_boundaries(value, expected):
    from lm_eval_cog.metacognition import read_confidence_value

    assert read_confidence_value(value) == expected


@pytest.mark.parametrize(
    "value, expected",
    [(3.0, ("3", True)), (2.5, ("2.5", True)), (7, ("7", True)), (False, (None, False)), (None, (None, True))],
)
def test_new_response_reader_writes_numbers_as_their_text(value, expected):
    from lm_eval_cog.metacognition import read_new_response_value

    assert read_new_response_value(value) == expected


def test_a_python_style_object_with_json_literals_is_decoded():
    # Single quotes make it invalid JSON; true/false/null make it an invalid Python literal until
    # they are translated: only the translated literal decodes.
    reply = (
        "Here it is: {'rationality_judgement': 'Not reasonable', 'confidence_score': 40, 'sure': true, "
        "'changed': false, 'new_response': null, 'model_reflection': 'I misread the rule'} Thanks."
    )
    parsed = parse_reflection(reply)
    assert (parsed.source, parsed.judgement, parsed.confidence) == ("json", "Not reasonable", 40.0)
    assert parsed.new_response is None and parsed.fields["new_response"] == "ok"
    assert parsed.reflection == "I misread the rule"
