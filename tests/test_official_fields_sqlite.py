"""The official judgments' fields as scoring reads them (assess.official.official_fields and nugget_vote_sets; a
judgment set's fields go through the same assess.official.key_texts) on the embedded demo's SQLite database: what
PostgreSQL's ->> gives, a JSON null as None and a number as its text. SQLite's JSON functions gave 'null' for a list instance's empty answer class, so every
correct instance not put in a class counted as one class "null" and the demo's list scores were too low. Run in a
separate process against a fresh SQLite file (the test session's database is PostgreSQL)."""

import json

SCRIPT = """
import django, json
django.setup()
from assess.models import Judgment
from assess.official import as_text, nugget_vote_sets, official_fields, official_values
from pooling.models import Topic
from tracks.qa.synthetic import trec2007_sized

ev = trec2007_sized(slug="sqlite-fields", series=2, questions=10, runs=2, seed=3)
lists = Judgment.objects.filter(evaluation=ev, kind="instance", topic__kind="LIST")
# correct instances not put in a class yet, and a number where text is usual: as a hand-edited import may hold
unclassed = list(lists.filter(value__label="globally-correct").values_list("pk", flat=True)[:3])
Judgment.objects.filter(pk__in=unclassed).update(value={"label": "globally-correct", "answer_class": None})
numbered = lists.exclude(pk__in=unclassed).first()
Judgment.objects.filter(pk=numbered.pk).update(value={"label": "incorrect", "answer_class": 7})
topics = list(Topic.objects.filter(evaluation=ev).values_list("pk", flat=True))
read = official_fields(topics, "instance", "label", "answer_class")
expected = {
    subject: (as_text(value.get("label")), as_text(value.get("answer_class")))
    for subject, value in official_values(topics, "instance").items()
}
official, votes = nugget_vote_sets(topics)
expected_votes = {n: as_text(v.get("vote")) for n, v in official_values(topics, "nugget_vote").items()}
print(json.dumps({
    "same": read == expected,
    "unclassed": [read[j.item_id] for j in Judgment.objects.filter(pk__in=unclassed)],
    "numbered": read[numbered.item_id],
    "votes_same": official == expected_votes and bool(votes),
}))
"""


def test_the_demos_sqlite_reads_official_fields_as_postgresql_does(sqlite_demo):
    done = sqlite_demo.run(SCRIPT)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["unclassed"] and all(fields == ["globally-correct", None] for fields in out["unclassed"])
    assert out["numbered"] == ["incorrect", "7"]
    assert out["same"] and out["votes_same"]
