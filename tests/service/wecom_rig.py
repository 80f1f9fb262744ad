"""The WeChat channel in the test's own process, against the scripted WeCom server over real HTTP and a real database:
the same WeComChannel the service runs, with the clock the scripted server keeps (so 48 hours pass in no time).

`notify()` records a callback as the door would; `turn()` runs the channel's rounds until nothing more happens.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from core.assistant import open_assistant
from core.exchanges.desk import StudentDesk
from core.settings import Settings
from core.stores.db import Database
from core.stores.review import ReviewStore
from core.stores.wecom_inbox import WeComInbox
from core.stores.wecom_outbox import WeComOutbox
from service.wecom.channel import WeComChannel
from service.wecom.client import WeComClient
from tests.paths import CORPUS
from tests.service.harness import make_key
from tests.service.wecom_driver import new_aes_key
from tests.service.wecom_server import FakeWeCom

KFID = "wkTEST0001"


def wecom_settings(fake: FakeWeCom, database_url: str, data_dir: Path, **overrides) -> Settings:
    values = {"data_dir": data_dir, "corpus_dir": CORPUS, "database_url": database_url, "wecom_corp_id": fake.corp_id,
              "wecom_secret": fake.secret, "wecom_token": "cbtoken", "wecom_aes_key": new_aes_key(),
              "wecom_open_kfids": KFID, "wecom_api_base": fake.url, "wecom_duplicate_errcodes": "40058",
              "rate_user_per_minute": 0}
    return Settings(**{**values, **overrides})


def wecom_env(settings: Settings) -> dict[str, str]:
    """The same WeChat settings as environment variables, for a `xiaoe serve` child."""
    names = ("wecom_corp_id", "wecom_secret", "wecom_token", "wecom_aes_key", "wecom_open_kfids", "wecom_api_base",
             "wecom_duplicate_errcodes", "rate_user_per_minute")
    return {f"XIAOE_{n.upper()}": str(getattr(settings, n)) for n in names}


@dataclass
class Rig:
    fake: FakeWeCom
    settings: Settings
    db: Database
    desk: StudentDesk
    channel: WeComChannel
    inbox: WeComInbox
    outbox: WeComOutbox
    review: ReviewStore

    def notify(self) -> None:
        self.inbox.record_event(KFID, self.fake.callback_token())

    def turn(self, rounds: int = 3) -> None:
        for _ in range(rounds):
            assert self.channel.round(KFID)

    def say(self, user: str, text: str, **options) -> str:
        """The student writes, WeCom calls back, the channel runs: the msgid."""
        msgid = self.fake.say(KFID, user, text, **options)
        self.notify()
        self.turn()
        return msgid

    def close(self) -> None:
        self.channel.client.close()
        self.db.dispose()


def make_rig(fake: FakeWeCom, database_url: str, data_dir: Path, *, release: str = "auto", owner: str = "rig",
             **overrides) -> Rig:
    settings = wecom_settings(fake, database_url, data_dir, **overrides)
    make_key(database_url, settings.wecom_key, release=release)
    return rig_for(fake, settings, owner=owner)


def rig_for(fake: FakeWeCom, settings: Settings, *, owner: str = "rig") -> Rig:
    def clock() -> datetime:
        return datetime.now(UTC) + timedelta(seconds=fake.offset)

    db = Database(settings.db_url)
    assistant = open_assistant(settings, with_model=False)
    desk = StudentDesk.open(settings, db, lambda: assistant)
    inbox, outbox, review = WeComInbox(db, clock=clock), WeComOutbox(db, clock=clock), ReviewStore(db)
    client = WeComClient(settings, inbox, owner=owner, clock=clock)
    channel = WeComChannel(settings, desk, client, inbox, outbox, review, owner=owner, clock=clock)
    return Rig(fake, settings, db, desk, channel, inbox, outbox, review)
