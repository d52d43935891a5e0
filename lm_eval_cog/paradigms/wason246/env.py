"""Wason's 2-4-6 rule discovery as a text environment: params, reply reading, messages, env.

Pure Python + numpy. See ``README.md`` in this folder for the protocol and every choice
that differs from Wason (1960) and CogProbe (Cui et al., 2025).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lm_eval_cog.paradigms.base import (
    Env,
    ParsePath,
    Strategy,
    coerce_strategy,
    require_int,
)
from lm_eval_cog.paradigms.wason246 import hypotheses as hyp
from lm_eval_cog.paradigms.wason246.rules import MAX_CHARS, Rule, RuleError, parse_rule
from lm_eval_cog.paradigms.wason246.scoring import RuleScore, score_rule

# --------------------------------------------------------------------------- #
# Params
# --------------------------------------------------------------------------- #

#: Rule sets (``Wason246Params.rule_set``).
COGPROBE6 = "cogprobe6"
WASON1960 = "wason1960"
RULE_SETS: tuple[str, ...] = (COGPROBE6, WASON1960)
#: Wason's (1960) initial triple, and his rule ("three numbers in increasing order").
WASON_TRIPLE: hyp.Triple = (2, 4, 6)
WASON_RULE = "inc"


def wason_triple(scale: int) -> hyp.Triple:
    """Wason's triple times ``scale``: (2, 4, 6), (4, 8, 12), ... (each fits +2k, even, and z = x + y)."""
    x, y, z = WASON_TRIPLE
    return scale * x, scale * y, scale * z


def _require_values(name: str, values: Any, low: int, high: int) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise ValueError(f"wason246 parameter {name!r} must be a non-empty list of ints, got {values!r}")
    out = tuple(require_int("wason246", name, v, low) for v in values)
    if any(v > high for v in out) or len(set(out)) != len(out):
        raise ValueError(f"wason246 parameter {name!r} must hold distinct ints from {low} to {high}, got {values!r}")
    return out


