"""The answerability decision: term weights, coverage, words the corpus lacks, the gate, evaluation."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Sequence

import pytest
from langchain_core.documents import Document

from core.answerability.decision import analyzer_for, credit, judge, measure
from core.answerability.glossary import Glossary, GlossaryEntry, load_starter
from core.answerability.terms import TermAnalyzer
from core.answering.offline import ScriptedChatModel
from core.answering.rag import retrieve
from core.assistant import build_assistant
from core.evaluation.metrics import (
    CORRECT_ANSWER,
    CORRECT_REFUSAL,
    FALSE_ANSWER,
    FALSE_REFUSAL,
    WRONG_SOURCE,
    evaluate_at,
    evaluate_set,
)
from core.evaluation.misses import explain_misses
from core.knobs import Knobs, calibrated
from core.retrieval.index import build_index
from core.sets.format import LabelledQuestion
from core.settings import REFUSAL_TEXT, Settings
from core.values import Decision, Hit, Term
from tests.paths import ROOT

FEES = Document(page_content="入门级学费 3600 元。开课后可以免费转班一次，第二次转班收 100 元。",
                metadata={"source": "a.md", "heading": "学费与转班", "chunk": 0})
LEAVE = Document(page_content="因病可以申请保留学籍，最长 6 个月。每级 16 课时。",
                 metadata={"source": "b.md", "heading": "保留学籍", "chunk": 1})
PRICE = Glossary((GlossaryEntry("学费", "价格"), GlossaryEntry("保留学籍", "休学")))
DEFAULT = calibrated()


def policy(min_coverage: float = DEFAULT.min_coverage, max_unknown_weight: float = DEFAULT.max_unknown_weight):
    return (min_coverage, max_unknown_weight)


STRICT = policy(min_coverage=0.8, max_unknown_weight=0.6)


def assess(question: str, kept: Sequence[Hit], knobs: Knobs, *, analyzer: TermAnalyzer,
           glossary: Glossary | None = None) -> Decision:
    """The decision for kept hits as the gate takes it: the passing ones are those whose score reaches the
    threshold (the hits here are not reranked, so value = score)."""
    terms, context = analyzer.split(question, glossary)
    passing = [h for h in kept if h.value >= knobs.threshold]
    return judge(terms, context, measure(terms, passing), kept, knobs)


def at(threshold: float, decision_knobs: tuple[float, float] | None = None, k: int = 10) -> Knobs:
    """Knobs with this threshold and (min coverage, max unknown weight), default the calibrated ones."""
    coverage, unknown = decision_knobs or policy()
    return Knobs(threshold=threshold, k=k, min_coverage=coverage, max_unknown_weight=unknown)


def decider(index, glossary: Glossary | None = None):
    """The decision as the gate applies it to kept hits at a threshold (hits not reranked: value = score)."""
    analyzer = analyzer_for(index, glossary=glossary)
    return lambda question, hits, threshold: assess(question, hits, at(threshold), analyzer=analyzer,
                                                    glossary=glossary)


@pytest.fixture(scope="module")
def toy():
    return TermAnalyzer.from_chunks([FEES, LEAVE])


def hit(doc: Document, score: float, rank: int = 1) -> Hit:
    return Hit(rank=rank, source=doc.metadata["source"], heading=doc.metadata["heading"], chunk=doc.metadata["chunk"],
               start=0, end=len(doc.page_content), text=doc.page_content, score=score)


@pytest.mark.parametrize("word", ["多久", "几个", "怎么", "可以", "吗", "什么", "能", "的"])
def test_weight_function_words_weigh_nothing(toy, word):
    assert toy.weight(word) == 0.0


def test_weight_worked_by_hand(toy):
    # jieba idf(学费) = 9.04086524761: 0.3 + 0.7 × (9.0409 − 4) / (10 − 4) = 0.8881
    assert toy.weight("学费") == pytest.approx(0.8881, abs=1e-4)
    # idf(价格) = 4.54675655152: 0.3 + 0.7 × 0.5468 / 6 = 0.3638
    assert toy.weight("价格") == pytest.approx(0.3638, abs=1e-4)
    assert toy.weight("学籍") == 1.0  # idf 10.64 is above HIGH_IDF
    assert toy.weight("3600") == 0.2  # numbers are values, not topics


def test_weight_content_word_outweighs_question_frame(toy):
    assert toy.weight("学费") > 4 * max(toy.weight(w) for w in ("多少", "多长时间", "一下", "怎么样"))


def test_tokens_keep_corpus_terms_whole(toy):
    assert "转班" in toy.tokens("可以免费转班吗")
    assert {"课时", "学籍"} <= set(toy.tokens("保留学籍期间课时还在吗"))


def test_tokens_split_a_term_the_corpus_does_not_use():
    other = TermAnalyzer.from_chunks(["今天天气很好。"])
    assert "转班" not in other.tokens("可以免费转班吗")


def test_assess_coverage_worked_by_hand(toy):
    # 学费 (0.8881) is not in the passing chunk, 学籍 (1.0) is: 1.0 / 1.8881 = 0.5296
    d = assess("学费和学籍", [hit(LEAVE, 0.5), hit(FEES, 0.05, 2)], at(0.2, STRICT), analyzer=toy)
    assert d.coverage == pytest.approx(0.5296, abs=1e-4)
    assert not d.answerable
    assert d.uncovered_terms == ("学费",) and d.carrying_terms == ("学籍",)
    assert "53%" in d.reason and "学费" in d.reason


def test_assess_answers_with_reason_naming_the_carrying_terms(toy):
    d = assess("入门级学费多少", [hit(FEES, 0.5)], at(0.2, STRICT), analyzer=toy)
    assert d.answerable and d.coverage == 1.0
    assert d.reason == "问题的关键词“入门级、学费”都在命中片段中出现（覆盖 100%）"
    assert [s.name_zh for s in d.signals] == ["排序分", "关键词覆盖", "资料外的词", "领先第二名"]
    assert d.signals[1].compared == "100% ≥ 80% ✓"  # what the gate compared, as the Ask page shows it
    assert all(s.passed for s in d.signals)


def test_assess_unknown_word_refusal_names_the_word(toy):
    d = assess("学费能不能分期付款？", [hit(FEES, 0.6)], at(0.2, STRICT), analyzer=toy)
    assert not d.answerable
    assert "问题里的“分期付款”在资料中没有出现" in d.reason
    assert d.unknown_terms == ("分期付款",) and "分期付款" in d.uncovered_terms


def test_assess_threshold_refusal_says_score_and_threshold(toy):
    d = assess("入门级学费多少", [hit(FEES, 0.08)], at(0.2, STRICT), analyzer=toy)
    assert not d.answerable and d.score == 0.0
    assert d.reason == "最高排序分 0.08 低于阈值 0.20"


def test_assess_threshold_is_inclusive(toy):
    assert assess("入门级学费多少", [hit(FEES, 0.2)], at(0.2, STRICT), analyzer=toy).answerable


def test_assess_synonym_makes_a_paraphrase_covered(toy):
    question = "入门级的价格是多少"
    plain = assess(question, [hit(FEES, 0.5)], at(0.2, STRICT), analyzer=toy)
    assert not plain.answerable and plain.coverage == pytest.approx(1.0 / 1.3638, abs=1e-4)
    with_glossary = assess(question, [hit(FEES, 0.5)], at(0.2, STRICT), analyzer=toy, glossary=PRICE)
    assert with_glossary.answerable and with_glossary.coverage == 1.0
    assert "价格" in with_glossary.carrying_terms


def test_assess_synonym_only_counts_where_its_term_is(toy):
    d = assess("可以休学吗", [hit(FEES, 0.5)], at(0.2, STRICT), analyzer=toy, glossary=PRICE)
    assert not d.answerable and "休学" in d.uncovered_terms  # 保留学籍 is in the other chunk


def test_assess_question_without_content_words(toy):
    d = assess("可以吗？", [hit(FEES, 0.5)], at(0.2), analyzer=toy)
    assert not d.answerable and "没有可以核对的关键词" in d.reason


def test_assess_score_is_in_unit_interval_and_orders_evidence(toy):
    good = assess("入门级学费多少", [hit(FEES, 0.6), hit(LEAVE, 0.1, 2)], at(0.0), analyzer=toy)
    worse = assess("入门级学费分期付款", [hit(FEES, 0.6), hit(LEAVE, 0.1, 2)], at(0.0), analyzer=toy)
    assert 0.0 <= worse.score < good.score <= 1.0


def test_analyzer_is_built_once_per_index_and_glossary(corpus_index):
    assert analyzer_for(corpus_index, glossary=PRICE) is analyzer_for(corpus_index, glossary=PRICE)
    assert analyzer_for(corpus_index) is build_assistant(Settings(), corpus_index, None).analyzer
    assert analyzer_for(corpus_index) is not analyzer_for(corpus_index, glossary=PRICE)


def test_glossary_phrases_are_kept_whole_by_the_tokenizer(corpus_index):
    online = Glossary((GlossaryEntry("线上班", "网课"),))
    assert analyzer_for(corpus_index).tokens("上网课贵吗")[:2] == ["上网", "课"]  # jieba's own cut
    assert analyzer_for(corpus_index, glossary=online).tokens("上网课贵吗")[:2] == ["上", "网课"]
    terms = {t.text: t for t in analyzer_for(corpus_index, glossary=online).terms("上网课贵吗", online)}
    assert "上网" not in terms and terms["网课"].forms == ("网课", "线上班") and terms["网课"].known


@pytest.mark.parametrize("question, topic, frame", [
    ("二级叫什么名字", "二级", "名字"),
    ("回答后面那个编号是什么意思", "编号", "意思"),
    ("对话记录留着干什么用", "记录", "干什么"),
    ("退费手续费是百分之几", "手续费", "百分之几"),
])
def test_spoken_question_frames_weigh_nothing(corpus_index, question, topic, frame):
    texts = [t.text for t in analyzer_for(corpus_index).terms(question)]
    assert topic in texts and not any(frame in t for t in texts)


@pytest.fixture(scope="module")
def toy_index():
    return build_index([FEES, LEAVE])


def test_gate_refuses_without_calling_the_model(toy_index):
    model = ScriptedChatModel(responses=["不该被调用"])
    assistant = build_assistant(Settings(), toy_index, None, chat_model=model)
    gate = assistant.gate(assistant.retrieve("学费能不能分期付款？"), at(0.0, k=2))
    result = assistant.answer(gate)
    assert gate.refused and result.text == REFUSAL_TEXT and model.calls == 0
    assert gate.decision is not None and gate.reason == gate.decision.reason and "分期付款" in gate.reason


def test_gate_answers_and_carries_the_decision(toy_index):
    model = ScriptedChatModel(responses=["入门级学费 3600 元[1]。"])
    assistant = build_assistant(Settings(), toy_index, None, chat_model=model)
    gate = assistant.gate(assistant.retrieve("入门级学费多少"), at(0.0, k=2))
    result = assistant.answer(gate)
    assert not gate.refused and model.calls == 1 and not result.refused
    assert gate.decision.answerable and "入门级" in gate.reason and result.decision == gate.decision


def test_gate_without_the_decision_keeps_the_threshold_gate(toy_index):
    assistant = build_assistant(Settings(answerability="off"), toy_index, None)
    gate = assistant.gate(assistant.retrieve("学费能不能分期付款？"), at(0.0, k=2))
    assert not gate.refused and gate.decision is None and gate.reason == ""


def test_glossary_expansion_changes_only_the_retrieval_query(toy_index):
    assistant = build_assistant(Settings(), toy_index, PRICE)
    retrieval = assistant.retrieve("可以休学吗")
    assert retrieval.question == "可以休学吗" and retrieval.candidates[0].source == "b.md"


ROWS = (
    LabelledQuestion("入门级学费多少", "a.md", key_phrase="3600 元"),
    LabelledQuestion("入门级学费多少", "a.md", key_phrase="4200 元"),
    LabelledQuestion("可以休学吗", "b.md", key_phrase="保留学籍"),
    LabelledQuestion("学费能不能分期付款？"),
    LabelledQuestion("可以免费转班吗"),
)


def evaluate_decisions(rows, index, glossary, threshold, k, *, policy):
    """Outcomes of `rows` through the one gate on `index` (evaluate_set once, evaluate_at at these knobs)."""
    evaluated = evaluate_set(build_assistant(Settings(), index, glossary), rows)
    return evaluated, evaluate_at(evaluated, at(threshold, policy, k=k))


def test_evaluation_labels_every_outcome(toy_index):
    _, evaluation = evaluate_decisions(ROWS, toy_index, None, 0.0, 2, policy=STRICT)
    assert evaluation.outcomes == (CORRECT_ANSWER, WRONG_SOURCE, FALSE_REFUSAL, CORRECT_REFUSAL, FALSE_ANSWER)
    m = evaluation.metrics
    assert m.correct / m.total == pytest.approx(2 / 5) and m.answered_with_fact == pytest.approx(1 / 3)


def test_evaluation_with_glossary_fixes_the_paraphrase(toy_index):
    _, evaluation = evaluate_decisions(ROWS[2:3], toy_index, PRICE, 0.0, 2, policy=STRICT)
    assert evaluation.outcomes[0] == CORRECT_ANSWER


def test_explain_misses_lists_uncovered_and_carrying_words(toy_index):
    explained = explain_misses(*evaluate_decisions(ROWS, toy_index, None, 0.0, 2, policy=STRICT))
    by_question = {(e.question, e.outcome): e for e in explained}
    assert "休学" in by_question[("可以休学吗", FALSE_REFUSAL)].words
    assert "转班" in by_question[("可以免费转班吗", FALSE_ANSWER)].words
    wrong = by_question[("入门级学费多少", WRONG_SOURCE)]
    assert "关键句" in wrong.hint and "前 k" in wrong.hint


_DETERMINISM_SCRIPT = """
import json
from core.assistant import build_assistant
from core.answerability.glossary import load_starter
from core.corpus.loader import load_documents
from core.retrieval.index import build_index
from core.settings import Settings
assistant = build_assistant(Settings(), build_index(load_documents({corpus!r})), load_starter())
out = []
for q in ["退的钱多久能到账？", "学费能不能分期付款？", "可以免费转班吗", "入门级的价格是多少"]:
    d = assistant.gate(assistant.retrieve(q), assistant.knobs.with_(threshold=0.1)).decision
    out.append([d.answerable, d.score, d.reason, list(d.uncovered_terms), list(d.carrying_terms)])
