"""How a model's reply is read: the one place the rule is written down.

Every reader of model replies follows it: the static probes' ``_gen`` tasks (the
``answer_line`` filter of ``task_configs/probes/_probe_gen.yaml`` and
:meth:`lm_eval_cog.paradigms.probe_base.Probe.read_answer`), the interactive paradigms
(:func:`lm_eval_cog.paradigms.base.read_choice`) and the metacognition passes
(:mod:`lm_eval_cog.metacognition`). Pure Python; no lm-eval, no torch.

The rule
--------

1. **Unicode.** The reply is NFKC-normalised first (full-width "Answer：２" is
   "Answer:2").
2. **Answer marker.** ``Answer:``, ``Final answer:``, ``The answer is X`` (with or
   without a colon), ``Answer = X``, ``My/the (final/correct) answer ...``, optionally
   after "So/Thus/Therefore/Hence/Finally/In conclusion", with any case and any
   Markdown around it (``**Answer:**``, ``**Answer**:``, ``### Final Answer``). A bare
   heading (``**Answer**`` alone on its line) is a marker too.
3. **Where a marker counts.** Only where it *begins a line* or *a sentence* (after
   ``.``, ``!`` or ``?`` and a blank), after optional markup or symbols (``**``,
   ``#``, ``>``, ``-``, emoji) and an optional list number (``2.``). "A common wrong
   answer is: no" inside a sentence is no marker. **The last marker that counts wins.**
4. **Answer text.** The rest of the marker's line; a repeated marker at its start is
   dropped ("Answer: Answer: blue" -> "blue"). When the marker ends its line
   ("Answer:" then a line break), the answer is on the next non-blank line. The
   **block** is that line plus the lines that continue it: the following items of a
   list (``1.``/``-``/``*``) that it starts, or, after a bare marker, the following
   non-blank lines. Probes read the first line; move plans read the block. An answer
   (line or block) over ``MAX_ANSWER_CHARS`` (2000) characters is no answer.
5. **Cleaning** (:func:`clean_answer`). Markup, quotes, brackets, emoji and final
   punctuation are stripped; a trailing explanation is dropped: a parenthetical ``(...)``/``[...]``,
   a clause from "because"/"since"/"given that"/"due to", a comma clause ("No, the
   letters differ" -> "no"; ", as ...", ", so ...", ", which ..."), and any further
   sentence ("3. The tower needs ..." -> "3"); then case-folded, blanks collapsed,
   and a leading article a/an/the dropped ("a camera" -> "camera").
6. **Doubt is invalid, never a choice** (:func:`hedged`, :func:`negated`). An answer
   is invalid when it hedges (a "?"; "maybe", "probably", "perhaps", "I think",
   "not sure", ...; in its text or its parenthetical), offers alternatives ("or",
   "either": "yes or no"), corrects itself ("2, no wait, 3"; "actually"), or negates
   ("not 2", "anything but yes", "never", "rather than", "n't"). Words inside the text
   of a choice do not count ("Not Available" is an n-back choice).
7. **Numbers** (:func:`parse_int`): digits (at most ``max_digits``: a 5000-digit run
   is invalid, never a huge number) or number words zero..twenty, thirty..ninety,
   "twenty-one".
8. **No marker, no answer** for the static probes (``[invalid]``, counted in
   ``invalid_rate``). The paradigms, whose replies may be bare (``direct``) or lack the
   closing line (``free``/``cot``), then read the whole reply under their own
   stricter rules (:func:`lm_eval_cog.paradigms.base.read_choice`); there too a choice
   negated within its clause ("I would not pick left", :func:`negated_at`) or hedged in
   the sentence that states it ("I pick 2, I think") is never read as that choice.

Every function here is linear in the length of its input (no regular expression with
nested or overlapping quantifiers; each candidate marker is examined in a bounded
window) and never raises, whatever it is given.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

__all__ = [
    "AnswerText",
    "answer_head",
    "as_answer",
    "clean_answer",
    "doubtful",
    "find_answer",
    "hedged",
    "list_items",
    "negated",
    "negated_at",
    "normalize",
    "parse_int",
]

#: Characters around an answer that carry no meaning: quotes, brackets, Markdown, final stops.
EDGE = "\"'`*_()[]{}<>.,;:!?\u201c\u201d\u2018\u2019\u00ab\u00bb \t"
#: Longest stretch of symbols skipped before a marker (``**``, ``###``, emoji, quotes).
_MAX_DECORATION = 40
#: A marker is examined within this many characters of where it starts.
_WINDOW = 200
#: Longest answer read (line, or block with its continuation lines): a longer one is no
#: answer (real answers are a word, a number, a sequence or a short plan).
MAX_ANSWER_CHARS = 2000
#: Repeated markers dropped at the start of an answer ("Answer: Answer: blue").
_MAX_REPEATS = 8
#: Characters between a candidate start and the word "answer" of a marker (decoration,
#: a list number, "So, the final ").
_MAX_LEAD = 2 * _MAX_DECORATION + 4 + 40
#: Digits a number may have by default (a count, a move number, a card).
MAX_DIGITS = 6

# The marker itself, matched at a candidate start (case-insensitive). Each quantified
# item is followed by something it cannot match, so a failed match never backtracks
# over more than one item: the cost of a try is bounded by the window.
_MARKER = re.compile(
    r"(?:(?:so|thus|therefore|hence|finally|overall|in conclusion|in summary|in short)(?![^\W_]),?\s+)?"
    r"(?:(?:my|the|our)\s+)?"
    r"(?:(?:final|correct|right|best|short)\s+)?"
    r"answer(?![^\W_])"
    r"[*_]*\s*"
    r"(?:(?P<is>is|would be|will be|should be)(?![^\W_])[*_]*\s*)?"
    r"(?P<sep>[:=])?",
    re.IGNORECASE,
)
# A list number before a marker or at the start of an item: "2." / "2)".
_LIST_NUMBER = re.compile(r"\d{1,3}[.)]")
# A list item: a bullet or a number, then a blank and some text.
_LIST_ITEM = re.compile(r"\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+\S")
_BULLET = re.compile(r"[-*+\u2022]\s+(?=\S)")
_CLOSING_MARKUP = re.compile(r"^[*_]+(?=\s|$)")
# Where a sentence ends inside a line: . ! ? (then closing quotes, brackets or emphasis),
# then blanks. One stop character per match and disjoint classes in sequence, so a
# failed try gives back at most the closing run after one stop: linear in total.
_SENTENCE_BREAK = re.compile(r"[.!?\u3002][)\]\"'*_\u201d\u2019]*\s+")
_ANSWER_WORD = re.compile(r"answer", re.IGNORECASE)
# Symbols before a marker (markup, quotes, emoji), at most _MAX_DECORATION of them.
_DECORATION = re.compile(r"[\W_]{0,%d}" % _MAX_DECORATION)
# A further sentence after the answer: a stop, blanks, a capital letter.
_NEXT_SENTENCE = re.compile(r"[.!](?=[)\]\"'*_]*\s+[A-Z])")
# A clause that explains the answer rather than stating it.
_REASON = re.compile(
    r"\s(?:because|since|given that|due to|based on)(?![^\W_])"
    r"|[,;]\s(?:as|so|which|meaning|i\.e\.|e\.g\.|that is|it|this|that|there|they|these|those|the|he|she|we|you)\s(?=\w)",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"(?:a|an|the) (?!(?:and|or|nor)(?![^\W_]))(?=[^\W\d_]{2})")
_HEDGE_WORDS = re.compile(
    r"(?<![^\W_])(?:maybe|perhaps|probably|possibly|presumably|apparently|seemingly|unsure|uncertain"
    r"|guess|guessing|i think|i believe|i suppose|i assume|i'd say|i would say|not sure|not certain|hm+)(?![^\W_])"
)
_ALTERNATIVE_WORDS = re.compile(
    r"(?<![^\W_])(?:or|either|and/or|wait|actually|i mean|correction|scratch that|sorry|oops|rather|instead)(?![^\W_])"
)
_NEGATION = re.compile(
    r"(?<![^\W_])(?:not|never|neither|nor|except|excluding|cannot|no longer|anything but|all but|everything but"
    r"|anything except|anything other than|other than|rather than|instead of)(?![^\W_])|n['\u2019]t(?![^\W_])"
)
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")
_NEGATOR_WORDS = frozenset({"not", "never", "neither", "nor", "except", "excluding", "cannot", "avoid", "avoiding"})
_NEGATOR_PAIRS = frozenset({("anything", "but"), ("all", "but"), ("everything", "but"), ("rather", "than"),
                            ("other", "than"), ("instead", "of"), ("anything", "except"), ("no", "longer")})  # fmt: skip
_CLAUSE_END = ".,;:!?()[]\n"
# Emoji and other symbols, modifiers, format characters, surrogates, private and unassigned
# code points: no answer is made of them ("-" and the minus sign are answers: not here).
_SYMBOL_CATEGORIES = frozenset({"So", "Sk", "Cf", "Cs", "Co", "Cn"})
_NUMBER_WORDS = {
    w: k
    for k, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_TENS = {w: 10 * k for k, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if k > 1}


def _nfkc(text: str) -> str:
    try:
        return unicodedata.normalize("NFKC", text)
    except (TypeError, ValueError):  # never raises on a str; defensive
        return text


def normalize(text: str) -> str:
    """The comparable form of an answer: NFKC, case-folded, inner blanks collapsed,
    quotes, brackets, Markdown and final punctuation stripped ("**Blue.**" -> "blue")."""
    if not isinstance(text, str):
        return ""
    return " ".join(_nfkc(text).strip(EDGE).split()).strip(EDGE).casefold()


# --------------------------------------------------------------------------- #
# Finding the answer
# --------------------------------------------------------------------------- #


class AnswerText(str):
    """An answer as the readers see it.

    The string itself is :func:`clean_answer` of the answer line (what a probe compares
    with its choices); ``line`` is that line as written (NFKC, blanks stripped);
    ``block`` is the line and the lines that continue it, joined by line breaks.
    """

    line: str
    block: str

    def __new__(cls, line: str, block: str | None = None) -> AnswerText:
        obj = super().__new__(cls, clean_answer(line))
        obj.line = line
        obj.block = line if block is None else block
        return obj

    def __getnewargs__(self) -> tuple[str, str]:  # copy / pickle keep the raw line and block
        return (self.line, self.block)


def _skip_decoration(line: str, i: int) -> int:
    """Index after the symbols (markup, quotes, emoji) and a list number starting at ``i``."""
    i = _DECORATION.match(line, i).end()
    number = _LIST_NUMBER.match(line, i, min(len(line), i + 4))
    if number:
        i = _DECORATION.match(line, number.end()).end()
    return i


def _marker_end(line: str, start: int, *, heading: bool = True) -> int | None:
    """End of an answer marker beginning at ``start`` (after decoration), or None.

    A marker counts with a separator (":", "="), in the "answer is" form, or (with
    ``heading``) as a heading alone on its line.
    """
    i = _skip_decoration(line, start)
    m = _MARKER.match(line, i, min(len(line), i + _WINDOW))
    if m is None:
        return None
    if m.group("sep") or m.group("is"):
        return m.end()
    if heading and len(line) - m.end() <= _WINDOW and not line[m.end():].strip(" \t*_#`"):
        return len(line)
    return None


def _drop_repeated_markers(line: str, j: int) -> int:
    """Skip markers repeated at the start of the answer text ("Answer: Answer: blue"); a
    text of more than a few markers in a row is left as it is (it reads as no answer)."""
    for _ in range(_MAX_REPEATS):
        k = j
        while k < len(line) and line[k] in " \t*_":
            k += 1
        end = _marker_end(line, k, heading=False)
        if end is None or end <= k:
            return j
        j = end
    return j


def _is_blank(line: str) -> bool:
    return not line.strip(" \t*_#`>")


def find_answer(reply: str) -> AnswerText | None:
    """The answer of a reply under the rule of this module, or None without a marker.

    >>> a = find_answer("The ink is blue.\\nA common wrong answer is: red\\n**Answer:** Blue (the ink)")
    >>> str(a), a.line
    ('blue', 'Blue (the ink)')
    >>> find_answer("So the answer is 3. Hope this helps!").line
    '3. Hope this helps!'
    >>> find_answer("Answer:\\n1. disc 1 from A to C\\n2. disc 2 from A to B\\n\\nDone.").block
    '1. disc 1 from A to C\\n2. disc 2 from A to B'
    >>> find_answer("I think the answer is: no") is None
    True
    """
    if not isinstance(reply, str) or not reply:
        return None
    text = _nfkc(reply)
    if _ANSWER_WORD.search(text) is None:
        return None
    lines = text.splitlines()
    best: tuple[int, int] | None = None
    for n in range(len(lines) - 1, -1, -1):  # the last marker wins: from the last line up
        line = lines[n]
        words = [m.start() for m in _ANSWER_WORD.finditer(line)]
        if not words:
            continue
        # Candidate starts (the line's, then each sentence's) that have the word "answer"
        # close enough after them to begin a marker; both lists increase: one pass.
        w = 0
        for start in _candidate_starts(line):
            while w < len(words) and words[w] < start:
                w += 1
            if w == len(words):
                break
            if words[w] - start <= _MAX_LEAD:
                end = _marker_end(line, start)
                if end is not None:
                    best = (n, end)
        if best is not None:
            break
    if best is None:
        return None
    n, j = best
    line = lines[n]
    j = _drop_repeated_markers(line, j)
    rest = _CLOSING_MARKUP.sub("", line[j:].strip()).strip()  # "**Answer:** x": the bold's end
    if _is_blank(rest):
        k = n + 1
        while k < len(lines) and _is_blank(lines[k]):
            k += 1
        if k == len(lines):
            return AnswerText("")
        first = lines[k].strip()
        block = [first]
        if _LIST_ITEM.match(first):
            block += _list_continuation(lines, k + 1)
        else:
            size = len(first)
            k += 1
            while k < len(lines) and not _is_blank(lines[k]) and size <= MAX_ANSWER_CHARS:
                block.append(lines[k].strip())
                size += len(block[-1]) + 1
                k += 1
        return _bounded(first, block)
    block = [rest]
    if _LIST_ITEM.match(rest):
        block += _list_continuation(lines, n + 1)
    return _bounded(rest, block)


def _bounded(line: str, block: list[str]) -> AnswerText:
    """The answer of a line and its block; an over-long one is no answer (empty)."""
    text = "\n".join(block)
    return AnswerText(line, text) if len(text) <= MAX_ANSWER_CHARS else AnswerText("")


def _candidate_starts(line: str) -> Iterable[int]:
    yield 0
    for m in _SENTENCE_BREAK.finditer(line):
        yield m.end()


def _list_continuation(lines: Sequence[str], k: int) -> list[str]:
    """The list items from line ``k`` on (blank lines between items are skipped)."""
    items: list[str] = []
    size = 0
    while k < len(lines) and size <= MAX_ANSWER_CHARS:
        if _is_blank(lines[k]):
            k += 1
            continue
        if not _LIST_ITEM.match(lines[k]):
            break
        items.append(lines[k].strip())
        size += len(items[-1]) + 1
        k += 1
    return items


def as_answer(text: str) -> AnswerText:
    """An :class:`AnswerText` from an answer's text (e.g. what the ``answer_line`` filter
    kept): its first line is the line, the whole text the block."""
    if isinstance(text, AnswerText):
        return text
    text = _nfkc(text) if isinstance(text, str) else ""
    block = text.strip()
    if len(block) > MAX_ANSWER_CHARS:
        return AnswerText("")
    return AnswerText(block.split("\n", 1)[0].strip(), block)


def list_items(block: str) -> list[str]:
    """The items of a block, one per line, without bullets or list numbers ("1. x" -> "x")."""
    items = []
    for raw in block.splitlines() if isinstance(block, str) else ():
        item = raw.strip()
        number = _LIST_NUMBER.match(item)
        if number and item[number.end():number.end() + 1].isspace():
            item = item[number.end():].strip()
        else:
            bullet = _BULLET.match(item)
            item = item[bullet.end():] if bullet else item
        if item:
            items.append(item)
    return items


# --------------------------------------------------------------------------- #
# Cleaning
# --------------------------------------------------------------------------- #


def _drop_trailing_brackets(text: str) -> tuple[str, list[str]]:
    """(text without its trailing parentheticals, their contents)."""
    dropped: list[str] = []
    for _ in range(3):  # "x (a) (b)": a few groups, never one scan of the text per group
        text = text.rstrip(" \t.,;:!*_")
        if not text or text[-1] not in ")]":
            return text, dropped
        close = text[-1]
        opener = "(" if close == ")" else "["
        depth = 0
        k = len(text) - 1
        while k >= 0:
            c = text[k]
            if c == close:
                depth += 1
            elif c == opener:
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        head = text[:k] if k > 0 else ""
        if k <= 0 or not head.strip(" \t*_\"'`"):
            return text, dropped  # no opener, or nothing before it: "(b)" is the answer itself
        dropped.append(text[k + 1:-1])
        text = head
    return text, dropped


def _split(text: str) -> tuple[str, list[str]]:
    """(head, dropped parentheticals): the answer as written, without what explains it."""
    if not isinstance(text, str):
        return "", []
    text = " ".join(_nfkc(text).split())
    j = _drop_repeated_markers(text, 0) if _marker_end(text, 0, heading=False) is not None else 0
    text = text[j:].strip()
    cut = len(text)
    for pattern in (_NEXT_SENTENCE, _REASON):
        m = pattern.search(text)
        if m and m.start() < cut and text[:m.start()].strip(" \t*_\"'`"):
            cut = m.start()
    text = text[:cut]
    head, dropped = _drop_trailing_brackets(text)
    head = _strip_symbols(head)
    bullet = _BULLET.match(head)
    if bullet:
        head = head[bullet.end():]
    return head, dropped


def _is_symbol(c: str) -> bool:
    return c.isspace() or c in "\ufe0e\ufe0f" or unicodedata.category(c) in _SYMBOL_CATEGORIES


def _strip_symbols(text: str) -> str:
    """``text`` without emoji, symbols and stray code points (lone surrogates) at its ends."""
    i, j = 0, len(text)
    while i < j and _is_symbol(text[i]):
        i += 1
    while j > i and _is_symbol(text[j - 1]):
        j -= 1
    return text[i:j]


def answer_head(text: str) -> str:
    """The part of an answer line that states the answer, as written: without a repeated
    marker, a trailing parenthetical, a "because"/comma clause or a further sentence."""
    return _split(text)[0]


def clean_answer(text: str) -> str:
    """The comparable form of an answer line (rule 5): its head (:func:`answer_head`),
    normalized (:func:`normalize`), without a leading article.

    >>> clean_answer("**A camera** (because it records)")
    'camera'
    >>> clean_answer("No, the last letter differs.")
    'no'
    >>> clean_answer("3. The tower needs three moves.")
    '3'
    """
    text = normalize(answer_head(text))
    m = _ARTICLE.match(text)
    return text[m.end():] if m else text


# --------------------------------------------------------------------------- #
# Doubt
# --------------------------------------------------------------------------- #


def _masked(text: str, choices: Iterable[str]) -> str:
    """Normalized ``text`` with the words of each choice (longest first) blanked out."""
    text = normalize(text)
    keys = sorted({normalize(c) for c in choices if isinstance(c, str)} - {""}, key=len, reverse=True)
    for key in keys:
        text = re.sub(rf"(?<![^\W_]){re.escape(key)}(?![^\W_])", " \x00 ", text)
    return text


def hedged(text: str, choices: Sequence[str] = ()) -> bool:
    """Does an answer line hedge, offer alternatives or correct itself (rule 6)?

    A "?" or a hedge word ("maybe", "probably", "I think", "not sure", ...) anywhere in
    the line but a "because" clause or further sentence; "or", "either", "wait",
    "actually" in its head. Words inside a choice's text do not count.

    >>> hedged("yes?"), hedged("Blue (I think)"), hedged("yes or no"), hedged("2, no wait, 3")
    (True, True, True, True)
    >>> hedged("blue, because the word is probably a lure"), hedged("orange")
    (False, False)
    """
    head, dropped = _split(text)
    if "?" in head or any("?" in d for d in dropped):
        return True
    said = _masked(head, choices)
    if _ALTERNATIVE_WORDS.search(said) or _HEDGE_WORDS.search(said):
        return True
    return any(_HEDGE_WORDS.search(_masked(d, choices)) for d in dropped)


def negated(text: str, choices: Sequence[str] = ()) -> bool:
    """Does an answer negate what it names (rule 6): "not 2", "anything but yes", "never"?

    Only the head counts ("3 (not 4)" is 3); words inside a choice's text do not.

    >>> negated("not 2"), negated("Anything but yes"), negated("3 (not 4)"), negated("Not Available", ["Not Available"])
    (True, True, False, False)
    """
    return bool(_NEGATION.search(_masked(answer_head(text), choices)))


def doubtful(text: str, choices: Sequence[str] = ()) -> bool:
    """:func:`hedged` or :func:`negated`: such an answer is invalid, never a choice."""
    return hedged(text, choices) or negated(text, choices)


def negated_at(text: str, position: int) -> bool:
    """Is the mention at ``position`` of ``text`` negated within its clause?

    The (at most three) words before it, back to the clause's start, hold a negator:
    "I would not pick left", "anything but card 2", "isn't 3". Bounded look-back.

    >>> negated_at("I will not pick left", 16), negated_at("Left was bad, so left", 17)
    (True, False)
    """
    if not isinstance(text, str) or position <= 0:
        return False
    window = text[max(0, position - 40):position]
    cut = max(window.rfind(c) for c in _CLAUSE_END)
    words = [w.casefold() for w in _WORD.findall(window[cut + 1:])][-3:]
    if any(w in _NEGATOR_WORDS or w.endswith(("n't", "n\u2019t")) for w in words):
        return True
    return any(pair in _NEGATOR_PAIRS for pair in zip(words, words[1:]))


# --------------------------------------------------------------------------- #
# Numbers
# --------------------------------------------------------------------------- #


def parse_int(text: str, max_digits: int = MAX_DIGITS, units: Iterable[str] = ()) -> int | None:
    """The whole number an answer states, or None (rule 7).

    Digits (at most ``max_digits``; a longer run is no number, never a huge one) or a
    number word ("seven", "twenty-one"), optionally followed by one of ``units``
    ("3 moves"). Signs, decimals and anything else are no number.

    >>> parse_int("**Two**"), parse_int("3 moves", units=("move", "moves")), parse_int("9" * 5000)
    (2, 3, None)
    """
    text = normalize(text)
    for unit in sorted(units, key=len, reverse=True):
        if text.endswith(" " + unit):
            text = text[: -len(unit) - 1].rstrip()
            break
    if not text:
        return None
    if text.isascii() and text.isdigit():
        return int(text) if len(text) <= max_digits else None
    if text in _NUMBER_WORDS:
        return _NUMBER_WORDS[text]
    if text in _TENS:
        return _TENS[text]
    for sep in ("-", " "):
        tens, _, unit = text.partition(sep)
        if tens in _TENS and unit in _NUMBER_WORDS and 0 < _NUMBER_WORDS[unit] < 10:
            return _TENS[tens] + _NUMBER_WORDS[unit]
    return None
