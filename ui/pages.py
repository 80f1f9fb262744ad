"""The console's pages, in one table: the router builds its navigation from it, and the sign-in gate answers every
one of their addresses with the login page (so a deep link before sign-in never reaches a page)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    script: str
    title: str
    icon: str
    url_path: str  # "" for the start page


PAGES = (
    PageSpec("app_pages/ask.py", "提问与检查", ":material/forum:", ""),
    PageSpec("app_pages/sources.py", "资料原文", ":material/description:", "sources"),
    PageSpec("app_pages/review.py", "复核队列", ":material/inbox:", "review"),
    PageSpec("app_pages/approved.py", "已审答案", ":material/verified:", "approved"),
    PageSpec("app_pages/conversations.py", "对话", ":material/chat:", "conversations"),
    PageSpec("app_pages/gaps.py", "资料缺口", ":material/help_center:", "gaps"),
    PageSpec("app_pages/tuning.py", "阈值调优", ":material/tune:", "tuning"),
    PageSpec("app_pages/glossary.py", "同义词表", ":material/translate:", "glossary"),
    PageSpec("app_pages/settings.py", "设置", ":material/settings:", "settings"),
    PageSpec("app_pages/accounts.py", "账号管理", ":material/manage_accounts:", "accounts"),
    PageSpec("app_pages/keys.py", "接口密钥", ":material/key:", "keys"),
    PageSpec("app_pages/sensitive.py", "敏感词", ":material/block:", "sensitive"),
)
# Every address a page answers at, the start page's own name included (ask)
URL_PATHS = ("ask", *(page.url_path for page in PAGES if page.url_path))
