"""Each answerability term rule: the question it fixes and the one it must not break, rule on vs off."""

from __future__ import annotations

import functools

import pytest

from core.answerability.glossary import load_starter
from core.answerability.rules import ALL_RULES, ENV_NAME, RULE_NAMES, RULES, STAGES, Rule, RuleSet, parse_rules
from core.answerability.terms import TermAnalyzer
from core.assistant import build_assistant
from core.case import read_case
from core.cli import main
from core.errors import ConfigError
from core.language.text import normalize
from core.settings import Settings
from tests.school import shipped_facts

GLOSSARY = load_starter()


@pytest.fixture(scope="module")
def analyzer(corpus_index):
    """analyzer(rules) over the shipped corpus with the starter glossary, one per rule set."""

    @functools.cache
    def build(rules: RuleSet = ALL_RULES) -> TermAnalyzer:
        return TermAnalyzer.from_chunks(corpus_index.chunks, extra_words=GLOSSARY.phrases, rules=rules)

    return build


def words(analyzer: TermAnalyzer, question: str) -> list[str]:
    return [t.text for t in analyzer.terms(question, GLOSSARY)]


def on_off(analyzer, rule: str, question: str) -> tuple[list[str], list[str]]:
    return words(analyzer(), question), words(analyzer(ALL_RULES.without(rule)), question)


# (rule, question it fixes: a word it removes or adds, question it must not break: a word that stays)
FIXES = [
    ("exam_names", "雅思考到6.5分要报多久", "+雅思"),
    ("exam_names", "托福考多少分", "+托福"),
    ("a_not_a", "学费里面包不包括书的钱", "-面包"),
    ("question_frames", "二级叫什么名字", "-名字"),
    ("glossary_phrases", "小E都能回答些什么", "+小e"),
    ("boundary", "三级跟四级差多少钱", "-级差"),
    ("numeral_nouns", "一个班几个人啊", "+班"),
    ("numeral_units", "商务级 上了五节 能退多少", "-五节"),
    ("numeral_units", "上了六节了想退", "+节"),
    ("resultatives", "交完钱多久能开课", "-交完"),
    ("resplit", "那本书的钱退不退", "-那本书"),
    ("numeral_topics", "一对一课多少钱", "+一对一"),
    ("courtesy", "麻烦问下入门级学费多少钱谢谢老师", "-谢谢"),
    ("courtesy", "老师您好，一共有几级", "-老师"),
    ("courtesy", "亲 一共有几级", "-亲"),
    ("courtesy", "流利级学费多少啊老师", "-老师"),      # addressed after the final particle
    ("latin_words", "就认得apple banana这种单词", "+apple"),
    ("homophones", "入门级学废多少钱", "+学费"),
    ("homophones", "退废申请交上去了", "+退费"),
]
KEEPS = [
    ("exam_names", "三级学费多少", "三级"),
    ("a_not_a", "不退费的情形有哪些", "退费"),
    ("question_frames", "想找真人客服怎么弄", "真人客服"),
    ("glossary_phrases", "学生有学生价吗", "学生价"),
    ("boundary", "二级转三级要补多少", "三级"),
    ("numeral_nouns", "一起上课可以吗", "上课"),
    ("numeral_units", "商务级五千六 能退多少", "五千六"),
    ("numeral_units", "交了5880 能退多少", "5880"),
    ("resultatives", "上完商务级能保证找到工作吗", "上完"),
    ("resplit", "有证书吗", "证书"),
    ("resplit", "你们有日语课吗", "日语课"),  # 日 (tagged a numeral) counts nothing: not 日 + 语课 of 口语课
    ("numeral_topics", "一个人能报吗", "报"),
    ("courtesy", "有外教老师吗", "老师"),
    ("courtesy", "父亲可以代办吗", "父亲"),
    ("courtesy", "能不能自己挑老师", "老师"),            # no final particle before it: asked about
    ("latin_words", "能用ipad上课吗", "ipad"),
    ("homophones", "雅思班有吗", "雅思"),
    ("homophones", "托福课多少钱", "托福"),
    ("homophones", "学费能分期吗", "分期"),
]


@pytest.mark.parametrize(("rule", "question", "change"), FIXES)
def test_rule_fixes_its_example(analyzer, rule, question, change):
    on, off = on_off(analyzer, rule, question)
    word = change[1:]
    if change.startswith("+"):
        assert word in on and word not in off
    else:
        assert word not in on and word in off


