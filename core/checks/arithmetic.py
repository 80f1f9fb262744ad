"""Find the equalities written in an answer (a = b = c) and work out the numeric sides.

Evaluation is a small recursive-descent parser over + − × ÷ and parentheses (half- or
full-width); `x × 5%` means x * 0.05. Nothing is ever passed to eval. Sides that contain words
(实付学费 ×（剩余课时 ÷ 总课时）) are symbolic: they are recognised and skipped, never guessed at.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from core.language.figures import CITATION_RE, FULL_WIDTH
from core.language.money import round_amount, written_places

TOLERANCE = 0.01
MAX_TOKENS = 200
MAX_DEPTH = 40

_OPERATORS = {"+": "+", "＋": "+", "-": "-", "−": "-", "－": "-", "×": "*", "*": "*", "＊": "*",
              "÷": "/", "/": "/", "／": "/", "(": "(", "（": "(", ")": ")", "）": ")"}
_MULTIPLIERS = {"百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}
_TOKEN_RE = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[ \t]?[百千万亿]{1,2})?(?:[ \t]?%)?)"
    # Units may sit inside a formula (4800 元 × 12 课时 ÷ 16 课时); they are read as blanks, and so
    # is a rate's 「/课时」 in 「300 元/课时」.
    # A level's name before its fee is a label, read as a blank too: 「四级 5600 − 一级 3600」, 「进阶级（二级）学费」:
    # a short run of Chinese ending in 级, whatever the documents call their levels.
    r"|(?P<label>[\u4e00-\u9fff]{1,4}级(?:[（(][〇零一二两三四五六七八九十\d]{1,3}级[）)])?(?:学费)?)"
    r"|(?P<unit>[/／][ \t]*(?:课时|人|节|次|个|天|月|年)|元|块|课时|个|天|分钟|小时|人|次|节)"
    r"|(?P<op>[+＋\-−－×*＊÷/／(（)）])"
    r"|(?P<other>.)", re.S)
# Clause breaks: Chinese punctuation, and an ASCII comma unless it separates thousands.
_CLAUSE_RE = re.compile(r"[，、：；;\n]|,(?!\d{3}(?!\d))")


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "op", "unit", "label", "space" or "other"
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Side:
    """One numeric side of an equality: its text and span, its value and the steps of its calculation."""

    text: str
    span: tuple[int, int]
    value: float
    computed: bool  # True when the side has an operator, i.e. it is a calculation, not a bare number
    steps: tuple[float, ...] = ()


@dataclass(frozen=True)
class Mismatch:
    """Two neighbouring sides of an equality whose values differ by more than TOLERANCE."""

    left: Side
    right: Side


@dataclass(frozen=True)
class Equation:
    """An `a = b = …` chain; `sides` holds None for a symbolic side."""

    sides: tuple[Side | None, ...]

    @property
    def numeric(self) -> tuple[Side, ...]:
        return tuple(s for s in self.sides if s is not None)

    @property
    def has_calculation(self) -> bool:
        return any(s.computed for s in self.numeric)

    def mismatches(self) -> tuple[Mismatch, ...]:
        """Neighbouring numeric sides (symbolic ones skipped) that disagree, when one is a calculation: by more than
        TOLERANCE, or a result written to the cent that is not the calculation rounded half up (170.625 is 170.63,
        never 170.62: core.language.money)."""
        sides = self.numeric
        return tuple(Mismatch(a, b) for a, b in zip(sides, sides[1:])
                     if (a.computed or b.computed) and not agree(a, b))

    def results(self) -> tuple[float, ...]:
        """Values this equation computes: every step of every calculation side (never a stated number)."""
        values: list[float] = []
        for side in self.numeric:
            if side.computed:
                values.extend(side.steps)
                values.append(side.value)
        return tuple(values)

    def stated_results(self) -> tuple[Side, ...]:
        """Bare numbers that state what a calculation gives; the arithmetic check judges them."""
        return tuple(s for s in self.numeric if not s.computed) if self.has_calculation else ()


def agree(a: Side, b: Side) -> bool:
    """Whether a calculation and the figure stated for it agree (see `Equation.mismatches`)."""
    if abs(a.value - b.value) > TOLERANCE:
        return False
    stated = b if a.computed and not b.computed else a if b.computed and not a.computed else None
    if stated is None:
        return True
    computed = a if stated is b else b
    places = written_places(stated.text)
    return places < 2 or round_amount(computed.value) == round_amount(stated.value)


class _NotArithmetic(Exception):
    """Raised inside the parser when a side is not a complete arithmetic expression."""


def tokenize(text: str, offset: int = 0) -> list[Token]:
    return [Token(m.lastgroup or "other", m.group(), offset + m.start(), offset + m.end())
            for m in _TOKEN_RE.finditer(text)]


def _number(text: str) -> float:
    body = text.replace(" ", "").replace("\t", "")
    percent = body.endswith("%")
    body = body.rstrip("%")
    scale = 1.0
    while body and body[-1] in _MULTIPLIERS:
        scale *= _MULTIPLIERS[body[-1]]
        body = body[:-1]
    value = float(body.replace(",", "")) * scale
    return value / 100 if percent else value


class _Parser:
    """expr := term (('+'|'-') term)* ; term := factor (('*'|'/') factor)* ; factor := [+-] factor | num | '(' expr ')'."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self.steps: list[float] = []

    def parse(self) -> float:
        value = self.expr()
        if self.pos != len(self.tokens):
            raise _NotArithmetic
        return value

    def _peek(self) -> str | None:
        if self.pos >= len(self.tokens):
            return None
        token = self.tokens[self.pos]
        return _OPERATORS[token.text] if token.kind == "op" else token.kind

    def _record(self, value: float) -> float:
        if not math.isfinite(value):
            raise _NotArithmetic
        self.steps.append(value)
        return value

    def expr(self) -> float:
        value = self.term()
        while self._peek() in ("+", "-"):
            op = self._peek()
            self.pos += 1
            right = self.term()
            value = self._record(value + right if op == "+" else value - right)
        return value

    def term(self) -> float:
        value = self.factor()
        while self._peek() in ("*", "/"):
            op = self._peek()
            self.pos += 1
            right = self.factor()
            if op == "/" and right == 0:
                raise _NotArithmetic
            value = self._record(value * right if op == "*" else value / right)
        return value

    def factor(self) -> float:
        kind = self._peek()
        self.pos += 1
        if kind in ("+", "-"):
            value = self.factor()
            return value if kind == "+" else -value
        if kind == "num":
            value = _number(self.tokens[self.pos - 1].text)
            if not math.isfinite(value):
                raise _NotArithmetic
            return value
        if kind == "(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise _NotArithmetic
            value = self.expr()
            if self._peek() != ")":
                raise _NotArithmetic
            self.pos += 1
            self.depth -= 1
            return value
        raise _NotArithmetic