print(json.dumps(out, ensure_ascii=False))
"""


def test_decisions_are_identical_under_another_hash_seed():
    script = _DETERMINISM_SCRIPT.format(corpus=str(ROOT / "corpus"))
    runs = []
    for seed in ("1", "987"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True,
                              cwd=ROOT)  # `python -c` imports from its working directory: this checkout
        runs.append(json.loads(done.stdout))
    assert runs[0] == runs[1]


def test_terms_recut_a_glued_token_into_a_glossary_phrase(toy):
    glossary = Glossary((GlossaryEntry("课时", "节课"),))
    assert toy.tokens("一周上几节课") == ["一周", "上", "几节课"]
    assert [t.text for t in toy.terms("一周上几节课", glossary)] == ["节课"]


def test_terms_keep_an_unknown_word_whole_when_only_single_characters_match(corpus_index):
    # the shipped corpus has 证 (证明) and the starter glossary has 书 → 教材, yet 证书 stays one unknown word
    terms = {t.text: t for t in analyzer_for(corpus_index).terms("学完四级会发证书吗", load_starter())}
    assert "证书" in terms and not terms["证书"].known


# Coverage counts a word when the passing chunks hold it, or a glossary form of it, as is (partial
# credit and corpus specificity were removed: on the blind sets they changed nothing).
HOURS = Document(page_content="每一级都是 16 课时，每课时 45 分钟。",
                 metadata={"source": "h.md", "heading": "课时安排", "chunk": 0})
BOOKS = Document(page_content="教材费每级 280 元，每级教材不计入课时。",
                 metadata={"source": "b.md", "heading": "教材费", "chunk": 1})


def term(text: str, *forms: str, known: bool = True) -> Term:
    return Term(text=text, weight=1.0, forms=(text, *forms), known=known)


@pytest.mark.parametrize(("word", "forms", "known", "text", "expected"), [
    ("课时", (), True, "每课时45分钟", 1.0),            # as is
    ("每级", (), True, "每一级都是16课时", 0.0),         # one character inserted: not the word
    ("口语课", (), True, "口语班每班8人", 0.0),          # only some of its characters: not the word
    ("口语课", (), False, "口语班每班8人", 0.0),         # pairs only count for words the corpus uses
    ("价格", ("学费",), False, "入门级学费3600元", 1.0),  # a glossary form counts as the word
    ("每级", (), True, "每个人一级", 0.0),               # two characters inserted is too far
])
def test_credit_grades_how_much_of_a_word_is_present(word, forms, known, text, expected):
    assert credit(term(word, *forms, known=known), [text]) == pytest.approx(expected)


def test_credit_grades_only_for_the_offline_answerer():
    # the offline answerer (core.answering.extractive) still grades: one character inserted, or a share of the pairs
    assert credit(term("每级"), ["每一级都是16课时"], graded=True) == pytest.approx(2 / 3)
    assert credit(term("口语课"), ["口语班每班8人"], graded=True) == pytest.approx(1 / 2)
    assert credit(term("口语课", known=False), ["口语班每班8人"], graded=True) == 0.0


def test_credit_never_finds_a_word_across_two_texts():
    # each text (a chunk, a sentence) is searched on its own: the end of one and the start of the next are no word
    assert credit(term("学费"), ["三级学", "费用另算"]) == 0.0
    assert credit(term("每级"), ["每", "级"], graded=True) == 0.0  # nor one character inserted between them
    assert credit(term("每级"), ["每", "一级"], graded=True) == 0.0
    assert credit(term("口语课"), ["说口", "语"], graded=True) == 0.0  # a pair split by the boundary is not found
    assert credit(term("学费"), ["三级", "学费 4800 元"]) == 1.0


def test_specificity_worked_by_hand():
    analyzer = TermAnalyzer.from_chunks([HOURS, BOOKS])
    # N = 2 chunks; idf(df) = ln(1 + (N − df + 0.5) / (df + 0.5)); one chunk gives ln 2
    assert analyzer.specificity("课时") == pytest.approx(math.log(1.2) / math.log(2))  # df 2: 0.2630
    assert analyzer.specificity("每级") == 1.0  # df 1
    assert analyzer.specificity("雅思") == 1.0  # absent: no heavier than the rarest corpus word


@pytest.mark.parametrize(("question", "expected"), [
    ("入学前要先考吗", ["入学", "考"]),     # 先 + 考: a frame word glued to a corpus character
    ("已经转过班了", ["转", "班"]),          # 转 + 过
    ("教材不想要了", ["教材"]),              # 想要 = 想 + 要, both frame words
    ("一个班多少人", ["班"]),                # a numeral compound gives up its noun
    ("一起报名", ["报名"]),                  # 一起 has no noun: it stays a function word
    ("老师是外教吗", ["老师", "外教"]),       # 外 is no frame word: 外教 stays whole (and unknown)
    ("退费能退多少", ["退费", "退"]),        # (the rule that left out 退 inside 退费 was removed)
    ("交了4200上了2节课", ["交", "4200", "2", "节", "课"]),  # numbers are values, never folded away
])
def test_terms_recut_glued_tokens(corpus_index, question, expected):
    assert [t.text for t in analyzer_for(corpus_index).terms(question)] == expected


def test_analyzer_vocabulary_is_cached_on_disk_by_fingerprint(tmp_path, monkeypatch):
    from core.answerability import terms
    from core.answerability.decision import analyzer_for
    from core.corpus import profile as corpus_profile
    from core.corpus.loader import load_documents
    from core.retrieval.index import build_index
    from tests.paths import CORPUS

    index = build_index(load_documents(CORPUS), fingerprint="fp-test")
    first = analyzer_for(index, tmp_path)
    assert (tmp_path / "vocabulary-fp-test.json").exists()
    calls = []
    monkeypatch.setattr(corpus_profile, "corpus_vocabulary", lambda texts, **kw: calls.append(1) or ())
    second = terms.TermAnalyzer.from_chunks(index.chunks, vocabulary_cache=tmp_path / "vocabulary-fp-test.json")
    assert calls == [] and second.vocabulary == first.vocabulary and "转班" in second.vocabulary


def test_analyzer_damaged_vocabulary_cache_is_recomputed(tmp_path):
    from core.answerability.terms import TermAnalyzer
    from core.corpus.profile import corpus_vocabulary

    path = tmp_path / "vocabulary-x.json"
    path.write_text("{not json", encoding="utf-8")
    texts = ["转班手续费 100 元。转班一次免费。", "保留学籍最长 6 个月。保留学籍需要证明。"]
    analyzer = TermAnalyzer.from_chunks(texts, vocabulary_cache=path)
    assert analyzer.vocabulary == corpus_vocabulary(texts)
    assert '"vocabulary"' in path.read_text(encoding="utf-8")


def test_holds_fact_accepts_any_listed_wording(toy_index):
    rows = [LabelledQuestion("入门级学费多少", "a.md", key_phrase="4200 元|3600 元"),
            LabelledQuestion("入门级学费多少", "a.md", key_phrase="4200 元|5600 元")]
    _, evaluation = evaluate_decisions(rows, toy_index, None, 0.0, 2, policy=STRICT)
    assert evaluation.outcomes == (CORRECT_ANSWER, WRONG_SOURCE)


def test_reranker_puts_the_chunk_holding_the_specific_word_first(toy_index):
    from core.answerability.decision import make_reranker
    rerank = make_reranker(toy_index, PRICE)
    # LEAVE scores a little higher but holds none of the question's words; FEES holds 学费 (via 价格)
    hits = (hit(LEAVE, 0.30, 1), hit(FEES, 0.25, 2))
    out = rerank("入门级价格多少", hits)
    assert [h.source for h in out] == ["a.md", "b.md"] and [h.rank for h in out] == [1, 2]
    assert out[0].coverage == pytest.approx(1.0) and out[1].coverage == pytest.approx(0.0)
    assert [h.score for h in out] == [0.25, 0.30]  # retrieval scores are kept; the ranking score is new
    assert [h.value for h in out] == pytest.approx([0.25, 0.15])  # and the threshold is compared with it
    # score × (0.5 + 0.5 × coverage): 0.25 × 1.0 = 0.25 > 0.30 × 0.5 = 0.15; at 0.60 LEAVE stays first
    assert [h.source for h in rerank("入门级价格多少", (hit(LEAVE, 0.60, 1), hit(FEES, 0.25, 2)))] == ["b.md", "a.md"]


def test_reranker_keeps_retrieval_order_on_ties_and_without_content_words(toy_index):
    from core.answerability.decision import make_reranker
    rerank = make_reranker(toy_index)
    same = (hit(LEAVE, 0.2, 1), hit(FEES, 0.2, 2))
    assert [h.source for h in rerank("可以吗", same)] == ["b.md", "a.md"]
    assert all(h.coverage == 0.0 for h in rerank("可以吗", same))
    assert [h.source for h in rerank("免费", (hit(FEES, 0.2, 1), hit(FEES, 0.2, 2)))] == ["a.md", "a.md"]


def test_the_gate_ranks_candidates_before_keeping_k(toy_index):
    off = build_assistant(Settings(answerability="off"), toy_index, PRICE)
    on = build_assistant(Settings(), toy_index, PRICE)
    plain = off.gate(off.retrieve("入门级价格多少 学费"), at(0.0, k=1))
    reranked = on.gate(on.retrieve("入门级价格多少 学费"), at(0.0, k=1))
    assert reranked.candidates[0].coverage is not None and plain.candidates[0].coverage is None
    assert reranked.candidates[0].source == "a.md"
    assert "coverage" in reranked.candidates[0].to_dict() and "coverage" not in plain.candidates[0].to_dict()


@pytest.mark.parametrize("question, expected", [
    ("学费里面包不包括书的钱", ["学费", "包括", "书", "钱"]),  # jieba alone: 里/面包/不/包括
    ("退不退", ["退"]),
    ("4800的课上了4节退掉", ["4800", "课", "退"]),  # 退掉: verb + resultative complement
    ("退钱是按剩下没上的课来算的吗", ["退钱", "剩"]),
])
def test_terms_fold_spoken_forms_onto_the_corpus_words(corpus_index, question, expected):
    texts = [t.text for t in analyzer_for(corpus_index).terms(question)]
    assert all(any(e == t or e in t for t in texts) for e in expected), texts
    assert "面包" not in texts and "上线" not in texts and "退掉" not in texts


@pytest.mark.parametrize("question, unknown", [
    ("有外教吗", "外教"), ("有没有周末上课的班", "周末"), ("学费能不能分期付款", "分期付款"),
    ("有证书吗", "证书"), ("能一对一上课吗", "一对一"),  # jieba tags 一对一 as a numeral
])
def test_recut_leaves_words_the_corpus_lacks_whole_and_unknown(corpus_index, question, unknown):
    terms = {t.text: t for t in analyzer_for(corpus_index).terms(question)}
    assert unknown in terms and not terms[unknown].known and terms[unknown].weight > 0.44


@pytest.mark.parametrize("question, unit", [("一级要上几周", "周"), ("总共多少课时", "课时")])
def test_terms_keep_the_unit_a_question_counts(corpus_index, question, unit):
    terms = {t.text: t for t in analyzer_for(corpus_index).terms(question)}
    assert unit in terms and terms[unit].known and terms[unit].weight > 0


@pytest.mark.parametrize("question", ["有几个", "一共几次", "一共几期"])  # generic units, or one the corpus lacks
def test_terms_ignore_generic_or_absent_counted_units(corpus_index, question):
    assert analyzer_for(corpus_index).terms(question) == ()


@pytest.mark.parametrize("question, context", [
    ("我闺女测出来是二级，学费得交多少", ("闺女",)),
    ("一周要上几节课啊？我经常加班怕排不开", ("加班", "怕")),
    ("出差多，线下班能改成线上上课吗", ("出差",)),
])
def test_context_words_are_the_askers_self_description(corpus_index, question, context):
    analyzer = analyzer_for(corpus_index, glossary=load_starter())
    assert analyzer.context_words(question, load_starter()) == context
    assert not set(context) & {t.text for t in analyzer.terms(question, load_starter())}


@pytest.mark.parametrize("question", [
    "学费能不能分期付款",                 # one clause: nothing to set aside
    "我想分期付款 学费可以这样交吗",       # the asking clause points back with 这
    "有事缺了一节课 能补上吗",             # the asking clause names too little to stand alone
    "我想把聊天记录删掉 能删吗",           # 删 recurs in the asking clause
    "分期付款，学费可以吗",                # the asking clause names only 学费
])
def test_context_words_leave_the_topic_counted(corpus_index, question):
    analyzer = analyzer_for(corpus_index, glossary=load_starter())
    assert analyzer.context_words(question, load_starter()) == ()


def test_assess_answers_past_the_self_description_and_says_so(corpus_index):
    glossary = load_starter()
    question = "出差多，线下班能改成线上上课吗"
    decide = decider(corpus_index, glossary)
    d = decide(question, retrieve(question, corpus_index, 3), 0.01)
    assert d.answerable and d.context_terms == ("出差",)
    assert "“出差”只出现在说明自身情况的分句里，没有计入" in d.reason
    assert not decide("出差多的人能办分期付款吗", retrieve("出差多的人能办分期付款吗", corpus_index, 3), 0.01).answerable
