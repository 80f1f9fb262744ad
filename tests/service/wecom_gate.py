"""One gate through WeChat: questions sent as students' WeChat messages through the channel (scripted WeCom server,
real HTTP, the channel's own pull, StudentDesk.message and send_msg) against `xiaoe ask --json` on the same data.

Under every policy a refusal goes out (the refusal text); under `auto` an answer a check flagged is held (the student
gets the acknowledgement) and any other goes out; under `all` every answer is held. `compare` says, per question, what WeChat did
and what `xiaoe ask --json` decided; they agree when the decision is the same and what the student read is the
answer `xiaoe ask` wrote.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from contextlib import redirect_stdout
from dataclasses import dataclass

from core.cli import main
from tests.service.wecom_rig import KFID, Rig

REFUSED, HELD, ANSWERED = "refused", "held", "answered"


@dataclass(frozen=True)
class Compared:
    question: str
    wechat: str  # what the channel did: refused, held, answered
    cli: str  # what `xiaoe ask --json` decided under the same policy
    read_as_cli: bool  # the student read what `xiaoe ask` wrote (the refusal, the acknowledgement, the answer)

    @property
    def agrees(self) -> bool:
        return self.wechat == self.cli and self.read_as_cli


def ask_json(question: str) -> dict:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["ask", question, "--json", "--no-queue"]) == 0
    return json.loads(out.getvalue())


def cli_decision(found: dict, policy: str) -> str:
    """The decision under `policy` ("auto" or "all") from what `xiaoe ask --json` found: a refusal goes out under
    every policy; `all` holds every answer, `auto` only what a check flagged."""
    if found["refused"]:
        return REFUSED
    return HELD if policy == "all" or found["problems"] else ANSWERED


def send_all(rig: Rig, questions: Sequence[str], prefix: str) -> None:
    """Each question from its own student, all announced by one callback; the channel runs until all are done."""
    for n, question in enumerate(questions):
        rig.fake.say(KFID, f"{prefix}{n}", question)
    rig.notify()
    while True:
        rig.turn(1)
        if not rig.inbox.pending(KFID) and not rig.outbox.due(KFID):
            return


def compare(rig: Rig, questions: Sequence[str], prefix: str, policy: str) -> list[Compared]:
    send_all(rig, questions, prefix)
    out = []
    for n, question in enumerate(questions):
        user = f"{prefix}{n}"
        exchange = rig.desk.conversations.thread(rig.inbox.conversation(KFID, user))[-1]
        texts = rig.fake.texts(user)
        found = ask_json(question)
        cli = cli_decision(found, policy)
        out.append(Compared(question, exchange.status, cli, read_as(texts, cli, found["answer"], rig)))
    return out


def read_as(texts: list[str], cli: str, answer: str, rig: Rig) -> bool:
    """The student read what `xiaoe ask` decided: the acknowledgement of a held answer, else its text (an answer
    followed by its sources written out, as WeChat shows no links)."""
    if cli == HELD:
        return texts == [rig.settings.hold_ack_text]
    if len(texts) != 1:
        return False
    return texts[0] == answer.strip() or texts[0].startswith(answer.strip() + "\n\n出处：\n[")
