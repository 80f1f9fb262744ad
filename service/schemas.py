"""The JSON shapes of the API, for validation and for the OpenAPI page at /docs (the values come from core)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    user: str = Field(description="学员在 App 里的唯一编号（同一学员每次必须相同）")
    conversation_id: str | None = Field(default=None, description="会话编号；新会话传 null，之后传回返回的编号")
    client_msg_id: str = Field(description="App 为这条消息生成的唯一编号；重试时原样再传，不会重复作答")
    query: str = Field(description="学员的原话")


class CitationOut(BaseModel):
    n: int
    file: str
    section: str


class ChatMessageOut(BaseModel):
    message_id: str
    conversation_id: str
    status: Literal["answered", "held", "refused", "handed_off"]
    answer: str
    citations: list[CitationOut]
    reused: bool


class ReleasedOut(BaseModel):
    message_id: str
    reply_to: str | None
    status: str
    answer: str
    citations: list[CitationOut]
    released_at: str


class MessagesOut(BaseModel):
    data: list[ReleasedOut]
    has_more: bool
    next_cursor: str | None


class FeedbackIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    user: str
    rating: Literal["like", "dislike"] | None = Field(description="like、dislike，或 null 撤回")
    reasons: list[str] = Field(default_factory=list, description="答非所问、信息不对、信息不全、和我的情况不符、看不懂、资料过期、其他")
    content: str | None = None


class FeedbackOut(BaseModel):
    result: Literal["success"]
    feedback: dict


class ErrorOut(BaseModel):
    code: str
    message: str


class HealthOut(BaseModel):
    status: str
    corpus: str
    database: str
