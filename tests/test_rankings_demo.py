"""Every demo evaluation (each track: TAC 2008 and TREC 2007 QA, ciQA, QA4MRE, BOLT, BioGen) is ranked under
every reading without an error, and the rankings agree with the stored official scores where nothing differs."""

from pooling.models import Evaluation
from scoring import rankings
from scoring.models import Score
from scoring.rescore import rescore_evaluation
from tests.samples import demo_world  # noqa: F401 (a fixture)


def test_every_demo_evaluation_is_ranked_under_every_reading(demo_world, django_db_blocker):  # noqa: F811
    with django_db_blocker.unblock():
        tracks = set()
        for ev in Evaluation.objects.order_by("slug"):
            if not ev.runs.exists():
                continue
            if not Score.objects.filter(run__evaluation=ev).exists():
                rescore_evaluation(ev.pk)
            state = rankings.refresh(ev.pk)
            data = state.data
            tracks.add(ev.track)
            official = data["scores"]["official"]
            assert official, ev.slug
            for reading in data["readings"]:
                if reading["same_as"] is None and reading["key"] != "official":
                    assert data["scores"][reading["key"]].keys() == official.keys(), (ev.slug, reading["key"])
            report = data["robustness"]
            ranked = [row for row in report["runs"] if row["score"] is not None]
            for row in ranked:
                low, high = row["interval"]
                assert low <= row["rank"] <= high, (ev.slug, row)
                assert row["worst"] is None or row["best"] is None or row["worst"] <= row["best"] + 1e-12, (
                    ev.slug,
                    row,
                )
            assert rankings.present(ev)["as_of"] == state.computed_at
        assert {"tac2008-qa", "trec2007-qa", "trec2007-ciqa", "qa4mre-2012", "bolt-ir-p2", "biogen-2024"} <= tracks