@pytest.mark.parametrize(("rule", "question", "word"), KEEPS)
def test_rule_does_not_break_its_counter_example(analyzer, rule, question, word):
    on, off = on_off(analyzer, rule, question)
    assert word in on and word in off


def test_self_description_leaves_out_background_but_not_a_pointing_back_clause(analyzer):
    assert analyzer().context_words("我闺女测出来是二级，学费得交多少", GLOSSARY) == ("闺女",)
    assert analyzer(ALL_RULES.without("self_description")).context_words("我闺女测出来是二级，学费得交多少",
                                                                          GLOSSARY) == ()
    assert analyzer().context_words("我想分期付款 学费可以这样交吗", GLOSSARY) == ()


@pytest.mark.parametrize(("question", "context"), [
    ("我是二级 联报实付3800 上了两节课 退费多少", ("联",)),
    # (「学费加教材」: 加教材 is a glossary phrase of 教材费 since round 17, no context word)
    # where the course is, told without a figure (a refund before the start)
    ("流利级原价报的，还没开始上，想退，能拿回多少", ("原价",)),
    # (「四级上了七个星期了」: 星期 is a glossary word of 每周 since round 17, no context word; the gate answers it:
    # test_asked_rule.py::test_round17_colloquial_words_of_stated_facts_are_answered)
    # the slots moved between, in a question asking a transfer
    ("我二级上了4节课，想从周末班换到周三晚上的班，第一次转班，要钱吗", ("周末", "周三", "晚上")),
    ("入门级才上了一节 想从晚上班换到周末班 头一回转 收钱吗", ("头一回", "晚上", "周末")),
    ("入门级 开课后上了1节想换个晚上的时段 头一回转 要钱不", ("头一回", "晚上")),
    # the L of a level the case reader reads (L3 = 三级)
    ("L3 上了一节 不想学了 退多少", ("l",)),
    ("L1转L2要补多少差价", ("l",)),
])
def test_case_words_leave_out_how_a_student_tells_their_case(analyzer, question, context):
    assert sorted(analyzer().context_words(question, GLOSSARY)) == sorted(context)
    assert analyzer(ALL_RULES.without("case_words")).context_words(question, GLOSSARY) == ()


@pytest.mark.parametrize("question", [
    "有联报优惠吗",  # no computation asked
    "学费加教材多少钱",  # no refund, transfer or difference asked
    "我交了4800 转到雅思班要补多少",  # 雅思 is no word of a student's case
    "原价报的能退吗",  # neither a figure nor where the course is: 原价 still counts
    "周末班能退费吗",  # no case told: 周末 still counts
    "周末班 上了3节 能退多少",  # a refund, not a transfer: the slot still counts
    "星期六能办退费吗 上了3节",  # 星期 is no unit of a figure here
    "有L5吗",  # no computation asked: the L still counts
])
def test_case_words_keep_what_the_question_asks_about(analyzer, question):
    assert analyzer().context_words(question, GLOSSARY) == ()


def circumstances(analyzer, question: str, rules: RuleSet = ALL_RULES) -> tuple[str, ...]:
    """The words left out of `question` with the student's case read by the one case reader (shipped facts)."""
    return analyzer(rules).context_words(question, GLOSSARY, case=read_case(question, shipped_facts()))


@pytest.mark.parametrize(("question", "word"), [
    # a refund with the amount paid and the lessons taken, typed as one clause (self_description sees no clauses)
    ("三级交了4800上了两节课最近加班太多想退能退多少", "加班"),
    ("入门级交了3600才上了一节搬家了能退多少", "搬家"),
    # 「好几个月」 tells a span, it does not ask one
    ("四级交了5600，上了3节，单位要我去新加坡培训好几个月，想退，能退多少", "新加坡"),
    # before the start, told by where the course is
    ("二级交了4200 还没开课 奶奶病了 能退多少", "奶奶"),
    # a level difference with both levels
    ("我是二级的 交了4200 上了两节 家里有事 想转到一级 差价多少", "家里"),
    # in the clause asking only the computed amount, a word jieba does not take for a noun is how the student asks
    ("二级交了4200 上了6节课 想退 帮我瞅瞅能退多少", "瞅"),
])
def test_circumstance_words_leave_out_what_a_student_tells_beside_a_whole_case(analyzer, question, word):
    assert word in circumstances(analyzer, question)
    assert word not in circumstances(analyzer, question, ALL_RULES.without("circumstance_words"))
    assert word in words(analyzer(), question)  # without the case read, nothing is left out
    assert word not in [t.text for t in analyzer().terms(question, GLOSSARY, case=read_case(question, shipped_facts()))]


