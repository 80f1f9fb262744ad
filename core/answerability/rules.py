"""The registry of answerability term rules: their names, the stage each acts at, the order, the switches.

`RULES` is the program: the analyzer (core.answerability.terms.TermAnalyzer) runs, at each stage of
`STAGES`, the rules registered for that stage in the order they are listed here, and nothing else.
The functions live in core.answerability.term_rules and core.answerability.message_rules (the decide stage's one
rule in core.answerability.asked, which the gate's measuring runs: core.answerability.decision.asked_check, with the
`bind` stage's rules handed to it); each
stage has one call shape (`STAGES` says which). `RuleSet` says which rules are on; `parse_rules` reads the
XIAOE_ANSWERABILITY_RULES syntax (core.settings carries the value): empty (all on), `-recut,-units`
(all but these), `none`, or an explicit list of the rules to keep on. An unknown name is refused with a
Chinese message naming it. This module decides nothing itself and must not import the analyzer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from core.answerability import asked, message_rules, term_rules
from core.errors import ConfigError

ENV_NAME = "XIAOE_ANSWERABILITY_RULES"

# Where a rule acts, in the order a question passes through them, with the call shape of its function.
STAGES = {
    "setup": "() -> 额外整词：建分析器时加进分词词典、且不算关键词的多字词",
    "words": "() -> 整词：建分析器时加进分词词典、照常算关键词的多字词（词典里以它开头、比它生僻的词让位）",
    "message": "(question) -> question：改写学员打的原话",
    "fold": "(text) -> text：分词前改写折叠后的文字",
    "cut": "(analyzer, text) -> tokens：代替默认的结巴分词（第一条生效）",
    "tokens": "(analyzer, tokens, glossary, folds) -> tokens：改写整串词",
    "token": "(analyzer, token, glossary) -> pieces | None：重切一个粘连的词（第一条适用的生效）",
    "weight": "(word) -> bool：True 表示这个词虽被标为虚词也算关键词",
    "terms": "(question, terms, case) -> 背景词：这些词不计入关键词（case：学员情况读取器读出的情况，没读时为 None）",
    "retrieve": "(question, hits, search, asked, every_level) -> hits：检索之后、排序之前，按问的内容补检索（search：同一个检索；"
                "every_level：每一级都一样的句子，和去掉级别名的问题）",
    "decide": "(question, terms, asked, ranked) -> 检查 | None：闸门判断时另加的一项（按候选片段量好，不看参数）",
    "rank": "(ranked, check) -> (ranked, check)：按问的内容把候选片段重新排序（检查是 decide 阶段量好的）",
    "bind": "(question, subject, asked) -> 几组词：写了所问内容的句子，周围还要有每一组的主词（组里权重 × 专指度最大的词）",
    "credit": "(terms, texts, credits) -> {词: 覆盖}：命中片段里按一句话补算的覆盖（credits：照常算出的覆盖）",
    "cover": "(question, sentences) -> 文字：关键词覆盖除了命中片段还按哪些资料原句算（sentences：学员情况的计算要引用的原句）",
}


@dataclass(frozen=True)
class Rule:
    """One named rule: the stage it acts at, what it does in the consultant's words, and the function
    that is the rule (its docstring gives an example it fixes and one it must not break). `lookup`, when
    set, also decides whether a word occurs in the corpus: `(analyzer, word) -> bool | None`."""

    name: str
    stage: str
    summary_zh: str
    function: Callable[..., object]
    lookup: Callable[..., bool | None] | None = None

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise ValueError(f"rule {self.name!r}: unknown stage {self.stage!r}")


# In the order the analyzer applies them, stage by stage. Seven earlier rules (recut, units,
# glossary_weight, longer_terms, specificity, gapped_credit, pair_credit) were removed: switched off one
# at a time they changed nothing or cost nothing on the blind sets v6 and v7 (docs/answerability.md,
# the ablation table).
RULES: tuple[Rule, ...] = (
    Rule("question_frames", "setup", "多词问句框架（叫什么名字、是什么意思）整词切出、不算关键词", term_rules.question_frames),
    Rule("exam_names", "words", "常见考试名称（雅思、托福、托业）整词切出：雅思考到 6.5 分 → 雅思 / 考 / 到", term_rules.exam_names),
    Rule("courtesy", "message", "客套话和聊天用语（老师好、在吗、谢谢、麻烦问下、亲、哈）不算关键词", message_rules.courtesy),
    Rule("a_not_a", "fold", "正反问折回原词：包不包括 → 包括", term_rules.a_not_a),
    Rule("latin_words", "cut", "连续的拉丁字母整词切出，不从中间切开：apple 不会切成 app + le", message_rules.latin_words,
         lookup=message_rules.latin_in_corpus),
    Rule("homophones", "tokens", "资料里没有的词按读音（带声调、字数相同）当作资料里的词：学废 → 学费", message_rules.homophones),
    Rule("glossary_phrases", "tokens", "拼出同义词的几个词合成一个：小 / e → 小E", term_rules.glossary_phrases),
    Rule("boundary", "tokens", "跨过词界切错的相邻两个词重切，让两边都是资料里的词：四 / 级差 → 四级 / 差", term_rules.boundary),
    Rule("numeral_nouns", "token", "数量短语取出名词：一个班 → 班", term_rules.numeral_nouns),
    Rule("numeral_units", "token", "数字和量词粘在一起的（五节、七次课）拆成数字和资料里的量词：五节 → 五 / 节", term_rules.numeral_units),
    Rule("resultatives", "token", "动词 + 结果补语只留动词：交完 → 交", term_rules.resultatives),
    Rule("resplit", "token", "粘在一起的虚词和资料词拆开：那本书 → 书", term_rules.resplit),
    Rule("numeral_topics", "weight", "一对一、一对二这类班型算关键词", term_rules.numeral_topics),
    Rule("self_description", "terms", "只出现在说自己情况的分句里的资料外的词不计入", term_rules.self_description),
    Rule("case_words", "terms", "问退费、转班、差价并给了自己数字的问题里，学员说自己情况的词（联报、原价、学费加教材）不计入",
         term_rules.case_words),
    Rule("circumstance_words", "terms", "学员把自己的情况说全了（交了多少或级别、上了多少；哪一次转班；从哪一级到哪一级）时，资料和同义词表都没有的词是处境，不计入；"
         "提问的分句里的词照算（只问金额的分句里，名词照算）", term_rules.circumstance_words),
    Rule("figure_words", "terms", "学员把自己的情况说全了时，组成学员数字的字（「上了2节」的节、「交了N元」的交）由学员情况读取器读进情况里，不计入",
         term_rules.figure_words),
    Rule("every_level", "retrieve", "问某一级的课时、时长这类每一级都一样的数时，写着「每一级都是 16 课时」的片段按去掉级别名的问法打分："
         "一级一共多少课时 能检索到这句，而不是只看到列着一级学费的片段", asked.every_level_rescored),
    Rule(asked.RULE_NAME, "decide", "问的是金额、时长、年份、人、地点……时，命中片段里要有一句写了它、且说的是问题问的那件事",
         asked.check_asked),
    Rule("asked_rank", "rank", "问的是金额、时长、课时数……时，有一句写了它、且说的是问题问的那件事的片段排在前面（别的片段排序分打对折）："
         "三级多少课时先看到「每一级都是 16 课时」，而不是列着三级学费的片段", asked.rank_by_asked),
    Rule("asked_sides", "bind", "问时长、金额时，问法词前面说的事（保留学籍的申请）和后面说的动作（批下来）要各自出现在写了时长、金额的句子周围："
         "退费的审核时间回答不了保留学籍要审多久", asked.asking_sides),
    Rule("asked_repeat", "bind", "问又一次的价钱（再测一回、第二次）时，写了金额的句子周围要说到又一次（从第二次起、每次）："
         "「一次免费的分级测试」回答不了再测一回要多少钱", asked.asked_repeat),
    Rule("day_scope", "credit", "问题说的某天、某个时段（周末、星期天、晚上）由写着「每天」、又有问题里别的关键词的那句话覆盖："
         "「人工服务时间为每天 9:00–21:00」回答得了周末有没有人工，回答不了周末有没有班", term_rules.day_scope),
    Rule("fact_sentences", "cover", "问自己情况算出来的金额（退费、转班、差价）时，计算要引用的资料原句（该级学费、课时、每周课时、手续费、差价规则）"
         "也算覆盖：回答会引用这些句子", term_rules.fact_sentences),
)
RULE_NAMES: tuple[str, ...] = tuple(rule.name for rule in RULES)
_SEPARATORS = re.compile(r"[\s,，、]+")


@dataclass(frozen=True)
class RuleSet:
    """The rules switched on; `on(name)` is how the analyzer asks (a typo in `name` raises)."""

    enabled: frozenset[str] = frozenset(RULE_NAMES)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.enabled) - set(RULE_NAMES))
        if unknown:
            raise ConfigError(_unknown_message(unknown))

    def on(self, name: str) -> bool:
        if name not in RULE_NAMES:
            raise KeyError(name)
        return name in self.enabled

    def at(self, stage: str) -> tuple[Rule, ...]:
        """The rules switched on at `stage`, in the registry's order: what the analyzer runs there."""
        if stage not in STAGES:
            raise KeyError(stage)
        return tuple(rule for rule in RULES if rule.stage == stage and rule.name in self.enabled)

    def lookups(self) -> tuple[Callable[..., bool | None], ...]:
        """The corpus lookups of the rules switched on, in the registry's order."""
        return tuple(rule.lookup for rule in RULES if rule.lookup is not None and rule.name in self.enabled)

    def without(self, *names: str) -> RuleSet:
        return RuleSet(self.enabled - set(names))

    @property
    def disabled(self) -> tuple[str, ...]:
        return tuple(name for name in RULE_NAMES if name not in self.enabled)

    @property
    def label(self) -> str:
        """`全部规则` or `全部规则，除了 recut、units` — how a run names its rules."""
        if not self.disabled:
            return "全部规则"
        if not self.enabled:
            return "不用任何规则"
        return f"全部规则，除了 {'、'.join(self.disabled)}"


