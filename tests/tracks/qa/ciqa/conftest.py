import pytest


@pytest.fixture(autouse=True)
def no_dns(monkeypatch):
    """URL files' host names are resolved at load time (tracks.qa.ciqa.submissions.resolve_host): never over the
    network in a test. Names resolve to nothing unless a test says otherwise (`no_dns[name] = [addresses]`)."""
    names = {}
    monkeypatch.setattr("tracks.qa.ciqa.submissions.resolve_host", lambda host: names.get(host, []))
    return names