@pytest.mark.parametrize(("question", "word"), [
    ("二级交了4200 上了6节 退款能打到支付宝吗", "支付宝"),  # the ask (a yes/no clause) names it
    ("二级交了4200 上了6节 退费的话快递费多少", "快递费"),  # a noun in the clause asking an amount is what is asked
    ("二级 想转到雅思班 要补多少", "雅思"),  # no level to move to: the case is not whole
    ("上了3节 出差了 能退多少", "出差"),  # neither an amount paid nor a level
    ("三级交了4800 上了两节 出差了 学费能分期吗", "分期"),  # no refund, transfer or difference asked
    ("二级交了4200 上了6节课 想退 能退多少 另外停车费怎么报销", "停车费"),  # a second ask: a way of doing
    ("二级交了4200上了6节 能退多少 停车费呢", "停车费"),  # a clause ending in 呢 asks
])
def test_circumstance_words_keep_what_the_question_asks_about(analyzer, question, word):
    assert word not in circumstances(analyzer, question)
    assert word in [t.text for t in analyzer().terms(question, GLOSSARY, case=read_case(question, shipped_facts()))]


@pytest.mark.parametrize(("question", "word"), [
    ("孩子骨折了要在家休息两个月 能保留学籍吗", "骨折"),
    ("公司让我去外省驻场五个月 能保留学籍不", "驻场"),
])
def test_round19_keeping_ones_place_for_a_span_told_leaves_the_circumstances_out(corpus_index, analyzer, question,
                                                                                  word):
    """The span away told, the documents' rule (最长保留 6 个月) answers; how the student says why is circumstance."""
    assert word in circumstances(analyzer, question)
    assert decide(corpus_index, question).answerable
    assert not decide(corpus_index, question, "-circumstance_words").answerable


@pytest.mark.parametrize("question", ["我四级交了5600，上了2节，能退多少", "流利级付了4800 上了3堂 能退多少钱"])
def test_round19_the_words_making_the_students_figures_are_the_case_readers(corpus_index, analyzer, question):
    """节 of 「上了2节」 and 交 of 「交了5600」 are read into the case the documents compute from."""
    left_out = circumstances(analyzer, question)
    assert {"节", "交"} & set(left_out) or {"堂", "付"} & set(left_out)
    assert decide(corpus_index, question).answerable
    assert not decide(corpus_index, "我四级交了5600，上了2节，能退多少", "-figure_words").answerable
    assert "节" not in circumstances(analyzer, "节假日有课吗")  # no case told


def test_round19_keeping_ones_place_without_a_span_or_asking_the_word_keeps_it(analyzer):
    from core.case.intent import KEEP_PLACE, told

    no_span = "我得了肺炎要休养，学籍能保留吗"
    assert told(read_case(no_span, shipped_facts()), no_span) is None  # no span told: no case to answer from
    asked = "我要去外省驻场4个月，学籍能保留吗，驻场补贴怎么算"
    assert told(read_case(asked, shipped_facts()), asked) == KEEP_PLACE
    assert "驻场" not in circumstances(analyzer, asked)  # the asking clause names it


def test_circumstance_words_let_the_gate_compute_a_whole_case(corpus_index):
    question = "入门级交了3600才上了一节搬家了能退多少"
    decision = decide(corpus_index, question)
    assert decision.answerable and "搬家" in decision.context_terms
    assert not decide(corpus_index, question, "-circumstance_words").answerable
    assert not decide(corpus_index, "四级交了5600 才上了3节 想退 退款能打到支付宝吗").answerable


@pytest.mark.parametrize("question", [
    # 分级测试 pulls retrieval to the placement test; the levels and 差价/补 are in the sentences the difference cites
    "做完分级测试报了二级 现在想换到四级 差价要补多少",
    "分级测试完报的一级 后来想转去二级 得补多少差价",
])
def test_fact_sentences_count_what_the_computation_cites(corpus_index, question):
    on = decide(corpus_index, question)
    off = decide(corpus_index, question, "-fact_sentences")
    assert on.answerable, on.reason
    assert not off.answerable  # the refund or transfer chunks ranked first do not name the level
    assert on.coverage > off.coverage


