"""Every tunable number and path of 小E in one place; environment variables override the defaults.

The gate's knobs default to the calibrated values in core/data/calibration.json (core.knobs);
XIAOE_* variables override them, and a default saved from the tuning page (database) takes
precedence over both at run time (core.stores.defaults.effective_settings).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import ConfigError
from core.knobs import MAX_TOP_K, Knobs, calibration

if TYPE_CHECKING:
    from core.answering.grader import Band

PROJECT_ROOT = Path(__file__).resolve().parent.parent

REFUSAL_TEXT = "这件事资料里没写，我不能替你们编，请转人工。"

# The gate's knobs are calibrated by `python -m core calibrate --write` (core/calibration.py), which
# writes core/data/calibration.json; the numbers below are read from there, never copied by hand.
_CALIBRATION = calibration()
DEFAULT_MIN_SCORE = _CALIBRATION.knobs.threshold
DEFAULT_MIN_COVERAGE = _CALIBRATION.knobs.min_coverage
DEFAULT_MAX_UNKNOWN_WEIGHT = _CALIBRATION.knobs.max_unknown_weight
# With the answerability decision off (XIAOE_ANSWERABILITY=off) the ranking score is the only gate,
# as in the seed; its threshold is calibrated separately by the same command.
THRESHOLD_ONLY_MIN_SCORE = _CALIBRATION.threshold_only
DEFAULT_TOP_K = _CALIBRATION.knobs.k
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


@dataclass(frozen=True)
class Settings:
    """Resolved settings. Build with `Settings.from_env()`; never mutate, use `replace`."""

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
    llm_api_key: str = field(default="", repr=False)
    llm_timeout: float = 30.0
    llm_max_retries: int = 2
    llm_temperature: float = 0.0
    embed_base_url: str = ""
    embed_model: str = ""
    embed_api_key: str = field(default="", repr=False)
    answerability: str = "on"  # "off": refuse on the per-chunk threshold alone, as the seed did
    auth: str = "on"  # "off" only for a local single-user demo or tests: no login gate
    grader: str = "off"  # "band": a configured chat model grades the uncertain band (core.answering.grader)
    grader_band_coverage: float = GRADER_BAND_COVERAGE
    grader_band_unknown: float = GRADER_BAND_UNKNOWN
    session_max_hours: float = SESSION_MAX_HOURS
    trusted_proxies: str = TRUSTED_PROXIES

    def __post_init__(self) -> None:
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

    @property
    def knobs(self) -> Knobs:
        """The gate's knobs as these settings give them."""
        return Knobs(threshold=self.min_score, k=self.top_k, min_coverage=self.min_coverage,
                     max_unknown_weight=self.max_unknown_weight)

    @property
    def grader_band(self) -> Band:
        """The grader's uncertain band (core.answering.grader.in_band)."""
        from core.answering.grader import Band

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
    def db_url(self) -> str:
        """The SQLAlchemy URL: the explicit one, else an SQLite file under the data folder."""
        return self.database_url or f"sqlite:///{self.data_dir / 'xiaoe.sqlite3'}"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url and self.llm_model)

    @property
    def embed_configured(self) -> bool:
        return bool(self.embed_base_url and self.embed_model)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> Settings:
        """Defaults, then `XIAOE_<FIELD>` variables from `environ` (default os.environ), then overrides."""
        env = os.environ if environ is None else environ
        values: dict = {}
        for f in fields(cls):
            raw = env.get(f"XIAOE_{f.name.upper()}")
            if raw is None or raw == "":
                continue
            values[f.name] = _parse(f.name, raw, type(getattr(_DEFAULTS, f.name)))
        values.update(overrides)
        if "min_score" not in values and values.get("answerability", _DEFAULTS.answerability) == "off":
            values["min_score"] = THRESHOLD_ONLY_MIN_SCORE
        return cls(**values)

    def with_knobs(self, knobs: Knobs) -> Settings:
        """These settings with the gate's knobs replaced (a saved default, a CLI flag)."""
        return replace(self, min_score=knobs.threshold, top_k=knobs.k, min_coverage=knobs.min_coverage,
                       max_unknown_weight=knobs.max_unknown_weight)


def _parse(name: str, raw: str, kind: type):
    env_name = f"XIAOE_{name.upper()}"
    try:
        if issubclass(kind, Path):
            return Path(raw).expanduser()
        if kind is bool:
            return raw.strip().lower() in ("1", "true", "yes", "on")
        return kind(raw.strip())
    except ValueError:
        raise ConfigError(f"环境变量 {env_name} 的值「{raw}」无法识别，请改成正确的{_KIND_NAMES.get(kind, '值')}。") from None


_KIND_NAMES = {int: "整数", float: "数字", str: "文字"}
_DEFAULTS = Settings()
