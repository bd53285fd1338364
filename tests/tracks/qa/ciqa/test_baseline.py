"""The sentence-retrieval baseline (seed 001 3.2.3): 'returned as the baseline run (up to a quota of 5,000
characters) [...] The final run was prepared by simply removing those sentences judged not relevant—this had the
effect of pulling more sentences from documents lower in the ranked list.' A hand-worked example, quota 20."""

from assess.assignments import assign
from tests.tracks.qa.ciqa.test_pipeline import ciqa, no_docid_check, planned  # noqa: F401 (fixtures)
from tracks.qa.ciqa import baseline, sessions, submissions
from tracks.qa.ciqa.models import InteractionSession

# the ranked list of topic 56, with each sentence's non-white-space characters
RANKED = [
    ("s1", "aaaa aaaa"),  # 8
    ("s2", "bbbbbb"),  # 6  -> 14
    ("s3", "cccc"),  # 4  -> 18
    ("s4", "dddddd"),  # 6  -> 24: over the quota, the initial run ends before it
    ("s5", "ee"),  # 2
    ("s6", "ffffffffffff"),  # 12
]


def test_the_final_run_refills_the_quota_from_lower_in_the_list():
    # initial run: s1 + s2 + s3 = 18 characters; s4 would make 24 > 20
    assert baseline.refill(RANKED, set(), 20) == ["s1", "s2", "s3"]
    # s2 judged not relevant: s1 + s3 = 12, + s4 = 18, + s5 = 20 (the quota, still in), + s6 = 32: out
    assert baseline.refill(RANKED, {"s2"}, 20) == ["s1", "s3", "s4", "s5"]
    # a sentence that does not fit ends the list, however short the ones after it
    assert baseline.refill([("a", "x" * 15), ("b", "y" * 6), ("c", "z")], set(), 20) == ["a"]
    assert baseline.length(" a b\tc\n") == 3  # white space does not count


def test_the_baseline_run_keeps_its_quota_and_its_final_run_refills_it(planned):
    ciqa, judge, _, _ = planned
    from pooling.evaluations import update_settings

    update_settings(ciqa, {"baseline_quota": 20})
    assign(ciqa, "56", "judge")
    lines = "".join(f"56 BASEi D{n} {text}\n" for n, (_, text) in enumerate(RANKED, start=1))
    data = (lines + "57 BASEi D9 gggg\n").encode()
    # judging has started (assignments): runs are frozen, and the organizer's baseline comes with a reason
    run, _ = submissions.load_run(ciqa, data, "base.txt", "NIST", "initial", override_reason="the NIST baseline")
    interaction = baseline.baseline_interaction(ciqa, run)
    run.refresh_from_db()
    texts = [e.text for e in run.entries.filter(topic__ident="56").order_by("line_no")]
    assert texts == ["aaaa aaaa", "bbbbbb", "cccc"]  # the initial run is within the quota
    assert run.data[baseline.RESERVE]["56"] == [["D4", "dddddd"], ["D5", "ee"], ["D6", "ffffffffffff"]]
    sessions.plan_sessions(ciqa)
    session = sessions.start(InteractionSession.objects.get(assessor=judge, url_file=interaction, topic__ident="56"))
    s2 = run.entries.get(text="bbbbbb")
    baseline.save_labels(session, judge, {s2.pk: "not-relevant"})
    final, removed = baseline.make_final_run(ciqa, run, "BASEf")
    assert removed == 1
    by_topic = [(e.topic.ident, e.docid, e.text) for e in final.entries.select_related("topic").order_by("line_no")]
    assert by_topic == [
        ("56", "D1", "aaaa aaaa"),
        ("56", "D3", "cccc"),
        ("56", "D4", "dddddd"),
        ("56", "D5", "ee"),
        ("57", "D9", "gggg"),
    ]
    assert (final.data["kind"], final.data["initial_tag"]) == ("final", "BASEi")
