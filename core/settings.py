"""Every tunable number and path of 小E in one validated, frozen object, read from its sources in one place.

`Settings()` is the defaults (plus any values passed); `Settings.load()` is what a run uses: the
defaults, then `XIAOE_<FIELD>` environment variables, then the same keys from `.streamlit/secrets.toml`
when the console passes them (secrets win), then explicit overrides. Parsing and type checks are
pydantic-settings'; every message a person sees is Chinese and names the variable and the bad value.
The gate's knobs default to the calibrated values in core/data/calibration.json (core.knobs); a default
saved on the tuning page takes precedence at run time (core.stores.defaults.effective_settings), which
the console applies once per run (ui/state.py) and each CLI command once (core.cli).
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import re
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings.sources.utils import parse_env_vars

from core.errors import ConfigError
from core.knobs import MAX_TOP_K, Knobs, calibration
from core.values import Band

PROJECT_ROOT = Path(__file__).resolve().parent.parent
ENV_PREFIX = "XIAOE_"

REFUSAL_TEXT = "这件事资料里没写，我不能替你们编，请转人工。"

# The gate's knobs are calibrated by `python -m core calibrate --write` (core/evaluation/calibration.py), which
# writes core/data/calibration.json; the numbers below are read from there, never copied by hand.
_CALIBRATION = calibration()
DEFAULT_MIN_SCORE = _CALIBRATION.knobs.threshold
DEFAULT_MIN_COVERAGE = _CALIBRATION.knobs.min_coverage
DEFAULT_MAX_UNKNOWN_WEIGHT = _CALIBRATION.knobs.max_unknown_weight
# With the answerability decision off (XIAOE_ANSWERABILITY=off) the ranking score is the only gate,
# as in the seed; its threshold is calibrated separately by the same command.
THRESHOLD_ONLY_MIN_SCORE = _CALIBRATION.threshold_only
DEFAULT_TOP_K = _CALIBRATION.knobs.k
DEFAULT_REUSE_THRESHOLD = _CALIBRATION.reuse_threshold
MAX_QUESTION_CHARS = 2000
# The grader's band (core.answering.grader, docs/grader.md): how far below the coverage floor a question may
# fall, and how heavy its heaviest corpus-absent word may be, and still go to the model. Chosen by
# reasoning, not measured: no real model is available to the project's tests.
GRADER_BAND_COVERAGE = 0.25
GRADER_BAND_UNKNOWN = 0.8
# Sign-in: how long a session may live however active (the idle limit is core.stores.sessions.IDLE_LIMIT), and
# the reverse proxies whose X-Forwarded-For header names the client (core.stores.client_address). Loopback is
# listed by default, as uvicorn (Streamlit's server) does: nginx on the same machine, as docs/deployment.md sets it up.
SESSION_MAX_HOURS = 168.0
MAX_SESSION_MAX_HOURS = 24 * 365
TRUSTED_PROXIES = "127.0.0.1,::1"

# The student service (core.exchanges, docs/service.md): what a student reads while a consultant checks the answer,
# after a handoff, and the standard reply a consultant may send instead of a draft (the product's own words, not the
# school's policy); the per-minute limits every instance counts in the database; the leases that let another
# instance take over a message or a webhook delivery whose instance died.
HOLD_ACK_TEXT = "收到～这个问题小E 先请老师确认一下，确认好会在这里回复你。"
HANDOFF_TEXT = "已为你转人工，老师会在这里回复你。"
STANDARD_REPLY = "这个问题需要老师和你单独确认，请稍等，老师会在这里回复你。"
RATE_USER_PER_MINUTE = 20
RATE_KEY_PER_MINUTE = 1200
SERVICE_PORT = 8502
# The WeCom customer-service channel (service/wecom, docs/wechat.md): WeCom's own API address, what a student reads
# when they send something 小E cannot read (a picture, a voice message, a file) or a text too long to take, and the
# lease one instance holds on an account's pull before another may take it over.
WECOM_API_BASE = "https://qyapi.weixin.qq.com"
WECOM_NONTEXT_REPLY = "收到～小E 目前只能看懂文字消息，请把问题用文字发给我；需要老师看图片或文件的，老师会在这里联系你。"
WECOM_TOO_LONG_REPLY = "这条消息太长了，小E 一次看不完，请分成几条短一点的消息发给我。"
MAX_LEASE_S = 60 * 60  # the longest lease or timeout a setting may name, in seconds
# Conversations, privacy and handoff (#43; docs/service.md, docs/privacy.md): the product's own words and limits.
# The service hours and the retention are school facts read from the documents (core.facts); the settings here
# only override them when set.
SENSITIVE_REPLY = "这条消息里有不适合讨论的内容，小E 没法回答。课程、学费、退费和转班的问题可以继续问我。"
AFTER_HOURS_TEXT = "现在不在人工服务时间（{hours}），老师会在{next}回复你。"
CONVERSATION_IDLE_MINUTES = 30
CONVERSATION_TURNS = 3
SERVICE_TIMEZONE = "Asia/Shanghai"

_KIND_NAMES = {int: "整数", float: "数字", str: "文字", Path: "路径"}
# The sources `Settings.load` reads, for the duration of one construction; `Settings()` reads none.
_SOURCES: ContextVar[tuple[Mapping[str, str], ...]] = ContextVar("settings_sources", default=())


class _MappingSource(EnvSettingsSource):
    """XIAOE_* keys from one mapping (the environment, or st.secrets), parsed the way pydantic-settings
    parses environment variables; empty values count as unset."""

    def __init__(self, settings_cls: type[BaseSettings], mapping: Mapping[str, str]) -> None:
        self._mapping = {k: str(v) for k, v in mapping.items() if k.upper().startswith(ENV_PREFIX)}
        super().__init__(settings_cls, case_sensitive=False, env_prefix=ENV_PREFIX, env_ignore_empty=True)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(self._mapping, False, True, None)


class Settings(BaseSettings):
    """Resolved settings. Build with `Settings.load()` (sources) or `Settings(...)` (defaults + values);
    never mutate, use `with_`."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, frozen=True, extra="ignore", validate_default=True)

    corpus_dir: Path = PROJECT_ROOT / "corpus"
    data_dir: Path = PROJECT_ROOT / "data"
    database_url: str = ""
    min_score: float = DEFAULT_MIN_SCORE
    top_k: int = DEFAULT_TOP_K
    min_coverage: float = DEFAULT_MIN_COVERAGE
    max_unknown_weight: float = DEFAULT_MAX_UNKNOWN_WEIGHT
    chunk_size: int = 160
    chunk_overlap: int = 40
    max_question_chars: int = MAX_QUESTION_CHARS
    retriever: str = "lexical"
    llm_base_url: str = ""
    llm_model: str = ""
    llm_api_key: str = Field(default="", repr=False)
    llm_timeout: float = 30.0
    llm_max_retries: int = 2
    llm_temperature: float = 0.0
    embed_base_url: str = ""
    embed_model: str = ""
    embed_api_key: str = Field(default="", repr=False)
    answerability: str = "on"  # "off": refuse on the per-chunk threshold alone, as the seed did
    # Which term rules run (core.answerability.rules.parse_rules reads it): "" all, "-homophones,-courtesy", "none"
    answerability_rules: str = ""
    # Which student's-case fact kinds run (core.case.kinds.parse_kinds reads it): "" all, "-discount,-rough", "none"
    case_kinds: str = ""
    # Which kinds of "what is asked" are read (core.case.asked.parse_asked reads it): "" all, "-year,-person", "none"
    asked_kinds: str = ""
    auth: str = "on"  # "off" only for a local single-user demo or tests: no login gate
    grader: str = "off"  # "band": a configured chat model grades the uncertain band (core.answering.grader)
    grader_band_coverage: float = GRADER_BAND_COVERAGE
    grader_band_unknown: float = GRADER_BAND_UNKNOWN
    session_max_hours: float = SESSION_MAX_HOURS
    trusted_proxies: str = TRUSTED_PROXIES
    reuse: str = "on"  # "off": never answer from approved answers (to measure the gate alone)
    reuse_threshold: float = DEFAULT_REUSE_THRESHOLD  # core.reuse.match similarity an approved answer needs
    hold_ack_text: str = HOLD_ACK_TEXT
    handoff_text: str = HANDOFF_TEXT
    standard_reply: str = STANDARD_REPLY  # several, separated by 「|」: the consultant picks one
    rate_user_per_minute: int = RATE_USER_PER_MINUTE  # per student (per key); 0 = no limit
    rate_key_per_minute: int = RATE_KEY_PER_MINUTE  # per key, all its students together; 0 = no limit
    service_threads: int = 0  # threads answering the student service's requests at once, per process; 0: answering_threads
    webhook_lease_s: float = 30.0  # a webhook POST not marked sent within this is sent again (same delivery_id)
    webhook_timeout_s: float = 10.0
    # WeChat (微信客服 through WeCom); the channel is on when wecom_corp_id is set (docs/wechat.md)
    wecom_corp_id: str = ""
    wecom_secret: str = Field(default="", repr=False)  # the 微信客服 Secret (gettoken's corpsecret)
    wecom_token: str = Field(default="", repr=False)  # the callback Token (signatures)
    wecom_aes_key: str = Field(default="", repr=False)  # the callback EncodingAESKey, 43 characters
    wecom_open_kfids: str = ""  # the 客服账号 IDs 小E answers, separated by commas
    wecom_api_base: str = WECOM_API_BASE
    wecom_key: str = "wecom"  # the API key whose release policy WeChat messages follow (xiaoe keys add wecom …)
    wecom_servicer: str = ""  # 转人工 hands the session to this 接待人员 userid; empty: to the 待接入池
    wecom_nontext_reply: str = WECOM_NONTEXT_REPLY
    wecom_too_long_reply: str = WECOM_TOO_LONG_REPLY
    wecom_lease_s: float = 30.0  # an account's pull and sends are one instance's until this long after its last sign of life
    wecom_poll_s: float = 60.0  # pull without a callback this often (callbacks can be lost)
    wecom_token_margin_s: float = 300.0  # refresh the access token this long before it expires
    wecom_timeout_s: float = 10.0
    # The errcodes of send_msg that mean "this msgid was already sent" (WeCom's documentation says only that a repeated
    # msgid is refused); with none set, a repeat after a crash is shown as 「可能已发出」, never sent twice.
    wecom_duplicate_errcodes: str = ""
    masking: str = "on"  # personal data masked at the door (core.privacy.mask): on, off, "-qq,-wechat", "mobile,email"
    followup_model: str = "off"  # "on": a configured chat model may rewrite a follow-up, guarded (core.conversations)
    followup_rules: str = ""  # which follow-up rules run (core.conversations.standalone.parse_rules): "" all, "none"
    conversation_idle_minutes: int = CONVERSATION_IDLE_MINUTES  # a follow-up after this long is read alone
    conversation_turns: int = CONVERSATION_TURNS  # the last exchanges a conversation's context keeps
    sensitive_reply: str = SENSITIVE_REPLY
    after_hours_text: str = AFTER_HOURS_TEXT  # {hours}: the service hours, {next}: when a person answers
    service_hours: str = ""  # "9:00-21:00" overrides the documents' 「人工服务时间为每天 9:00–21:00」
    service_timezone: str = SERVICE_TIMEZONE  # the school's clock for the service hours
    retention_days: int = 0  # 0: the documents' 「对话记录保存 90 天」; a number overrides it
    now: str = ""  # tests only: the moment the service hours are checked at (ISO 8601 with its offset)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Earlier sources win: explicit values, then each mapping `load` was given (secrets before env).
        return (init_settings, *(_MappingSource(settings_cls, mapping) for mapping in _SOURCES.get()))

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None, *, secrets: Mapping[str, Any] | None = None,
             **overrides: Any) -> Settings:
        """Defaults, then XIAOE_* variables of `environ` (default os.environ), then `secrets`
        (.streamlit/secrets.toml, which wins over the environment), then `overrides`. ConfigError
        (Chinese, naming the variable and its value) when a value cannot work."""
        env = os.environ if environ is None else environ
        mappings = tuple(m for m in (secrets or {}, env) if m)
        token = _SOURCES.set(mappings)
        try:
            settings = cls(**overrides)
        except ValidationError as error:
            raise _config_error(error, mappings, overrides) from None
        finally:
            _SOURCES.reset(token)
        if "min_score" in overrides or any(_given(m, "min_score") for m in mappings) or settings.answerability == "on":
            return settings
        return settings.with_(min_score=THRESHOLD_ONLY_MIN_SCORE)  # the seed's threshold-only gate has its own

    # Kept for the CLI, the benches and the tests written against it: the same as `load`.
    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        return cls.load(environ, **overrides)

    def with_(self, **changes: Any) -> Settings:
        """A validated copy with some values changed (no source is read again)."""
        try:
            return type(self).model_validate({**self.model_dump(), **changes})
        except ValidationError as error:
            raise _config_error(error, (), changes) from None

    def with_knobs(self, knobs: Knobs) -> Settings:
        """These settings with the gate's knobs replaced (a saved default, a CLI flag)."""
        return self.with_(min_score=knobs.threshold, top_k=knobs.k, min_coverage=knobs.min_coverage,
                          max_unknown_weight=knobs.max_unknown_weight)

    @field_validator("corpus_dir", "data_dir", mode="after")
    @classmethod
    def _expand_user(cls, value: Path) -> Path:
        return value.expanduser()

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if not 0.0 <= self.min_score <= 1.0:
            raise ConfigError(f"阈值 XIAOE_MIN_SCORE（{self.min_score}）必须在 0 到 1 之间。")
        if not 1 <= self.top_k <= MAX_TOP_K:
            raise ConfigError(f"k 值 XIAOE_TOP_K（{self.top_k}）必须在 1 到 {MAX_TOP_K} 之间。")
        if not 0.0 <= self.min_coverage <= 1.0:
            raise ConfigError(f"关键词覆盖下限 XIAOE_MIN_COVERAGE（{self.min_coverage}）必须在 0 到 1 之间。")
        if not 0.0 <= self.max_unknown_weight <= 1.0:
            raise ConfigError(f"资料外词权重上限 XIAOE_MAX_UNKNOWN_WEIGHT（{self.max_unknown_weight}）必须在 0 到 1 之间。")
        if not 1 <= self.max_question_chars <= MAX_QUESTION_CHARS:  # the queue and question sets store up to that
            raise ConfigError(f"问题字数上限 XIAOE_MAX_QUESTION_CHARS（{self.max_question_chars}）必须在 1 到 "
                              f"{MAX_QUESTION_CHARS} 之间。")
        if self.chunk_overlap >= self.chunk_size:
            raise ConfigError(
                f"片段重叠 chunk_overlap（{self.chunk_overlap}）必须小于片段长度 chunk_size（{self.chunk_size}）。")
        if self.retriever not in ("lexical", "dense", "hybrid"):
            raise ConfigError(f"检索方式 XIAOE_RETRIEVER（{self.retriever}）只能是 lexical、dense 或 hybrid。")
        if self.answerability not in ("on", "off"):
            raise ConfigError(f"可答性判断开关 XIAOE_ANSWERABILITY（{self.answerability}）只能是 on 或 off。")
        if self.auth not in ("on", "off"):
            raise ConfigError(f"登录开关 XIAOE_AUTH（{self.auth}）只能是 on 或 off。")
        if self.grader not in ("off", "band"):
            raise ConfigError(f"模型判定开关 XIAOE_GRADER（{self.grader}）只能是 off（关闭）或 band（让模型判定不确定区间的问题）。")
        if not 0.0 <= self.grader_band_coverage <= 1.0:
            raise ConfigError(f"判定区间覆盖余量 XIAOE_GRADER_BAND_COVERAGE（{self.grader_band_coverage}）必须在 0 到 1 之间。")
        if not 0.0 <= self.grader_band_unknown <= 1.0:
            raise ConfigError(f"判定区间资料外词权重上限 XIAOE_GRADER_BAND_UNKNOWN（{self.grader_band_unknown}）必须在 0 到 1 之间。")
        if not 1 <= self.session_max_hours <= MAX_SESSION_MAX_HOURS:  # also refuses nan
            raise ConfigError(f"登录的最长有效期 XIAOE_SESSION_MAX_HOURS（{self.session_max_hours}）必须在 1 到 "
                              f"{MAX_SESSION_MAX_HOURS} 小时之间（默认 {SESSION_MAX_HOURS:g}，即 7 天）。")
        _ = self.trusted_proxy_networks  # a bad entry fails here, at start-up
        if self.reuse not in ("on", "off"):
            raise ConfigError(f"已审答案复用开关 XIAOE_REUSE（{self.reuse}）只能是 on 或 off。")
        if not 0.0 <= self.reuse_threshold <= 1.0:
            raise ConfigError(f"复用相似度下限 XIAOE_REUSE_THRESHOLD（{self.reuse_threshold}）必须在 0 到 1 之间。")
        for name, text in (("HOLD_ACK_TEXT", self.hold_ack_text), ("HANDOFF_TEXT", self.handoff_text),
                           ("STANDARD_REPLY", self.standard_reply), ("SENSITIVE_REPLY", self.sensitive_reply),
                           ("AFTER_HOURS_TEXT", self.after_hours_text)):
            if not text.strip() or len(text) > 2000:
                raise ConfigError(f"学员服务的文字 XIAOE_{name} 不能为空，也不能超过 2000 字（现在 {len(text)} 字）。")
        for name, value in (("RATE_USER_PER_MINUTE", self.rate_user_per_minute),
                            ("RATE_KEY_PER_MINUTE", self.rate_key_per_minute)):
            if not 0 <= value <= 1_000_000:
                raise ConfigError(f"限流 XIAOE_{name}（{value}）必须在 0 到 1000000 之间（0 表示不限）。")
        if not 0 <= self.service_threads <= 200:
            raise ConfigError(f"XIAOE_SERVICE_THREADS（{self.service_threads}）必须在 0 到 200 之间（0 表示自动）。")
        for name, seconds in (("WEBHOOK_LEASE_S", self.webhook_lease_s), ("WEBHOOK_TIMEOUT_S", self.webhook_timeout_s)):
            if not 0.5 <= seconds <= MAX_LEASE_S:  # also refuses nan
                raise ConfigError(f"XIAOE_{name}（{seconds}）必须在 0.5 秒到 1 小时之间。")
        self._check_wecom()
        self._check_conversations()
        return self

    def _check_wecom(self) -> None:
        for name, value in (("WECOM_LEASE_S", self.wecom_lease_s), ("WECOM_POLL_S", self.wecom_poll_s),
                            ("WECOM_TOKEN_MARGIN_S", self.wecom_token_margin_s),
                            ("WECOM_TIMEOUT_S", self.wecom_timeout_s)):
            if not 0.5 <= value <= MAX_LEASE_S:  # also refuses nan
                raise ConfigError(f"XIAOE_{name}（{value}）必须在 0.5 秒到 1 小时之间。")
        for name, text in (("WECOM_NONTEXT_REPLY", self.wecom_nontext_reply),
                           ("WECOM_TOO_LONG_REPLY", self.wecom_too_long_reply)):
            if not text.strip() or len(text) > 600:
                raise ConfigError(f"微信客服的文字 XIAOE_{name} 不能为空，也不能超过 600 字（现在 {len(text)} 字）。")
        _ = self.wecom_duplicate_codes  # a bad entry fails here, at start-up
        if not self.wecom_corp_id:
            return
        missing = [name for name, value in (("WECOM_SECRET", self.wecom_secret), ("WECOM_TOKEN", self.wecom_token),
                                            ("WECOM_AES_KEY", self.wecom_aes_key),
                                            ("WECOM_OPEN_KFIDS", self.wecom_open_kfids)) if not value.strip()]
        if missing:
            raise ConfigError("设置了 XIAOE_WECOM_CORP_ID 就要把微信客服的其他设置也填上，还缺：" +
                              "、".join(f"XIAOE_{m}" for m in missing) + "（在企业微信管理后台「微信客服」的 API 设置里找，见 "
                              "docs/wechat.md）。")
        if len(self.wecom_aes_key) != 43 or not re.fullmatch(r"[A-Za-z0-9+/]{43}", self.wecom_aes_key):
            raise ConfigError(f"XIAOE_WECOM_AES_KEY 应是企业微信后台生成的 43 位 EncodingAESKey（字母和数字），现在是 "
                              f"{len(self.wecom_aes_key)} 位：请从后台重新复制。")
        if not re.match(r"^https?://[^\s/]+", self.wecom_api_base):
            raise ConfigError(f"XIAOE_WECOM_API_BASE（{self.wecom_api_base[:80]}）不是 http:// 或 https:// 地址。")
        for kfid in self.wecom_kfids:
            if not re.fullmatch(r"[0-9A-Za-z_-]{1,64}", kfid):
                raise ConfigError(f"XIAOE_WECOM_OPEN_KFIDS 里的「{kfid[:80]}」不像客服账号 ID（open_kfid，如 wkAbC123…）；"
                                  "多个用逗号分隔。")

    @property
    def wecom_on(self) -> bool:
        """The WeChat channel is configured (XIAOE_WECOM_CORP_ID set)."""
        return bool(self.wecom_corp_id.strip())

    @property
    def wecom_kfids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.strip() for p in self.wecom_open_kfids.split(",") if p.strip()))

    @property
    def wecom_duplicate_codes(self) -> frozenset[int]:
        codes = set()
        for part in (p.strip() for p in self.wecom_duplicate_errcodes.split(",")):
            if not part:
                continue
            if not part.lstrip("-").isdigit():
                raise ConfigError(f"XIAOE_WECOM_DUPLICATE_ERRCODES 里的「{part[:40]}」不是错误码（整数），多个用逗号分隔。")
            codes.add(int(part))
        return frozenset(codes)

    def _check_conversations(self) -> None:
        # XIAOE_MASKING, XIAOE_FOLLOWUP_RULES and XIAOE_SERVICE_HOURS are read by their stages above this one
        # (core.privacy, core.conversations, core.facts), which name a bad value when the service or console opens.
        if self.followup_model not in ("on", "off"):
            raise ConfigError(f"模型改写追问的开关 XIAOE_FOLLOWUP_MODEL（{self.followup_model}）只能是 on 或 off。")
        if not 0 <= self.conversation_idle_minutes <= 7 * 24 * 60:
            raise ConfigError(f"XIAOE_CONVERSATION_IDLE_MINUTES（{self.conversation_idle_minutes}）必须在 0 到 10080 分钟之间"
                              "（0 表示每条消息都单独读）。")
        if not 1 <= self.conversation_turns <= 20:
            raise ConfigError(f"XIAOE_CONVERSATION_TURNS（{self.conversation_turns}）必须在 1 到 20 之间。")
        if not 0 <= self.retention_days <= 3650:
            raise ConfigError(f"XIAOE_RETENTION_DAYS（{self.retention_days}）必须在 0 到 3650 天之间（0 表示按资料写的天数）。")
        _ = self.service_zone, self.clock_now

    @property
    def service_zone(self):
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
        try:
            return ZoneInfo(self.service_timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(f"XIAOE_SERVICE_TIMEZONE（{self.service_timezone}）不是认识的时区，请写成 Asia/Shanghai 这样。"
                              ) from None

    @property
    def clock_now(self):
        """The moment XIAOE_NOW names (tests), else None (the real clock)."""
        if not self.now:
            return None
        from datetime import datetime
        try:
            moment = datetime.fromisoformat(self.now)
        except ValueError:
            raise ConfigError(f"XIAOE_NOW（{self.now}）要写成 2026-01-05T22:30:00+08:00 这样的时间。") from None
        if moment.tzinfo is None:
            raise ConfigError(f"XIAOE_NOW（{self.now}）要带时区，例如 +08:00。")
        return moment

    @property
    def knobs(self) -> Knobs:
        """The gate's knobs as these settings give them."""
        return Knobs(threshold=self.min_score, k=self.top_k, min_coverage=self.min_coverage,
                     max_unknown_weight=self.max_unknown_weight)

    @property
    def grader_band(self) -> Band:
        """The grader's uncertain band (core.answering.grader.in_band)."""
        return Band(coverage_margin=self.grader_band_coverage, unknown_limit=self.grader_band_unknown)

    @property
    def trusted_proxy_networks(self) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        """The reverse proxies (addresses or networks) whose X-Forwarded-For is believed."""
        networks = []
        for entry in (part.strip() for part in self.trusted_proxies.split(",")):
            if not entry or entry.lower() == "none":  # "none": believe no proxy (an empty variable means the default)
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                raise ConfigError(f"可信代理 XIAOE_TRUSTED_PROXIES 里的「{entry}」不是 IP 地址或网段；请写成用逗号分隔的"
                                  "地址或网段，例如 127.0.0.1,10.0.0.5,192.168.8.0/24（写 none 表示不信任任何代理）。") from None
        return tuple(networks)

    @property
    def standard_replies(self) -> tuple[str, ...]:
        """The standard replies a consultant may send instead of a held draft."""
        return tuple(p.strip() for p in self.standard_reply.split("|") if p.strip())

    @property
    def db_url(self) -> str:
        """The SQLAlchemy URL: the explicit one, else an SQLite file under the data folder."""
        return self.database_url or f"sqlite:///{self.data_dir / 'xiaoe.sqlite3'}"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def answering_threads(self) -> int:
        """How many student messages one service process answers at once: XIAOE_SERVICE_THREADS, or when it is 0
        (the default) 4 with the offline answerer (all CPU under one GIL, where a few threads answer more) and 40 with
        a chat model (most of the time waiting on the network): docs/service.md「线程数」."""
        return self.service_threads or (40 if self.llm_configured else 4)

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url and self.llm_model)

    @property
    def embed_configured(self) -> bool:
        return bool(self.embed_base_url and self.embed_model)

    @property
    def key(self) -> str:
        """A digest of every value: what caches key on (never a hand-written list of fields)."""
        return hashlib.sha256(self.model_dump_json().encode("utf-8")).hexdigest()


def _given(mapping: Mapping[str, str], field: str) -> bool:
    name = ENV_PREFIX + field.upper()
    return any(k.upper() == name and str(v) != "" for k, v in mapping.items())


def _config_error(error: ValidationError, mappings: tuple[Mapping[str, str], ...], overrides: Mapping[str, Any],
                  ) -> ConfigError:
    """The first unreadable value as 「环境变量 XIAOE_TOP_K 的值「abc」无法识别，请改成正确的整数。」"""
    detail = error.errors()[0]
    field = str(detail["loc"][0]) if detail.get("loc") else ""
    env_name = ENV_PREFIX + field.upper()
    raw = detail.get("input")
    for mapping in mappings:
        for k, v in mapping.items():
            if k.upper() == env_name and str(v) != "":
                raw = v
    annotation = Settings.model_fields[field].annotation if field in Settings.model_fields else None
    kind = _KIND_NAMES.get(annotation, "值") if isinstance(annotation, type) else "值"
    where = "设置" if field in overrides else "环境变量"
    return ConfigError(f"{where} {env_name} 的值「{raw}」无法识别，请改成正确的{kind}。")