@pytest.mark.parametrize("question", [
    "二级交了4200 上了6节 退款能打到支付宝吗",  # a computed case, but the documents name no 支付宝
    "流利级的学费能用花呗分期吗",  # no figure of the student's: no computation, nothing added
    "入门级上了两周 老师是外教吗",  # a case told, but no refund, transfer or difference asked
    "上完一级想升到三级 还用重新做分级测试吗",  # a move between levels, but no amount asked
])
def test_fact_sentences_never_answer_what_the_documents_lack(corpus_index, question):
    assert not decide(corpus_index, question).answerable


def test_fact_sentences_only_normalise_the_sentences_given():
    from core.answerability.term_rules import fact_sentences

    said = ["入门级（一级）：3600 元。", "每周上 2 课时。"]
    assert fact_sentences("入门级上了两周 能退多少", said) == tuple(normalize(s) for s in said)
    assert fact_sentences("入门级上了两周 能退多少", []) == ()
    assert fact_sentences("一级学完了想升二级 还要再做分级测试吗", said) == ()  # no amount asked


def test_latin_words_reach_the_glossary_and_unknown_ones_stay_absent(analyzer):
    terms = {t.text: t for t in analyzer().terms("你们口语课一共分几个level啊 课能先hold住吗", GLOSSARY)}
    assert terms["level"].forms == ("level", "级") and terms["level"].known
    assert terms["hold"].forms == ("hold", "保留学籍") and "住" not in terms
    ipad = {t.text: t for t in analyzer().terms("能用ipad上课吗", GLOSSARY)}["ipad"]
    assert not ipad.known and ipad.weight > 0.42  # weighs more than the absent-word limit: refused
    assert not analyzer().in_corpus("pp")  # a Latin word counts only whole (the corpus says App)
    assert analyzer().in_corpus("app")


def test_homophones_only_fold_a_tone_exact_corpus_word_and_never_across_a_known_word():
    toy = TermAnalyzer.from_chunks(["可以免费转班一次。转班要交手续费。转班以后不能退，手续费不退。"])
    assert {t.text: t.typed for t in toy.terms("转斑要多少钱")}["转班"] == "转斑"
    assert "转班" not in [t.text for t in toy.terms("转办要多少钱")]  # zhuan3 ban4: another tone
    # 手续废 sounds like 手续费, but 手续 is a word the corpus knows: the fold never spans it
    assert toy.homophone("手续废") == "手续费"
    assert "手续费" not in [t.text for t in toy.terms("转班手续废多少")]
    off = TermAnalyzer.from_chunks(["可以免费转班一次。转班要交手续费。转班以后不能退，手续费不退。"],
                                   rules=ALL_RULES.without("homophones"))
    assert "转班" not in [t.text for t in off.terms("转斑要多少钱")]


def decide(corpus_index, question: str, rules: str = ""):
    """The one gate's decision, as the console composes it (calibrated knobs, starter glossary)."""
    assistant = build_assistant(Settings(answerability_rules=rules), corpus_index, GLOSSARY)
    return assistant.gate(assistant.retrieve(question)).decision


def test_homophone_answer_says_how_it_read_the_word(corpus_index):
    decision = decide(corpus_index, "入门级学废多少钱")
    assert decision.answerable
    assert "“学废”按读音当作“学费”" in decision.reason
    assert not decide(corpus_index, "入门级学废多少钱", rules="-homophones").answerable
    assert not decide(corpus_index, "入门级学废多少钱", rules=Settings.load({ENV_NAME: "-homophones"})
                      .answerability_rules).answerable


@pytest.mark.parametrize("question", ["学费能分期付款吗", "有雅思班吗", "托福课多少钱", "能用ipad上课吗",
                                      "有外教老师吗"])
def test_near_misses_stay_refused_with_the_typed_message_rules(corpus_index, question):
    assert not decide(corpus_index, question).answerable


def test_every_registered_rule_is_a_function_with_its_two_examples():
    from core.answerability.rules import RULES

    for rule in RULES:
        doc = rule.function.__doc__ or ""
        assert "Fixes" in doc and "Must not break" in doc, rule.name
    assert {rule for rule, *_ in FIXES} | {"self_description", "case_words", "circumstance_words", "figure_words",
                                           "asked_attribute", "asked_rank", "asked_sides", "fact_sentences",
                                           "every_level", "day_scope", "asked_repeat"} == set(RULE_NAMES)


