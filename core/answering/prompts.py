"""The prompt 小E is sent: rules in the system message, numbered references plus question in the human one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from core.settings import REFUSAL_TEXT

SYSTEM_PROMPT = f"""你是启明英语的 AI 助教「小E」，负责回答学员关于课程和学校制度的提问。

必须遵守：
1. 只能依据下面编号的参考资料作答；参考资料里没有的内容，一个字也不要补充。
2. 每一句涉及课程、费用或制度的话，句末都要标注它依据的资料编号，写成 [1]、[2] 这样的格式。
3. 凡是说到金额，都要写出完整的计算式，不能只报一个结果。
4. 学员在问题里给了自己的数字（实付学费、级别、已上课时、周数、第几次转班等）时：只要参考资料写有计算规则（公式、手续费规则、学费标准、转班收费、学费差价），就必须用学员自己的数字一步一步算出结果，每一步写出算式，最后写出学员的金额，并标出公式、手续费规则和学费各自的资料编号；不要因为要计算而拒答。
5. 资料里的示例只是示例，不能把示例的数字或结果当作这位学员的结果。
6. 会让结果不同的条件（例如已上课时超过规定就不再退费、教材费不退）写成条件，放在计算之后，不要用「不能」开头。算结果还缺学员的某个数字时，说清楚缺的是哪一个。
7. 每一句都要回答学员问的事；不要写资料的适用范围、编写目的这类与问题无关的话。最多 6 句话，使用简体中文。

只有参考资料里既没有答案、也没有能算出答案的规则时，才只回复这一句：{REFUSAL_TEXT}"""

REFERENCES_HEADER = "参考资料："
QUESTION_HEADER = "学员提问："
_REF_BLOCK_RE = re.compile(r"^\[(\d+)\] 《(.*?)》(.*)$", re.MULTILINE)


@dataclass(frozen=True)
class ParsedPrompt:
    """What an answerer reads back out of the human message."""

    question: str
    references: tuple[tuple[int, str], ...]  # (number, text)


def format_references(hits: Sequence[Document]) -> str:
    blocks = []
    for number, doc in enumerate(hits, start=1):
        meta = doc.metadata
        blocks.append(f"[{number}] 《{meta.get('source', '')}》{meta.get('heading', '')}\n{doc.page_content}")
    return "\n\n".join(blocks)


def build_messages(question: str, hits: Sequence[Document]) -> list[BaseMessage]:
    """System rules + one human message holding the numbered references and the question."""
    human = f"{REFERENCES_HEADER}\n\n{format_references(hits)}\n\n{QUESTION_HEADER}{question}"
    return [SystemMessage(content=SYSTEM_PROMPT), HumanMessage(content=human)]


def parse_human_message(content: str) -> ParsedPrompt:
    """Inverse of `build_messages` for the human message (used by the offline answerer)."""
    body, _, question = content.rpartition(f"\n\n{QUESTION_HEADER}")
    body = body.removeprefix(f"{REFERENCES_HEADER}\n\n")
    matches = list(_REF_BLOCK_RE.finditer(body))
    references = []
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        references.append((int(match.group(1)), body[match.end():end].strip("\n")))
    return ParsedPrompt(question=question.strip(), references=tuple(references))