ALL_RULES = RuleSet()


def _unknown_message(unknown: list[str]) -> str:
    return (f"可答性规则设置 {ENV_NAME} 里有不认识的规则：{'、'.join(unknown)}。"
            f"可用的规则：{', '.join(RULE_NAMES)}。写法：留空表示全部启用；“-recut,-units”表示关掉这两条；"
            f"“none”表示全部关掉；也可以直接列出要启用的规则。")


def parse_rules(spec: str | None) -> RuleSet:
    """A RuleSet from `spec` (see the module docstring); raises ConfigError in Chinese on bad input."""
    items = [item for item in _SEPARATORS.split((spec or "").strip()) if item]
    if not items or items == ["all"]:
        return ALL_RULES
    if items == ["none"]:
        return RuleSet(frozenset())
    off = [item[1:] for item in items if item.startswith("-")]
    keep = [item.lstrip("+") for item in items if not item.startswith("-")]
    unknown = sorted({name for name in (*off, *keep) if name not in RULE_NAMES})
    if unknown:
        raise ConfigError(_unknown_message(unknown))
    if off and keep:
        raise ConfigError(f"可答性规则设置 {ENV_NAME}（{spec}）不能同时列出要关掉的规则（带 -）和要启用的规则："
                          "要么全部带 -（关掉这些），要么一个都不带（只启用这些）。")
    if off:
        return ALL_RULES.without(*off)
    return RuleSet(frozenset(keep))
