"""The answerability term rules, one function each: how a typed question becomes the words the gate checks.

Each function is one rule of `core.answerability.rules.RULES` (registered there, in the order the
analyzer applies them, and switchable by name). Its docstring gives one question it fixes and one
it must not break; tests/answerability/test_term_rules.py holds both. The functions read the analyzer
(`core.answerability.rule_api.Analyzer`) but never change it, and know nothing of retrieval or the decision's
knobs. Word lists come from core/data/ through `core.language.words`; the three typed-message rules
(courtesy, latin_words, homophones) live in `core.answerability.message_rules`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from core.answerability.credit import credit
from core.answerability.rule_api import Analyzer
from core.case.asked import read_asked
from core.case.intent import asks_amount, told, wants_transfer
from core.case.kinds import latin_level_letters
from core.case.words import case_words as _case_word_lists
from core.case.words import said
from core.language.figures import extract_figures
from core.language.lexicon import lexicon
from core.language.text import normalize
from core.language.words import (
    ASKING_MARKERS,
    DATA,
    EXAM_NAMES,
    FRAME_PHRASES,
    MAX_MERGE_TOKENS,
    MIN_ASKING_TERMS,
    NUMERAL_TOPICS,
    RESULTATIVES,
)

if TYPE_CHECKING:
    from core.answerability.glossary import Glossary
    from core.values import Term
    from core.values.case import StudentCase

_A_NOT_A_RE = re.compile(r"([\u4e00-\u9fff])[不没]\1")
_ASKING_RE = re.compile("|".join(sorted(map(re.escape, ASKING_MARKERS), key=len, reverse=True))
                        + r"|([\u4e00-\u9fff])[不没]\1|[?？]|[没不]$")
_CLAUSE_RE = re.compile(r"(?<=[，,。！!？?；;])|\s+")
_POINTS_BACK_RE = re.compile(r"[这那]")
# The case reader's lists that say how a student tells their case (not the one-character verbs 转/换/退/书 …).
_CASE_LISTS = ("before", "after", "never_moved", "first_time", "again", "past_transfer", "list_price", "full_price",
               "discount", "with_joiner", "together", "contains", "not_got", "two_level_move", "sum_asked")
_CASE_PHRASES = tuple(sorted({normalize(w) for name in _CASE_LISTS for w in _case_word_lists()[name] if len(w) >= 2}
                             | {normalize(w) for w in _case_word_lists()["with_joiner"]}, key=len, reverse=True))
# The class's channels and time slots (周末、周三、晚上、线上 …): a student's case only in a question asking a transfer.
_SLOT_PHRASES = tuple(sorted({normalize(w) for w in _case_word_lists()["slot"]}, key=len, reverse=True))
_WEEK_UNITS = tuple(_case_word_lists()["week_unit"])  # 周 星期 礼拜: a case word as the unit of a figure (七个星期)
_LESSON_UNITS = frozenset(_case_word_lists()["lesson_unit"])  # 课时 节课 节 课
_COMPUTATION_INTENTS = ("refund_intent", "difference_intent", "level_move")
_QUESTION_ENDS = ("呢", "？", "?")  # a clause ending so asks, whatever the what-is-asked reader reads in it
_STAGE_LISTS = ("before", "after")  # 「还没开始上」「开课后」: where the course is, told without a figure


# --- the text jieba cuts -------------------------------------------------------------------------

def a_not_a(text: str) -> str:
    """A-not-A questions are folded to the word: 包不包括 → 包括, 退不退 → 退, 有没有 → 有.

    Fixes 「学费里面包不包括书的钱」 (jieba cuts 里/面包/不/包括, inventing 面包).
    Must not break 「不退费的情形有哪些」 (不 between two different characters stays).
    """
    return _A_NOT_A_RE.sub(r"\1", text)


def question_frames() -> frozenset[str]:
    """Multi-word question frames (叫什么名字, 是什么意思, 干什么用) are kept whole and weigh nothing.

    Fixes 「二级叫什么名字」 (about 二级, not 名字, which the documents never need to say).
    Must not break 「想找真人客服怎么弄」: 真人客服 stays (only the frame 怎么弄 weighs nothing).
    """
    return FRAME_PHRASES


def exam_names() -> frozenset[str]:
    """Common exam names (雅思, 托福, 托业 …: core/data/exam_names.txt) are kept whole and weigh as any word.

    Fixes 「雅思考到6.5分要报多久」 (jieba: 雅 / 思考, since 思考 is the commoner word; now 雅思 / 考 / 到).
    Must not break 「三级学费多少」: 三级 stays the school's level (no name ending in 级 is in the list).
    """
    return EXAM_NAMES


# --- tokens --------------------------------------------------------------------------------------

def glossary_phrases(analyzer: Analyzer, tokens: list[str], glossary: Glossary | None,
                     folds: list[tuple[str, str]]) -> list[str]:
    """Runs of tokens that spell a glossary phrase are joined (longest first, left to right).

    Fixes 「小E都能回答些什么」 (jieba: 小/e; the glossary's 小E is one term).
    Must not break 「学生有学生价吗」: the synonym 学生 is matched on token boundaries, never inside 学生价.
    """
    phrases = glossary.phrases if glossary is not None else frozenset()
    if not phrases:
        return tokens
    merged: list[str] = []
    i = 0
    while i < len(tokens):
        for j in range(min(len(tokens), i + MAX_MERGE_TOKENS), i + 1, -1):
            joined = "".join(tokens[i:j])
            if joined in phrases:
                merged.append(joined)
                i = j
                break
        else:
            merged.append(tokens[i])
            i += 1
    return merged


def boundary(analyzer: Analyzer, tokens: list[str], glossary: Glossary | None,
             folds: list[tuple[str, str]]) -> list[str]:
    """Two neighbouring tokens jieba cut across a word's edge are cut again: when one of them neither the corpus nor
    the glossary knows (`Analyzer.is_glued`), its edge characters move to the other token if that makes a word the
    corpus or the glossary knows and leaves a piece that is one (or a single character the corpus has).

    Fixes 「三级跟四级差多少钱」 (jieba: 四 / 级差, an absent word → 四级 / 差). Must not break 「二级转三级要补多少」:
    every token is known, nothing moves.
    """
    out = list(tokens)
    i = 0
    while i + 1 < len(out):
        left, right = out[i], out[i + 1]
        moved = _moved(analyzer, left, right, glossary)
        if moved is not None:
            out[i:i + 2] = [piece for piece in moved if piece]
        i += 1
    return out


def _moved(analyzer: Analyzer, left: str, right: str, glossary: Glossary | None) -> tuple[str, str] | None:
    """(left, right) with 1–2 edge characters moved across, or None when no move makes both sides known."""

    def fine(piece: str) -> bool:
        return not piece or analyzer.resolves(piece, glossary) or (len(piece) == 1 and analyzer.in_corpus(piece))

    if analyzer.is_glued(right, glossary):
        for k in (1, 2):
            if k < len(right) and analyzer.resolves(left + right[:k], glossary) and fine(right[k:]):
                return left + right[:k], right[k:]
    if analyzer.is_glued(left, glossary):
        for k in (1, 2):
            if k < len(left) and analyzer.resolves(left[-k:] + right, glossary) and fine(left[:-k]):
                return left[:-k], left[-k:] + right
    return None


# --- one glued token at a time -------------------------------------------------------------------

def numeral_nouns(analyzer: Analyzer, token: str, glossary: Glossary | None) -> list[str] | None:
    """A numeral compound jieba lists as a numeral (一个班, 三个月) gives up its one noun the corpus has.

    Fixes 「一个班几个人啊」 (about 班). Must not break 「一起上课可以吗」: 起 of 一起 is no noun.
    None when the token is no numeral compound; the token itself when no noun is found.
    """
    if not analyzer.is_numeral_compound(token, glossary):
        return None
    best = _best_split(analyzer, token, glossary, compound=True)
    return best if best else [token]


def numeral_units(analyzer: Analyzer, token: str, glossary: Glossary | None) -> list[str] | None:
    """A lesson count jieba glued to its unit (五节, 六节课) that the corpus does not know as one word: the numeral and
    the lesson unit (the case reader's `lesson_unit` words), as the digits 5 节 would be cut.

    Fixes 「商务级五千六 上了五节 能退多少」 (五节 counted as a word the documents never use). Must not break
    「一级总共要上两个月吗」 (两个月 is no lesson count) nor 「四级学费多少」 (四级 is a corpus word).
    """
    weight, canon = analyzer.weigh(token, glossary)
    if weight <= 0.0 or canon or analyzer.in_corpus(token):  # the corpus or the glossary knows it whole (8节)
        return None
    figures = extract_figures(token)
    if len(figures) != 1 or figures[0].text != token:
        return None
    for cut in range(len(token) - 1, 0, -1):
        head, unit = token[:cut], token[cut:]
        read = extract_figures(head)
        if unit in _LESSON_UNITS and len(read) == 1 and read[0].text == head and analyzer.in_corpus(unit):
            return [head, unit]
    return None


def resultatives(analyzer: Analyzer, token: str, glossary: Glossary | None) -> list[str] | None:
    """A verb plus a resultative complement (退掉, 剩下, 找到) keeps only the verb, when the
    corpus or the question frames know the verb.

    Fixes 「交完钱多久能开课」 (交完, absent, → 交). Must not break 「上完商务级能保证找到工作吗」:
    上完 is a glossary synonym (结课) and stays whole.
    """
    if not analyzer.is_glued(token, glossary) or token[-1] not in RESULTATIVES:
        return None
    head = token[:-1]
    if head in analyzer.question_words or analyzer.in_corpus(head) or analyzer.resolves(head, glossary):
        return [head]
    return None


def resplit(analyzer: Analyzer, token: str, glossary: Glossary | None) -> list[str] | None:
    """A content token jieba glued from function morphemes and a corpus word is re-cut into the word.

    Resolved pieces only (corpus words of 2+ characters or glossary phrases: 几节课 → 几 + 节课);
    with question-frame words around it one corpus character may stand alone (先考 → 先 + 考);
    a token made only of frame words is one (想要 → 想 + 要). Fewest pieces win, then the longest.
    Fixes 「那本书的钱退不退」 (那本书, absent, → 书). Must not break 「有证书吗」: single characters
    never resolve alone, so 证书 stays whole and unknown; nor 「有日语课吗」: a piece jieba tags as a numeral that counts
    nothing (日) is no function morpheme to drop, so 日语课 stays whole and unknown (not 语课, a piece of 口语课).
    """
    if not analyzer.is_glued(token, glossary):
        return None
    return _best_split(analyzer, token, glossary, compound=False)


def _best_split(analyzer: Analyzer, token: str, glossary: Glossary | None, *, compound: bool) -> list[str] | None:
    best: tuple[tuple[int, int, int], list[str]] | None = None
    for pieces in _splits(token):
        content = [p for p in pieces if analyzer.weigh(p, glossary)[0] > 0.0]
        if not compound and any(_false_numeral(analyzer, p) for p in pieces if p not in content):
            continue  # 「日语课」 is no 日 + 语课: jieba tags 日 a numeral, but it counts nothing
        resolved = [p for p in content if analyzer.resolves(p, glossary)]
        frame_only = all(p in analyzer.question_words for p in pieces if p not in content)
        if compound:  # numeral + classifier + noun: the piece must be a noun (not 起 of 一起)
            noun = len(content) == 1 and analyzer.tag(content[0]).startswith("n")
            rank = 0 if noun and analyzer.in_corpus(content[0]) else None
        elif resolved and len(resolved) == len(content):
            rank = 0
        elif len(content) == 1 and frame_only and analyzer.in_corpus(content[0]):
            rank = 1
        elif not content and frame_only:
            rank = 2
        else:
            rank = None
        if rank is not None:
            key = (rank, len(pieces), -max((len(p) for p in content), default=0))
            if best is None or key < best[0]:
                best = (key, pieces)
    return best[1] if best else None


_NUMERAL_CHARS = frozenset("零〇一二两三四五六七八九十百千万几半多每0123456789")


def _false_numeral(analyzer: Analyzer, piece: str) -> bool:
    """A piece jieba tags as a numeral (m) with no numeral in it (日 of 日语课): a word's part, not a count to drop
    (一分 of 一分钱 is one)."""
    return analyzer.tag(piece) == "m" and not set(piece) & _NUMERAL_CHARS


def _splits(token: str) -> Iterable[list[str]]:
    """Every way to cut `token` into two or more consecutive pieces."""
    for mask in range(1, 2 ** (len(token) - 1)):
        pieces, start = [], 0
        for end in range(1, len(token)):
            if mask >> (end - 1) & 1:
                pieces.append(token[start:end])
                start = end
        pieces.append(token[start:])
        yield pieces


# --- weights -------------------------------------------------------------------------------------

def numeral_topics(word: str) -> bool:
    """Class formats jieba tags as numerals (一对一, 一对二) are topics, not function words.

    Fixes 「一对一课多少钱」. Must not break 「一个人能报吗」: 一个 stays a numeral of weight 0.
    """
    return word in NUMERAL_TOPICS


# --- terms ---------------------------------------------------------------------------------------

def self_description(question: str, found: Sequence[Term], case: StudentCase | None = None) -> set[str]:
    """Words the corpus never uses that stand only in a clause where the asker describes themselves.

    Only for a question of several clauses whose asking clause (吗, 几, 多少, 什么, A-not-A, ？, a
    final 没/不 …; core/data/asking_markers.txt) names MIN_ASKING_TERMS corpus words and does not
    point back with 这/那; no character of the word may recur in the asking clause.
    Fixes 「我闺女测出来是二级，学费得交多少」 (闺女 is background).
    Must not break 「我想分期付款 学费可以这样交吗」 (points back: 分期付款 still counts).
    """
    clauses = [c.strip() for c in _CLAUSE_RE.split(question) if c and c.strip()]
    asking = [c for c in clauses if _ASKING_RE.search(c.rstrip("，,。！!；;、"))]
    if not asking or len(asking) == len(clauses):
        return set()
    ask_text = normalize("".join(asking))
    if _POINTS_BACK_RE.search(ask_text):
        return set()
    rest = normalize("".join(c for c in clauses if c not in asking))
    if sum(t.known and normalize(t.text) in ask_text for t in found) < MIN_ASKING_TERMS:
        return set()
    return {t.text for t in found if not t.known and not t.is_number and normalize(t.text) in rest
            and not any(ch in ask_text for ch in normalize(t.text))}


def case_words(question: str, found: Sequence[Term], case: StudentCase | None = None) -> set[str]:
    """Words the corpus never uses that are part of how a student tells their own case (core/data/case_words.txt:
    联报, 原价, 加 in 学费加教材, 还没开班, 头一回 …; the week word of a figure, 七个星期; the L of a level, L3; in a
    question asking a transfer, the channels and time slots moved between, 周末、周三晚上), in a question that asks a
    refund, a transfer or a difference and tells the student's case: a figure of its own, or where the course is
    (「还没开始上」「开课后」).
    The student's-case reader reads them, the documents compute the answer.

    Fixes 「我是二级 联报实付3800 上了两节课 退费多少」 (联 is background), 「职场级原价报的，还没开始上，想退，能拿回多少」
    (a refund before the start) and 「上了4节课，想从周末班换到周三晚上的班，第一次转班，要钱吗」. Must not break
    「有联报优惠吗」 (no computation asked: 联报 still counts), 「转到雅思班要补多少」 (雅思 is no word of a student's case),
    nor 「周末班能退费吗」 (no case told: 周末 still counts).
    """
    transfer = wants_transfer(question)  # its words, 「第二次转」, or a move between slots (「想换个晚上的时段」)
    if not transfer and not any(said(question, name) for name in _COMPUTATION_INTENTS):
        return set()
    figures = extract_figures(question)
    if not figures and not any(said(question, name) for name in _STAGE_LISTS):
        return set()
    compact = normalize(re.sub(r"\s+", "", question))
    present = [w for w in _CASE_PHRASES if w in compact]
    present += [normalize(unit) for f in figures for unit in _WEEK_UNITS if f.text.rstrip().endswith(unit)]
    present += sorted(latin_level_letters(question))  # the L of 「L3」: the case reader reads the level
    if transfer:
        present += [w for w in _SLOT_PHRASES if w in compact]
    return {t.text for t in found if not t.known and not t.is_number
            and any(normalize(t.text) in w for w in present)}


# 交 付 花: the words before an amount (money_before) that begin a paying verb (paid_verb: 交了 付了 花了)
_MONEY_VERBS = tuple(w for w in _case_word_lists()["money_before"]
                     if any(v.startswith(w) for v in _case_word_lists()["paid_verb"]))


def figure_words(question: str, found: Sequence[Term], case: StudentCase | None = None) -> set[str]:
    """In a question whose student's case the case reader reads whole (`told`, as `circumstance_words`), the words
    that make the student's figures: the unit inside a figure (节 of 「上了2节」) and the paying verb right before an
    amount (交 of 「交了5600」). The case reader reads them into the case the documents compute from; they are no
    words the documents must hold.

    Fixes 「我四级交了5600，上了2节，能退多少」 (节 and 交 left uncovered by the refund rule's chunks). Must not break
    「节假日有课吗」 (no case told) nor 「二级交了4200 上了6节 退款能打到支付宝吗」 (支付宝 is no figure's word)."""
    if case is None or told(case, question) is None:
        return set()
    inside: set[str] = set()
    for figure in extract_figures(question):
        start, end = figure.span
        unit = re.sub(r"^[\d.,，零〇一二两三四五六七八九十百千万]+", "", figure.text)
        if unit:
            inside.add(normalize(unit))
        before = re.sub(r"了$", "", question[max(0, start - 3):start].rstrip())
        inside.update(normalize(v) for v in _MONEY_VERBS if before.endswith(v))
    return {t.text for t in found if not t.is_number and normalize(t.text) in inside}


def circumstance_words(question: str, found: Sequence[Term], case: StudentCase | None = None) -> set[str]:
    """Words the corpus and the glossary never use, in a question whose student's case the case reader reads whole
    (`case`, read by the one reader: core.case.intent.told — a refund with what was paid and how far the course is,
    a transfer with which one or the lessons taken, a level difference with both levels): the documents compute the
    answer from the case, and what else the student says is their circumstances (公司临时派我去外地, 太难了, 工作太忙).
    A word in a clause that asks is the ask, and counts — except in a clause asking only the amount the computation
    gives (能退多少), where a word jieba does not take for a noun (算算, 麻烦) is how the student asks; a noun there
    (快递费多少) or a word in any other asking clause (能退到支付宝吗, 来得及吗) still counts.

    Fixes 「四级交了5600 才上3节 公司派我出差 能退多少」 (出差 is background). Must not break
    「二级交了4200 上了6节 退款能打到支付宝吗」 (asked: 支付宝 still counts), 「二级 想转到雅思班 要补多少」 (no level to move to:
    雅思 still counts) nor 「上了3节 出差了 能退多少」 (nothing paid and no level: no case to compute).
    """
    if case is None or told(case, question) is None:
        return set()
    clauses = [c.strip() for c in _CLAUSE_RE.split(question) if c and c.strip()]
    # The clauses that ask: those the what-is-asked reader reads an ask in (core.case.asked) or that end as a question
    # (呢, ？); when none does, those with an asking marker. 「好几个月」 tells a span, it does not ask one.
    asking = [c for c in clauses if read_asked(c).kinds or c.rstrip("，,。！!；;、 ").endswith(_QUESTION_ENDS)] \
        or [c for c in clauses if _ASKING_RE.search(c.rstrip("，,。！!；;、"))]
    asking_words: list[str] = []  # the words of the clauses that ask, which count
    for clause in asking:
        text = normalize(clause)
        if read_asked(clause).kinds == ("amount",):  # asks the computed amount: only its nouns are what is asked
            asking_words += [normalize(t.text) for t in found if normalize(t.text) in text and _noun(t.text)]
        else:
            asking_words.append(text)
    return {t.text for t in found if not t.known and not t.is_number
            and not any(normalize(t.text) in w for w in asking_words)}


def _noun(word: str) -> bool:
    """Whether jieba takes the word for a noun (n, nr, nz …), or does not know it: a thing a student may ask about."""
    tag = lexicon().tags.get(word)
    return tag is None or tag.startswith("n")


# --- what coverage counts ---------------------------------------------------------------------------

def fact_sentences(question: str, sentences: Sequence[str]) -> tuple[str, ...]:
    """When the question asks the amount a computation of the student's own case gives, the document sentences the
    computation stands on (the level's tuition, its lessons, lessons per week, the fee rule, the difference rule)
    count for coverage beside the passing chunks: the answer cites them (core.answering.fact_refs joins their
    chunks), so the words they hold are what the answer carries.

    Fixes 「做完分级测试报了二级 现在想换到四级 差价要补多少」 (the levels, 差价 and 补 are in the price list and the
    transfer rule the difference cites, not in the placement-test chunks retrieval ranked first).
    Must not break 「一级学完了想升一级 还要再做分级测试吗」: a move between levels read as a computation, but no
    amount is asked, so nothing is added.
    """
    if not asks_amount(question):
        return ()
    return tuple(normalize(s) for s in sentences)


# --- credit within one sentence ----------------------------------------------------------------------

# A word of the question counts as held by a sentence when the sentence holds this much of it (graded credit: 人工 of
# 「人工服务时间为每天 9:00–21:00」 is half of 找人工).
HELD_SHARE = 0.5


# (a document word, the words it covers), from core/data/scope_words.txt (one 「word：covered words」 line each)
SCOPES = tuple((normalize(word), frozenset(map(normalize, covered)))
               for word, covered in _case_word_lists(DATA / "scope_words.txt").items())


def scope_held(terms: Sequence[Term], sentence: str) -> set[Term]:
    """The terms naming a day or a part of the day (周末, 星期天, 晚上: core/data/scope_words.txt) that `sentence`
    (normalised) covers: it says the word they fall under (「每天」) and holds HELD_SHARE of another content word of
    the question."""
    scoped = {t: word for t in terms for word, covered in SCOPES if normalize(t.typed or t.text) in covered}
    if not scoped or not any(credit(o, [sentence], graded=True) >= HELD_SHARE
                             for o in terms if o not in scoped and o.weight > 0):
        return set()
    return {t for t, word in scoped.items() if word in sentence}


def day_scope(terms: Sequence[Term], sentences: Sequence[str], credits: Mapping[Term, float]) -> dict[Term, float]:
    """A day or a part of the day the question names is covered by a passing sentence saying 「每天」 that also holds
    another word of the question (`scope_held`): the rule is said for every day, so it is said for that one.

    Fixes 「周末有人工服务吗」 (「人工服务时间为每天 9:00–21:00」 holds 人工 and 每天). Must not break 「周末有班吗」:
    no sentence saying 每天 holds 班, so 周末 stays a word the documents lack and the gate refuses."""
    return {t: 1.0 for s in sentences for t in scope_held(terms, s) if credits.get(t, 0.0) < 1.0}
