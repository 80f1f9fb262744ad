"""Fixtures of the real-HTTP service tests: a service on a fresh database of each engine, with a key."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core.retrieval.store import load_or_build
from core.settings import Settings
from tests.db_engines import ENGINES, _postgresql_url
from tests.paths import CORPUS
from tests.service.harness import Receiver, Service, make_key, start_receiver, start_service
from tests.service.wecom_rig import Rig, make_rig, rig_for
from tests.service.wecom_server import FakeWeCom, start_wecom


@pytest.fixture(scope="session")
def service_data(tmp_path_factory) -> Path:
    """One data folder for every instance of the session, its index built once here (instances only read it; each
    test's database is its own, named by XIAOE_DATABASE_URL)."""
    folder = tmp_path_factory.mktemp("service-data")
    load_or_build(Settings(data_dir=folder, corpus_dir=CORPUS))
    return folder


@pytest.fixture
def services(tmp_path, database_url, service_data) -> Iterator[Callable[..., Service]]:
    """Start instances on this test's database (`services(extra_env={...})`); all stopped at the end."""
    started: list[Service] = []

    def start(extra_env: dict[str, str] | None = None) -> Service:
        service = start_service(tmp_path / "services", database_url,
                                {"XIAOE_DATA_DIR": str(service_data), **(extra_env or {})})
        started.append(service)
        return service

    yield start
    for service in started:
        service.stop()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = start_receiver()
    yield made
    made.close()


@pytest.fixture
def key(database_url) -> str:
    """A key with both scopes and the `auto` policy (answers that pass the checks go out at once)."""
    return make_key(database_url, release="auto")[0]


@pytest.fixture(scope="module", params=ENGINES)
def shared_url(request, tmp_path_factory) -> Iterator[str]:
    """One database per engine for a whole test module (its tests use their own keys and students)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('shared') / 'xiaoe.sqlite3'}"
        return
    yield from _postgresql_url(request.getfixturevalue("postgresql_server"))


@pytest.fixture(scope="module")
def shared(shared_url, service_data, tmp_path_factory) -> Iterator[Service]:
    """One instance per engine for a module whose tests need no settings of their own."""
    service = start_service(tmp_path_factory.mktemp("shared-service"), shared_url,
                            {"XIAOE_DATA_DIR": str(service_data)})
    yield service
    service.stop()


@pytest.fixture
def shared_key(shared_url) -> str:
    """A fresh key (policy auto) in the shared database."""
    return make_key(shared_url, f"k-{uuid.uuid4().hex[:10]}", release="auto")[0]


@pytest.fixture
def wecom() -> Iterator[FakeWeCom]:
    """The scripted WeCom server on 127.0.0.1 (tests/service/wecom_server.py)."""
    fake = start_wecom()
    yield fake
    fake.close()


@pytest.fixture
def rigs(wecom, database_url, service_data) -> Iterator[Callable[..., Rig]]:
    """Build the WeChat channel in this process on this test's database (`rigs(release="all", ...)`)."""
    made: list[Rig] = []

    def build(**options) -> Rig:
        rig = make_rig(wecom, database_url, service_data, **options) if not made else \
            rig_for(wecom, made[0].settings, owner=options.get("owner", f"rig{len(made)}"))
        made.append(rig)
        return rig

    yield build
    for rig in made:
        rig.close()
