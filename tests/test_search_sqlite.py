"""Full-text search on the embedded demo's SQLite database (FTS5): the same queries as on PostgreSQL, run in a
separate process against a fresh SQLite file (the test session's database is PostgreSQL)."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = """
import django, json, sys
django.setup()
from corpus.loading import load_collection
from corpus.models import Collection
from corpus.search import search
load_collection("abstracts", "pubmed", [sys.argv[1]])
c = Collection.objects.get(name="abstracts")
out = {}
for q in sys.argv[2:]:
    r = search(q, [c])
    out[q] = [[h.docno, h.snippet] for h in r.hits]
print(json.dumps(out))
"""


def test_fts5_ranks_phrases_and_excludes_like_postgresql(sqlite_demo):
    queries = ["kidney stones lithotripsy", "kidney or lithotripsy", '"shock wave"', "stones -lithotripsy", "metformin"]
    fixture = ROOT / "tests" / "fixtures" / "search" / "relevance.jsonl"
    done = sqlite_demo.run(SCRIPT, fixture, *queries)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    docnos = {q: [d for d, _ in hits] for q, hits in out.items()}
    assert docnos["kidney stones lithotripsy"] == ["100001"]
    assert docnos["kidney or lithotripsy"][0] == "100001"
    assert set(docnos["kidney or lithotripsy"]) == {"100001", "100002", "100003", "100005"}
    assert docnos['"shock wave"'] == ["100001"]
    assert docnos["stones -lithotripsy"] == ["100002"]
    assert docnos["metformin"] == ["100005"] and "<mark>Metformin</mark>" in out["metformin"][0][1]
