"""The client example of docs/api.md, run as written against a live server: it must keep working."""

import re
from pathlib import Path

import pytest

from api.tokens import create_token
from corpus.loading import load_collection
from pooling.models import Run

ROOT = Path(__file__).resolve().parents[2]
BOLT = ROOT / "tests" / "fixtures" / "bolt"


def example_code():
    text = (ROOT / "docs" / "api.md").read_text()
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    return code


@pytest.fixture
def server(transactional_db, live_server, organizer):
    load_collection("bolt-forum", "bolt-forum", [BOLT / "forum.xml"])
    return live_server.url, create_token(organizer)


def test_the_documented_client_creates_uploads_builds_polls_and_reads_scores(server, capsys):
    namespace = {}
    exec(compile(example_code(), "docs/api.md", "exec"), namespace)  # noqa: S102  (our own documentation)
    base_url, token = server
    scores = namespace["run_campaign"](
        base_url,
        token,
        {
            "topics": BOLT / "topics.xml",
            "runs": [(BOLT / "alpha1.xml", "Team Alpha"), (BOLT / "beta1.xml", "Team Beta")],
        },
    )
    assert "pool build: done" in capsys.readouterr().out
    tags = set(Run.objects.filter(evaluation__slug="bolt-2013").values_list("tag", flat=True))
    assert len(tags) == 2
    assert {s["run"] for s in scores if s["measure"] == "score"} == tags