def test_rule_switches_parse_and_refuse_unknown_names_in_chinese():
    assert parse_rules("") == parse_rules("all") == ALL_RULES
    assert parse_rules("-resplit, -a_not_a").disabled == ("a_not_a", "resplit")
    assert parse_rules("a_not_a,courtesy").enabled == frozenset({"a_not_a", "courtesy"})
    assert parse_rules("none").enabled == frozenset()
    with pytest.raises(ConfigError, match="不认识的规则：recut"):  # removed: named as unknown
        parse_rules("-recut")
    with pytest.raises(ConfigError, match="不能同时"):
        parse_rules("-resplit,courtesy")
    assert parse_rules(Settings.load({ENV_NAME: "-homophones"}).answerability_rules).disabled == ("homophones",)
    assert set(RULE_NAMES) >= {"courtesy", "latin_words", "homophones", "resplit", "self_description"}


def test_cli_names_an_unknown_rule_instead_of_a_traceback(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("XIAOE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv(ENV_NAME, "-no_such_rule")
    assert main(["eval"]) == 1
    err = capsys.readouterr().err
    assert "不认识的规则：no_such_rule" in err and "Traceback" not in err


def test_the_analyzer_runs_the_registry_stage_by_stage_in_its_order(corpus_index, monkeypatch):
    """The registry is the program: what runs at each stage is exactly its rules, in their listed order."""
    import core.answerability.rules as registry

    ran: list[str] = []

    def spy(name: str):
        def rule(analyzer, tokens, glossary, folds):
            ran.append(name)
            return tokens
        rule.__doc__ = "Fixes x. Must not break y."
        return rule

    planted = (Rule("second", "tokens", "", spy("second")), Rule("first", "tokens", "", spy("first")))
    monkeypatch.setattr(registry, "RULES", planted)
    monkeypatch.setattr(registry, "RULE_NAMES", ("second", "first"))
    rules = RuleSet(frozenset({"second", "first"}))
    TermAnalyzer.from_chunks(corpus_index.chunks, rules=rules).terms("学费多少")
    assert ran == ["second", "first"]
    ran.clear()
    TermAnalyzer.from_chunks(corpus_index.chunks, rules=RuleSet(frozenset({"first"}))).terms("学费多少")
    assert ran == ["first"]


def test_every_rule_names_a_known_stage_and_each_stage_is_used():
    assert {rule.stage for rule in RULES} <= set(STAGES)
    assert [rule.stage for rule in RULES] == sorted((rule.stage for rule in RULES), key=list(STAGES).index)


# --- credit within one sentence: day_scope ----------------------------------------------------------

def _terms(*pairs):
    from core.values import Term

    return [Term(text, weight, (text,), known) for text, weight, known in pairs]


def test_day_scope_covers_a_day_with_the_sentence_saying_every_day_and_another_word():
    from core.answerability.term_rules import day_scope
    from core.language.text import normalize

    weekend, staff, klass = _terms(("周末", 0.7, False), ("人工", 0.6, True), ("班", 0.7, True))
    hours = normalize("人工服务时间为每天 9:00–21:00")
    assert day_scope([weekend, staff], [hours], {weekend: 0.0, staff: 1.0}) == {weekend: 1.0}
    # the sentence holds no other word of 「周末有班吗」: 周末 stays uncovered
    assert day_scope([weekend, klass], [hours], {weekend: 0.0, klass: 1.0}) == {}
    # a sentence without 每天 covers no day
    assert day_scope([weekend, staff], [normalize("在对话里输入“人工”")], {weekend: 0.0, staff: 1.0}) == {}
    # a word that is no day is never covered this way
    assert day_scope([klass, staff], [hours], {klass: 0.0, staff: 1.0}) == {}


@pytest.mark.parametrize("question", ["周末有人工服务吗", "晚上十点还能找人工吗", "星期天晚上八点还有人工不"])
def test_a_day_is_answered_by_the_every_day_hours(corpus_index, question):
    from core.answerability.glossary import load_starter
    from core.assistant import build_assistant
    from core.settings import Settings

    assistant = build_assistant(Settings(), corpus_index, load_starter())
    outcome = assistant.respond(question)
    assert not outcome.refused and "每天 9:00–21:00" in outcome.answer.text
    off = build_assistant(Settings(answerability_rules="-day_scope"), corpus_index, load_starter())
    assert off.gate(off.retrieve(question)).refused


@pytest.mark.parametrize("question", ["周末有班吗", "周末能办退费吗", "晚上几点上课"])
def test_a_day_no_every_day_sentence_speaks_of_stays_uncovered(corpus_index, question):
    from core.answerability.glossary import load_starter
    from core.assistant import build_assistant
    from core.settings import Settings

    assistant = build_assistant(Settings(), corpus_index, load_starter())
    assert assistant.gate(assistant.retrieve(question)).refused