def evaluate(tokens: list[Token]) -> tuple[float, tuple[float, ...]] | None:
    """(value, intermediate results) of an arithmetic token list, or None if it is not one."""
    meaningful = [t for t in tokens if t.kind in ("num", "op")]
    if any(t.kind == "other" for t in tokens) or not meaningful or len(meaningful) > MAX_TOKENS:
        return None
    parser = _Parser(meaningful)
    try:
        value = parser.parse()
    except _NotArithmetic:
        return None
    return value, tuple(parser.steps)


def _is_arithmetic(token: Token) -> bool:
    return token.kind != "other"


def _side(tokens: list[Token], text: str, offset: int, position: str) -> Side | None:
    """The numeric reading of one side; `position` is "first", "middle" or "last" in the chain."""
    if position == "middle":
        run = tokens
    elif position == "first":  # the calculation ends at the '=': take the trailing arithmetic run
        cut = max((i for i, t in enumerate(tokens) if not _is_arithmetic(t)), default=-1)
        before, run = tokens[:cut + 1], tokens[cut + 1:]
        if any(t.kind == "op" for t in before):
            return None  # operators mixed with words: a symbolic formula
    else:  # the result starts at the '=': take the leading arithmetic run
        cut = next((i for i, t in enumerate(tokens) if not _is_arithmetic(t)), len(tokens))
        run, after = tokens[:cut], tokens[cut:]
        # 「= 170.63 元（不低于 50 元）」: a bracket opening a remark after the result is not part of it
        while run and (run[-1].kind == "space" or (run[-1].kind == "op" and _OPERATORS[run[-1].text] == "(")):
            after = [run.pop(), *after]
        if any(t.kind == "op" and _OPERATORS[t.text] not in "()" for t in after):
            return None
    core = [t for t in run if t.kind in ("num", "op")]
    if not core or (position == "first" and core[0].kind == "op" and _OPERATORS[core[0].text] != "(") \
            or (position == "last" and core[-1].kind == "op" and _OPERATORS[core[-1].text] != ")"):
        return None
    result = evaluate(run)
    if result is None:
        return None
    value, steps = result
    start, end = core[0].start, core[-1].end
    return Side(text=text[start - offset:end - offset], span=(start, end), value=value,
                computed=any(t.kind == "op" and _OPERATORS[t.text] in "+-*/" for t in core[1:]),
                steps=steps)


def find_equations(text: str, offset: int = 0) -> tuple[Equation, ...]:
    """Every clause of `text` containing '=' read as an equation; spans are shifted by `offset`."""
    scan = CITATION_RE.sub(lambda m: "\0" * len(m.group()), text.translate(FULL_WIDTH))
    equations: list[Equation] = []
    clause_start = 0
    for stop in [m.start() for m in _CLAUSE_RE.finditer(scan)] + [len(scan)]:
        clause = scan[clause_start:stop]
        if "=" in clause:
            pieces = clause.split("=")
            sides: list[Side | None] = []
            piece_start = clause_start
            for index, piece in enumerate(pieces):
                position = "first" if index == 0 else "last" if index == len(pieces) - 1 else "middle"
                tokens = tokenize(piece, offset + piece_start)
                sides.append(_side(tokens, text, offset, position))
                piece_start += len(piece) + 1
            equations.append(Equation(tuple(sides)))
        clause_start = stop + 1
    return tuple(equations)
