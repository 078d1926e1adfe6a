"""The tests call a running Herald: HERALD_URL (default http://127.0.0.1:3000) and HERALD_API_KEY,
as scripts/test-clients.sh sets them."""

import os
import uuid

import pytest

from herald import Herald


@pytest.fixture(scope="session")
def url() -> str:
    return os.environ.get("HERALD_URL", "http://127.0.0.1:3000")


@pytest.fixture(scope="session")
def herald(url: str):
    with Herald(url, os.environ["HERALD_API_KEY"]) as client:
        yield client


@pytest.fixture
def run_id() -> str:
    return uuid.uuid4().hex[:8]