@dataclass(frozen=True)
class Wason246Params:
    """Parameters of one 2-4-6 protocol (defaults: CogProbe's 20 queries, six families).

    Attributes:
        strategy: Prompting strategy (``direct``/``free``/``cot``); a string is coerced.
        rule_set: ``"cogprobe6"`` (a hidden rule of the six families, random parameters, a drawn
            initial triple) or ``"wason1960"`` (hidden ``x < y < z``, initial triple 2, 4, 6).
        max_queries: Triples the model may test (CogProbe: 20).
        max_invalid: Unreadable replies tolerated on top: the episode is cut after
            ``max_queries + max_invalid + 1`` replies.
        grid: Grid ``[-grid, grid]^3`` of the agreement metric and the reference agents; initial
            triples are drawn inside it.
        query_bound: The domain B: a queried value must lie in ``[-B, B]``, and a rule is correct
            iff it gives the hidden rule's answer on every triple of ``[-B, B]^3`` (the
            instructions say so).
        max_step: ``inc_by_k`` draws k from 1..max_step.
        divisors: ``div_inc`` draws d from these (2 is the separate ``even_inc`` family).
        ratios: ``ratio`` draws r from these.
        wason_scales: ``wason1960`` shows (2, 4, 6) times a scale drawn from these; ``[1]`` gives
            Wason's 2, 4, 6 in every episode (identical episodes: the default varies them).
    """

    strategy: Strategy = Strategy.COT
    rule_set: str = COGPROBE6
    max_queries: int = 20
    max_invalid: int = 10
    grid: int = 30
    query_bound: int = 1000
    max_step: int = 10
    divisors: tuple[int, ...] = (3, 4, 5)
    ratios: tuple[int, ...] = (2, 3)
    wason_scales: tuple[int, ...] = (1, 2, 3, 4, 5)

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy", coerce_strategy(self.strategy))
        if self.rule_set not in RULE_SETS:
            raise ValueError(f"wason246 parameter 'rule_set' must be one of {', '.join(RULE_SETS)}, got {self.rule_set!r}")
        for name, low, high in (("max_queries", 1, 100), ("max_invalid", 0, 100), ("grid", 6, 40)):
            value = require_int("wason246", name, getattr(self, name), low)
            if value > high:
                raise ValueError(f"wason246 parameter {name!r} must be at most {high}, got {value}")
            object.__setattr__(self, name, value)
        bound = require_int("wason246", "query_bound", self.query_bound, self.grid)
        if bound > 10**6:
            raise ValueError(f"wason246 parameter 'query_bound' must be at most 1000000, got {bound}")
        object.__setattr__(self, "query_bound", bound)
        step = require_int("wason246", "max_step", self.max_step, 1)
        if 2 * step >= self.grid:
            raise ValueError(f"wason246 parameter 'max_step' must be below grid / 2 = {self.grid / 2}, got {step}")
        object.__setattr__(self, "max_step", step)
        # Three different multiples (or powers) must fit in the grid, with room to choose.
        object.__setattr__(self, "divisors", _require_values("divisors", self.divisors, 3, self.grid // 3))
        object.__setattr__(self, "ratios", _require_values("ratios", self.ratios, 2, int(self.grid**0.5)))
        object.__setattr__(self, "wason_scales", _require_values("wason_scales", self.wason_scales, 1, self.grid // 6))

    @property
    def play_turns(self) -> int:
        """Replies of the querying play: every query, the rule, the invalid allowance."""
        return self.max_queries + self.max_invalid + 1

    @property
    def max_turns(self) -> int:
        """Turn cap (:class:`~lm_eval_cog.paradigms.base.Env`): the play's replies (a variant with
        a turn after the rule, such as ``wason246_reflect``, adds it here)."""
        return self.play_turns

    @property
    def hypotheses(self) -> tuple[str, ...]:
        """The hypothesis space: the six families with these parameter values."""
        return hyp.space(self.max_step, self.divisors, self.ratios)


PRESETS: Mapping[str, Wason246Params] = {
    "cogprobe6": Wason246Params(),
    "wason1960": Wason246Params(rule_set=WASON1960),
}


def draw_episode(params: Wason246Params, rng: np.random.Generator) -> tuple[str, hyp.Triple]:
    """(hidden rule spec, initial triple): a family uniformly, its parameter uniformly, then a
    uniform admissible initial triple (:func:`~lm_eval_cog.paradigms.wason246.hypotheses.accepted`)."""
    if params.rule_set == WASON1960:
        return WASON_RULE, wason_triple(params.wason_scales[int(rng.integers(len(params.wason_scales)))])
    specs = params.hypotheses
    family = hyp.FAMILIES[int(rng.integers(len(hyp.FAMILIES)))]
    members = [s for s in specs if hyp.split(s)[0] == family]
    spec = members[int(rng.integers(len(members)))]
    choices = hyp.accepted(spec, specs, params.grid)
    if not len(choices):
        raise ValueError(f"wason246: no admissible initial triple for {spec!r} in grid {params.grid}: enlarge 'grid'")
    return spec, hyp.grid_triple(int(choices[int(rng.integers(len(choices)))]), params.grid)


# --------------------------------------------------------------------------- #
# Reply reading
# --------------------------------------------------------------------------- #

QUERY, RULE = "query", "rule"
YES, NO = "yes", "no"

#: Invalid codes (the ``invalid`` field) and their fixed correction messages (see ``invalid_feedback``).
NO_MOVE = "no_move"
BAD_QUERY = "bad_query"
NO_EXPECTATION = "no_expectation"
QUERY_RANGE = "query_range"
BAD_RULE = "bad_rule"
MUST_STATE_RULE = "must_state_rule"
#: A readable rule whose equivalence with the hidden rule the solver could not decide in time.
UNDECIDED_RULE = "undecided_rule"
INVALID_CODES = (NO_MOVE, BAD_QUERY, NO_EXPECTATION, QUERY_RANGE, BAD_RULE, MUST_STATE_RULE, UNDECIDED_RULE)


@dataclass(frozen=True)
class Move:
    """A readable reply: a query (triple and expectation) or a rule."""

    kind: str
    triple: hyp.Triple | None = None
    expect: str | None = None
    rule: Rule | None = None

    @property
    def text(self) -> str:
        """The move as one canonical line (the ``choice`` field of the log)."""
        if self.kind == QUERY:
            assert self.triple is not None
            return f"QUERY: {', '.join(map(str, self.triple))} (expect {self.expect})"
        assert self.rule is not None
        return f"RULE: {self.rule.canonical}"


@dataclass(frozen=True)
class BadMove:
    """An unreadable reply: its code and the reason shown to the model."""

    code: str
    detail: str = ""


# A marker is QUERY:/RULE: in capitals anywhere, or in any case at the start of a line (after
# blanks, quote marks, list dashes or Markdown). Linear patterns: every run is bounded, since
# two adjacent unbounded runs that can both match "*" backtrack quadratically ("RULE" and
# 100,000 "*" took 44 s); a real marker carries a few marks at most.
_MARKER_CAPS = re.compile(r"\b(QUERY|RULE)[*_]{0,4}[ \t]{0,4}[*_]{0,4}:")
_MARKER_LINE = re.compile(r"^[ \t>#*_`\-]{0,16}(query|rule)[*_]{0,4}[ \t]{0,4}[*_]{0,4}:",
                          re.IGNORECASE | re.MULTILINE)
_LINE_END = re.compile(r"[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# Three integers (at most 12 digits each: a longer one is no query), optional brackets, then the rest.
_TRIPLE = re.compile(r"[(\[]?[ \t]*([+-]?\d{1,12})[ \t]*,[ \t]*([+-]?\d{1,12})[ \t]*,[ \t]*([+-]?\d{1,12})[ \t]*[)\]]?")
_EXPECT = re.compile(r"[(\[,;]?[ \t]*expect(?:ing|ed|ation)?[ \t]*[:=]?[ \t]*[\"']?(yes|no)[\"']?[ \t]*[)\]]?[ \t]*[.!]?",
                     re.IGNORECASE)  # fmt: skip
# Wrapping a model may put around its rule: blanks, Markdown code/bold, quotes, a final full stop.
_WRAP = " \t`*_\"'"
# Invisible format characters (zero-width space/joiners, soft hyphen, BOM) that NFKC keeps and
# a rule copied from rendered text may carry: they mean nothing, so they are dropped.
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")
#: How many non-blank lines after a bare marker are looked at for its move (a fence, then the move).
_LOOKAHEAD_LINES = 2


def normalize(reply: str) -> str:
    """NFKC (full-width "ＱＵＥＲＹ：" -> "QUERY:"), the minus sign U+2212 as "-", and no
    invisible format characters ("x < y < z" + U+200B is "x < y < z")."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", reply).replace("\u2212", "-"))


def last_move_text(reply: str) -> tuple[str, str] | None:
    """(``"query"``/``"rule"``, the text after the reply's last marker to the end of its line), or None."""
    best: re.Match[str] | None = None
    for pattern in (_MARKER_CAPS, _MARKER_LINE):
        for match in pattern.finditer(reply):
            if best is None or match.start() > best.start():
                best = match
    if best is None:
        return None
    text, after = _line_from(reply, best.end())
    if not text.strip(_WRAP):
        text = _move_below(reply, after)  # "RULE:" alone on its line: the move is below it
    return best.group(1).lower(), text


def _line_from(reply: str, start: int) -> tuple[str, int]:
    """The text from ``start`` to the end of its line, and where the next line begins."""
    end = _LINE_END.search(reply, start)
    return (reply[start : end.start()], end.end()) if end else (reply[start:], len(reply))


def _move_below(reply: str, start: int) -> str:
    """The first non-blank line from ``start`` that is not a code fence (```` ``` ````,
    ```` ```python ````), looking at most :data:`_LOOKAHEAD_LINES` non-blank lines; else "".

    Models write the move on the line under a bare marker, or in a fenced block."""
    seen = 0
    while start < len(reply) and seen < _LOOKAHEAD_LINES:
        line, start = _line_from(reply, start)
        if not line.strip():
            continue
        seen += 1
        if not line.strip().startswith("```"):
            return line
    return ""


def read_query(text: str, query_bound: int) -> Move | BadMove:
    """``a, b, c (expect yes)``: the triple and the expectation, or why not."""
    body = text.strip(_WRAP)
    triple = _TRIPLE.match(body)
    if triple is None:
        return BadMove(BAD_QUERY, "no three integers separated by commas")
    values = tuple(int(v) for v in triple.groups())
    rest = body[triple.end() :].strip(_WRAP)
    if not rest:
        return BadMove(NO_EXPECTATION, "the query states no expectation")
    expect = _EXPECT.fullmatch(rest)
    if expect is None:
        return BadMove(NO_EXPECTATION if "expect" not in rest.lower() else BAD_QUERY, f"unexpected text after the triple: {rest[:40]!r}")
    if any(abs(v) > query_bound for v in values):
        return BadMove(QUERY_RANGE, f"a value is outside -{query_bound}..{query_bound}")
    return Move(QUERY, triple=(values[0], values[1], values[2]), expect=expect.group(1).lower())


def read_rule_text(text: str, variable_bound: int) -> Move | BadMove:
    """``<expression>``: the checked rule, or why not (the parser's reason)."""
    body = text.strip(_WRAP).rstrip(".").strip(_WRAP)
    try:
        return Move(RULE, rule=parse_rule(body, variable_bound))
    except RuleError as error:
        reason, bare = error.reason, _without_comment(body)
        if bare is None:
            return BadMove(BAD_RULE, reason)
    # "x < y < z (strictly increasing)": the rule with a comment after it. The rule alone is
    # read (by the same checked parser); an expression ending in ")" that parses is never cut.
    try:
        return Move(RULE, rule=parse_rule(bare, variable_bound))
    except RuleError:
        return BadMove(BAD_RULE, reason)


def _without_comment(body: str) -> str | None:
    """``body`` without a final parenthetical set off by a blank ("... (a comment)"), or None."""
    if not body.endswith(")"):
        return None
    depth = 0
    for k in range(len(body) - 1, -1, -1):  # backwards to the "(" that the final ")" closes
        depth += {")": 1, "(": -1}.get(body[k], 0)
        if depth == 0:
            rest = body[:k]
            return rest.strip(_WRAP).rstrip(".,;:").strip(_WRAP) if rest[-1:].isspace() and rest.strip() else None
    return None


def read_move(reply: str, query_bound: int) -> Move | BadMove:
    """The move of a raw reply: its last ``QUERY:``/``RULE:`` line decides (any strategy).

    >>> read_move("I think it is increasing.\\nQUERY: 1, 2, 30 (expect yes)", 1000).text
    'QUERY: 1, 2, 30 (expect yes)'
    >>> read_move("RULE: lambda x, y, z: x < y < z", 1000).text
    'RULE: x < y < z'
    >>> read_move("1, 2, 3", 1000).code
    'no_move'
    """
    if not isinstance(reply, str) or not reply.strip():
        return BadMove(NO_MOVE, "empty reply")
    found = last_move_text(normalize(reply))
    if found is None:
        return BadMove(NO_MOVE, "no QUERY or RULE line")
    kind, text = found
    if len(text) > 2 * MAX_CHARS:
        text = text[: 2 * MAX_CHARS]  # longer than any readable move: the readers reject it quickly
    return read_query(text, query_bound) if kind == QUERY else read_rule_text(text, query_bound)


# --------------------------------------------------------------------------- #
# Messages
# --------------------------------------------------------------------------- #

#: The reply format, one line (as the instructions ask for it).
FORMAT = "QUERY: a, b, c (expect yes) / QUERY: a, b, c (expect no) / RULE: <expression>"
STRATEGY_LINES: Mapping[Strategy, str] = {
    Strategy.DIRECT: "Respond only with that line, without any other information or analysis.",
    Strategy.FREE: "End your reply with that line.",
    Strategy.COT: "Let's think step by step. Then end your reply with that line.",
}
CLOSING = "Your rule has been recorded. The task is over."
CUT = "The task is over: too many replies could not be read, and no rule was stated."


def triple_text(t: Sequence[int]) -> str:
    return ", ".join(str(int(v)) for v in t)


def system_prompt(params: Wason246Params) -> str:
    """The instructions: the task (after Wason, 1960), the exact reply format and the rule grammar."""
    b, n = params.query_bound, params.max_queries
    lines = [
        (
            "I have a secret rule that some triples of integers (x, y, z) follow and others do not. "
            "Your task is to find the rule."
        ),
        (
            f"I will show you one triple that follows the rule. Then you may test up to {n} triples of your "
            'choice: for each, I will answer "Yes" if it follows the rule and "No" if it does not.'
        ),
        "To test a triple, reply with a line",
        "QUERY: a, b, c (expect yes)",
        "or",
        "QUERY: a, b, c (expect no)",
        (
            f'where a, b and c are integers from -{b} to {b}, and "expect yes" or "expect no" says which '
            "answer you expect."
        ),
        "When you know the rule, reply with a line",
        "RULE: <expression>",
        (
            "where <expression> is a Python condition on x, y and z, for example RULE: x + y > z and z % 2 == 1. "
            "You may use whole numbers, x, y and z, + - * // % (integer division and remainder), ** with a "
            "whole-number exponent from 0 to 8, abs(...), the comparisons < <= > >= == != (chains such as "
            'x < y < z too), and, or, not, and parentheses; "lambda x, y, z:" in front is accepted. A division '
            "or remainder by zero makes the condition false for that triple."
        ),
        (
            "Your rule counts as correct only if it gives the same answer as my rule for every triple of "
            f"integers from -{b} to {b}. Stating a rule ends the task: you cannot test triples after it. If you "
            "use up your tests, I will ask you for your rule."
        ),
        f"Each reply must contain one QUERY line or one RULE line. {STRATEGY_LINES[params.strategy]}",
    ]
    return "\n".join(lines)


def left_text(queries_left: int, last_turn: bool = False) -> str:
    """How many queries remain, or the demand for the rule (none left, or the turn cap is next)."""
    if queries_left == 0:
        return "You have no queries left: state your rule now, with a line RULE: <expression>."
    if last_turn:
        return "This is your last reply: state your rule now, with a line RULE: <expression>."
    return f"{queries_left} {'query' if queries_left == 1 else 'queries'} left."


def opening_message(initial: Sequence[int], queries_left: int) -> str:
    return f"The triple {triple_text(initial)} follows the rule.\n{left_text(queries_left)}"


def answer_message(triple: Sequence[int], follows: bool) -> str:
    """``Yes: 1, 2, 3 follows the rule.`` / ``No: 1, 2, 3 does not follow the rule.``"""
    return f"Yes: {triple_text(triple)} follows the rule." if follows else f"No: {triple_text(triple)} does not follow the rule."


def invalid_feedback(code: str, detail: str, params: Wason246Params) -> str:
    """The correction message of an unreadable reply (fixed per code; a rule's reason is the parser's)."""
    b = params.query_bound
    query_form = f"QUERY: a, b, c (expect yes) or QUERY: a, b, c (expect no), with integers from -{b} to {b}"
    return {
        NO_MOVE: f"Your reply has no QUERY or RULE line. Reply with one line: {query_form}, or RULE: <expression>.",
        BAD_QUERY: f"Your QUERY line could not be read. Write it as {query_form}.",
        NO_EXPECTATION: f"Your QUERY line must say which answer you expect: {query_form}.",
        QUERY_RANGE: f"Your query is out of range: {query_form}.",
        BAD_RULE: f"Your rule could not be read: {detail}. Write it as RULE: <expression>, a Python condition on x, y and z.",
        MUST_STATE_RULE: "You cannot test more triples: state your rule now, with a line RULE: <expression>.",
        UNDECIDED_RULE: f"Your rule could not be checked: it {detail}. Write it more simply, as RULE: <expression>.",
    }[code]


# --------------------------------------------------------------------------- #
# Environment
# --------------------------------------------------------------------------- #


class Wason246Env(Env):
    """Wason's (1960) 2-4-6 rule discovery, with CogProbe's query protocol (Cui et al., 2025).

    Description:
        A hidden rule over integer triples and one triple that follows it are drawn at reset.
        The model tests triples (``QUERY: a, b, c (expect yes|no)``), hearing "Yes"/"No" and how
        many queries remain, and ends the episode by stating the rule (``RULE: <expression>``).
        After ``max_queries`` queries, or on its last allowed turn, it is asked for its rule.

    Reply format:
        One ``QUERY:`` or ``RULE:`` line (the last one in the reply decides); the expected answer
        is part of every query (Klayman & Ha's positive test is a query expected to get "Yes").
        Unreadable replies (no line, a malformed query, an unreadable rule, a query when the rule
        is due, a rule the solver cannot decide in time) are ``invalid`` turns: a fixed correction
        message, no query used, the turn counted.

    Verdict:
        A readable rule is judged when stated (:func:`~lm_eval_cog.paradigms.wason246.scoring.score_rule`,
        exact on ``[-query_bound, query_bound]^3``); its record keeps ``correct`` and, for a wrong
        rule, the ``counterexample`` (triple, the stated and the hidden rule's answers) for
        transcripts. Nothing of it is shown to the model; the metrics recompute it from the log.

    Episode end:
        ``terminated`` by a readable rule (:data:`CLOSING`); ``truncated`` after ``play_turns``
        replies without one (:data:`CUT`; scored wrong).

    Extending (a metacognition turn): a readable rule ends play in :meth:`_finish`, which receives its
    log record and returns (closing message, terminated). A subclass may return ``False`` there and
    handle one more turn; ``self.final_rule`` holds the recorded rule.

    References:
        Wason (1960), *On the failure to eliminate hypotheses in a conceptual task*; Klayman & Ha
        (1987), *Confirmation, disconfirmation, and information in hypothesis testing*; Cui et
        al. (2025), CogProbe (their six rule families, 20 queries, ``QUERY``/``RULE`` lines).

    Version history:
        v1: first version.
        v2: exact scoring on the domain [-query_bound, query_bound]^3 (z3), stated in the
            instructions; counterexamples in the log; ``undecided_rule`` invalid replies.

    Example:
        >>> env = Wason246Env(Wason246Params(rule_set="wason1960", wason_scales=(1,)))
        >>> message, info = env.reset(seed=0)
        >>> message
        'The triple 2, 4, 6 follows the rule.\\n20 queries left.'
        >>> env.step("QUERY: 1, 2, 3 (expect no)")[0]
        'Yes: 1, 2, 3 follows the rule.\\n19 queries left.'
        >>> message, terminated, truncated, info = env.step("RULE: x < y < z")
        >>> terminated, env.log[-1]["choice"], env.log[-1]["correct"]
        (True, 'RULE: x < y < z', True)
    """

    name = "wason246"
    pinned_turns = 1  # the first message holds the example triple the rule is about

    def _reset(self, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        p: Wason246Params = self.params
        rng = self.rng
        if rng is None:  # pragma: no cover - Env.reset sets it before calling _reset
            raise RuntimeError("Wason246Env._reset() called outside reset()")
        self._hidden, self._initial = draw_episode(p, rng)
        self._queries_left = p.max_queries
        self.final_rule: Rule | None = None
        self.system_prompt = system_prompt(p)
        return opening_message(self._initial, self._queries_left), self._info(None)

    def _rule_due(self, turn: int) -> bool:
        """A query is refused at ``turn``: none left, or the last turn the cap allows."""
        return self._queries_left == 0 or turn >= self.params.play_turns

    def _info(self, record: Mapping[str, Any] | None) -> dict[str, Any]:
        """What agents see: the initial triple, the last move and its answer, never the hidden rule."""
        return {
            "choices": [],
            "initial": list(self._initial),
            "queries_left": self._queries_left,
            "rule_due": self._rule_due(self.turns + 1),
            "last_triple": None if record is None else record["triple"],
            "last_answer": None if record is None else record["answer"],
            "last_invalid": None if record is None else record["invalid"],
        }

    def _step(self, reply: str) -> tuple[str, bool, dict[str, Any]]:
        p: Wason246Params = self.params
        move = read_move(reply, p.query_bound)
        if isinstance(move, Move) and move.kind == QUERY and self._rule_due(self.turns):
            move = BadMove(MUST_STATE_RULE, "no query allowed now")
        verdict = self._judge(move) if isinstance(move, Move) and move.kind == RULE else None
        if verdict is not None and verdict.undecided:
            move = BadMove(UNDECIDED_RULE, verdict.undecided)
        record = self._record(move, verdict)
        self.log.append(record)
        if isinstance(move, BadMove):
            message = invalid_feedback(move.code, move.detail, p)
        elif move.kind == QUERY:
            message = answer_message(record["triple"], record["answer"] == YES)
        else:
            self.final_rule = move.rule
            closing, terminated = self._finish(record)
            return closing, terminated, self._info(record)
        if self.turns >= p.play_turns:
            return f"{message}\n\n{CUT}", False, self._info(record)
        last_turn = self.turns + 1 >= p.play_turns
        return f"{message}\n{left_text(self._queries_left, last_turn)}", False, self._info(record)

    def _judge(self, move: Move) -> RuleScore:
        """The scorer's verdict on a stated rule, given the triples of the episode so far."""
        assert move.rule is not None
        seen = [self._initial, *(r["triple"] for r in self.log if r["kind"] == QUERY)]
        score = score_rule(move.rule.text, self._hidden, seen, self.params.grid, self.params.query_bound)
        assert score is not None  # the rule was read by the same reader
        return score

    def _record(self, move: Move | BadMove, verdict: RuleScore | None = None) -> dict[str, Any]:
        """The log record of one reply (the fields the scorer reads, the hidden rule, and for a
        judged rule the verdict: ``correct`` and the ``counterexample`` record, else None)."""
        valid = isinstance(move, Move)
        answer = None
        if valid and move.kind == QUERY:
            assert move.triple is not None
            self._queries_left -= 1
            answer = YES if hyp.follows(self._hidden, move.triple, self.params.grid) else NO
        return {
            "turn": self.turns,
            "hidden": self._hidden,
            "initial": list(self._initial),
            "kind": move.kind if valid else None,
            "choice": move.text if valid else None,
            "triple": list(move.triple) if valid and move.triple is not None else None,
            "expect": move.expect if valid else None,
            "answer": answer,
            "rule": move.rule.text if valid and move.rule is not None else None,
            "queries_left": self._queries_left,
            "invalid": None if valid else move.code,
            "detail": None if valid else move.detail,
            "parse": ParsePath.ANSWER_LINE.value if valid else ParsePath.INVALID.value,
            "correct": None if verdict is None or not valid else verdict.exact,
            "counterexample": None if verdict is None or verdict.counterexample is None
                              else verdict.counterexample.record(),
        }

    def _finish(self, record: Mapping[str, Any]) -> tuple[str, bool]:
        """Closing of a readable rule: the point where a metacognition turn can be appended."""
        return CLOSING, True

    @property
    def hidden(self) -> str:
        """The hidden rule's spec (for tests and debugging; never shown to agents)."""
        if not self._reset_called:
            raise RuntimeError("Wason246Env.hidden read before reset()")
        return self._hidden

    @property
    def initial(self) -> hyp.Triple:
        if not self._reset_called:
            raise RuntimeError("Wason246Env.initial read before reset()")
        return self._initial
