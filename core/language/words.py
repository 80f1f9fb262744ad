"""The word lists and numbers the term analysis reads: data files under core/data/, read once at import.

Nothing here decides anything; `core.answerability.terms` and `core.answerability.term_rules` use these names. Each list is a
plain text file (one or more words a line, space-separated; lines starting with # are notes), so
a maintainer can read and change a list without reading code. Must not import jieba or the analyzer.
"""

from __future__ import annotations

import re
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"


RETRIEVAL_MARK = "检索："


def read_words(name: str) -> frozenset[str]:
    """The words of core/data/<name> (whitespace-separated, # lines skipped; a 「检索：」 line marks a subset
    of words already listed, see `retrieval_words`)."""
    words: set[str] = set()
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if not line.lstrip().startswith("#"):
            words.update(line.removeprefix(RETRIEVAL_MARK).split())
    return frozenset(words)


def retrieval_words(name: str) -> tuple[str, ...]:
    """The words of the 「检索：」 lines of core/data/<name>, in their order."""
    found: list[str] = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.startswith(RETRIEVAL_MARK):
            found += line.removeprefix(RETRIEVAL_MARK).split()
    return tuple(found)


# Part-of-speech tags (jieba's dict.txt) of words that carry no topic in a question.
FUNCTION_TAGS = read_words("function_tags.txt")
# Question frames and light verbs of spoken Chinese that jieba tags as content: weight 0.
BASE_QUESTION_WORDS = read_words("question_words.txt")
# The interrogatives among them that retrieval strips from a query (core.language.text.query_segments).
RETRIEVAL_QUESTION_WORDS = retrieval_words("question_words.txt")
# Multi-word question frames (叫什么名字, 是什么意思): kept whole by the tokenizer, weight 0.
FRAME_PHRASES = read_words("question_frames.txt")
QUESTION_WORDS = BASE_QUESTION_WORDS | FRAME_PHRASES
# Class formats jieba tags as numerals (m) that name what a question is about.
NUMERAL_TOPICS = read_words("numeral_topics.txt")
# Resultative complements (学到, 退掉, 剩下): the verb stands alone.
RESULTATIVES = read_words("resultatives.txt")
# Tags jieba gives numeral compounds (一个班, 三个月) whose noun is a topic.
COMPOUND_TAGS = read_words("numeral_compound_tags.txt")
# Common exam names (雅思, 托福 …): kept whole by the tokenizer, weighed as any word (rule exam_names).
EXAM_NAMES = read_words("exam_names.txt")
# Words that mark the clause of a question that asks (see core.answerability.term_rules.self_description).
ASKING_MARKERS = read_words("asking_markers.txt")

# Content words: weight FLOOR at or below LOW_IDF, 1 at HIGH_IDF and above, linear in between;
# words more common than MIN_IDF (国家, 时间 …) weigh 0. jieba's table spans 0.88 (的) to 13.9;
# 学费 sits at 9.0 and words it has never seen at its median, 11.95.
MIN_IDF = 3.0
LOW_IDF = 4.0
HIGH_IDF = 10.0
FLOOR = 0.3
NUMBER_WEIGHT = 0.2  # a number is a value the question supplies (上了10节课), rarely its topic
MIN_CORPUS_WORD_COUNT = 2  # a word must occur this often in the corpus to count as its vocabulary
CORPUS_WORD_FREQ = 1000  # segmentation prefers corpus vocabulary: 开课/后/退费, not 开课/后退/费
MAX_MERGE_TOKENS = 6  # the longest span a phrase merge (tokens) or a re-split (characters) looks at
MIN_ASKING_TERMS = 2  # corpus words an asking clause must name to stand on its own

HAN_RE = re.compile(r"^[\u4e00-\u9fff]+$")
NUMBER_RE = re.compile(r"^[0-9０-９.%]+$")

