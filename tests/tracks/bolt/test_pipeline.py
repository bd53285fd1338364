"""BOLT on the shared machinery: collection, topics, runs (checked against the corpus), pools with
near-duplicates left out, citation and grouping judgments, agreement, live scores and the DTD export."""

from pathlib import Path

import pytest
from django.urls import reverse
from lxml import etree

from assess.judging import StaleJudgment
from assess.models import Assignment, JudgmentChange
from corpus.loading import load_collection
from pooling.evaluations import create_evaluation
from pooling.formats.base import ParsedEntry
from pooling.models import Evaluation, PoolItem, Run, RunEntry
from pooling.pools import build_pools, item_sources
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from scoring.models import Score
from scoring.rescore import rescore_evaluation
from tests.conftest import PASSWORD
from tracks.bolt import judging
from tracks.bolt.formats import citations, export

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "bolt"
T1 = "bolt-eng-DF-170-181103-8882"


@pytest.fixture
def evaluation(db):
    load_collection("bolt-test-forum", "bolt-forum", [str(FIXTURES / "forum.xml")])
    ev = create_evaluation("bolt-test", "bolt-ir-p2", ["bolt-test-forum"])
    load_topics(ev, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    return ev


def load(ev, *names, team="Team Alpha", priority=1):
    files = [
        RunFile(filename=str(FIXTURES / n), data=(FIXTURES / n).read_bytes(), team=team, priority=priority)
        for n in names
    ]
    return load_run_files(ev, files)


@pytest.fixture
def loaded(evaluation):
    assert all(not r.problems for r in load(evaluation, "alpha1.xml", "alpha2.xml"))
    assert all(not r.problems for r in load(evaluation, "beta1.xml", team="Team Beta"))
    build_pools(evaluation)
    return evaluation


def test_topics_keep_assessor_fields_apart(evaluation):
    topic = evaluation.topics.get(ident="1.001")
    assert topic.text == "What do people in Cairo think of the new metro line?"
    assert topic.data["language_target"] == "none"
    assert topic.data["assessor"]["rules"][0].startswith("Opinions of taxi drivers")


def test_run_checked_against_the_stored_forum(evaluation):
    bad = (FIXTURES / "alpha1.xml").read_bytes().replace(b'offset="154" length="72"', b'offset="154" length="74"')
    bad = bad.replace(b'post="p3" offset="84"', b'post="p7" offset="84"')
    (result,) = load_run_files(evaluation, [RunFile(filename="alpha1.xml", data=bad, team="Team Alpha", priority=1)])
    assert result.run is None
    assert result.problems == [
        "alpha1.xml:6: cite: offset 154 + length 74 lies outside post 'p2', whose raw text has 227 characters",
        "alpha1.xml:9: cite: post 'p7' is not in thread 'bolt-eng-DF-170-181103-8882'",
    ]
    assert not Run.objects.filter(evaluation=evaluation).exists()


def test_pool_merges_runs_and_leaves_near_duplicates_out(loaded):
    topic = loaded.topics.get(ident="1.001")
    items = judging.citation_items(topic)
    # alpha1: 6 citations, one near-duplicate (the quoted passage); alpha2: 2; beta1: 4, the second a quote
    # (near-duplicate) of the first. Shared: "The fare is too high..." (p2, all three runs).
    keys = {i.key for i in items}
    assert len(items) == len(keys) == 8
    assert all(i.pool_id.startswith("1.001-") for i in items)
    fare = [i for i in items if i.text.startswith("The fare is too high")]
    sources = item_sources(loaded, items)
    assert len(fare) == 1 and sorted(e.run.tag for e in sources[fare[0].pk]) == ["alpha1", "alpha2", "beta1"]
    near = [e for e in Run.objects.get(tag="beta1").entries.filter(topic=topic) if e.data["near_dup"]]
    assert len(near) == 1 and near[0].docid == "bolt-eng-DF-170-181104-9911" and near[0].data["post"] == "p1"
    assert all(near[0].pk not in {e.pk for e in lines} for lines in sources.values())
    # No link rows: the items' run lines are found by key (POOL_LINKS = False).
    assert not PoolItem.sources.through.objects.filter(poolitem__topic=topic).exists()
    # The keys PostgreSQL computed (POOL_KEY_SQL) are the format's pool_key of the same lines.
    entries = RunEntry.objects.filter(topic=topic)  # citation runs only
    python_keys = {
        citations.pool_key(ParsedEntry(topic.ident, e.line_no, e.docid, e.text, e.data)) for e in entries
    } - {None}
    assert keys == python_keys
    assert sum(len(v) for v in sources.values()) == sum(1 for e in entries if not e.data["near_dup"])
    ids = {i.key: i.pool_id for i in items}
    fare[0].sources.add(near[0])  # a link row as builds before POOL_LINKS left them: the next build drops it
    build_pools(loaded)  # rebuilding keeps every id
    assert not PoolItem.sources.through.objects.filter(poolitem__topic=topic).exists()
    assert {i.key: i.pool_id for i in judging.citation_items(topic)} == ids


def test_pool_grouped_in_sql_is_the_pool_grouped_in_python(evaluation, monkeypatch):
    """The same items (keys, ids, positions, fields) whether PostgreSQL groups the lines (POOL_KEY_SQL) or Python
    does, with the table's statistics fresh (the plan PostgreSQL then picks) and a run of a priority not judged
    left out."""
    from django.db import connection

    assert all(not r.problems for r in load(evaluation, "alpha1.xml", "alpha2.xml"))
    assert all(not r.problems for r in load(evaluation, "beta1.xml", team="Team Beta", priority=3))
    evaluation.settings = dict(evaluation.settings) | {"judged_priorities": [1, 2]}
    evaluation.save()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE pooling_runentry")

    def pool():
        fields = ("topic__ident", "key", "pool_id", "position", "docid", "text", "data")
        return sorted(PoolItem.objects.filter(evaluation=evaluation).values_list(*fields))

    build_pools(evaluation)
    in_sql = pool()
    PoolItem.objects.filter(evaluation=evaluation).delete()
    monkeypatch.setattr(citations, "POOL_KEY_SQL", None)
    build_pools(evaluation)
    assert pool() == in_sql
    # beta1 (priority 3) is not pooled: alpha1's 5 leaders of 1.001 and alpha2's 2, one of them shared
    assert sum(1 for item in in_sql if item[0] == "1.001") == 6


def test_pool_page_lists_the_runs_of_each_citation(loaded, client, make_user):
    make_user("bolt-org", "organizer")
    client.login(username="bolt-org", password=PASSWORD)
    page = client.get(reverse("pooling:pool_question", args=["bolt-test", "1.001"])).content.decode()
    row = next(r for r in page.split("<tr>") if "The fare is too high" in r)
    assert "alpha1:6" in row and "alpha2:" in row and "beta1:" in row


def test_grouping_run_loads_against_its_citation_run(loaded):
    (result,) = load(loaded, "alpha1-groups.xml", priority=None)  # no digit in the tag: BOLT's default priority
    assert not result.problems and result.run.priority == 1
    assert result.run.data["subtask"] == "groups" and result.run.data["citation_run"] == "alpha1"
    build_pools(loaded)  # grouping lines are never citation pool items
    assert PoolItem.objects.filter(topic__ident="1.001").count() == 8


def _assign(topic, user, role=Assignment.PRIMARY):
    return Assignment.objects.create(evaluation=topic.evaluation, topic=topic, assessor=user, role=role)


def test_judging_scores_and_export(loaded, make_user):
    a1 = make_user("bolt-a1", "assessor")
    topic = loaded.topics.get(ident="1.001")
    _assign(topic, a1)
    items = judging.citation_items(topic)
    by_text = {i.text[:20]: i for i in items}
    with pytest.raises(judging.BoltError, match="outside the passage"):
        judging.judge_citation(a1, items[0], {"rel": "yes", "relspans": [[0, 999]]}, 0)
    for item in items:
        rel = "yes" if item.text.startswith(("The fare", "Taxi drivers", "The metro is")) else "no"
        judging.judge_citation(a1, item, {"rel": rel, "trans": "accept", "chksrc": True}, 0)
    fare = by_text["The fare is too high"]
    # Only "too high for students" (positions 12..32) is relevant.
    saved = judging.judge_citation(
        a1, fare, {"rel": "yes", "trans": "accept", "chksrc": True, "relspans": [[12, 21]]}, 1
    )
    assert saved.judgment.version == 2
    assert JudgmentChange.objects.filter(judgment=saved.judgment).count() == 2
    with pytest.raises(StaleJudgment):  # a second tab still at version 1
        judging.judge_citation(a1, fare, {"rel": "no"}, 1)

    rescore_evaluation(loaded.pk)
    # The topic file's own citation is not imported here, so R(1.001) counts only judged pool items.
    score = {s.measure: s.value for s in Score.objects.filter(run__tag="alpha2", scope=Score.SERIES, topic=topic)}
    # alpha2 on 1.001: fare (72 chars, 21 relevant from 12), Attaba (52 chars, no).
    # P = 21/124; R = 21/total; AP = (1/total) * sum_{j=1..21} j/(12+j)
    total = Score.objects.get(run__tag="alpha2", scope=Score.SERIES, topic=topic, measure="char_f").detail[
        "chars_relevant_total"
    ]
    assert score["char_precision"] == pytest.approx(21 / 124)
    assert score["char_recall"] == pytest.approx(21 / total)
    assert score["char_ap"] == pytest.approx(sum(j / (12 + j) for j in range(1, 22)) / total)
    run_map = Score.objects.get(run__tag="alpha2", scope=Score.RUN, measure="char_map").value
    assert run_map == pytest.approx(score["char_ap"])  # topic 1.002 has nothing judged: left out
    assert Score.objects.get(run__tag="alpha2", scope=Score.RUN, measure="char_map").detail["left_out"] == ["1.002"]

    xml = judging.export_run(Run.objects.get(tag="alpha1"))
    assert export.validate_export(xml) == []
    cites = etree.fromstring(xml).find("response").findall("cite")
    fare_cite = [c for c in cites if "".join(c.itertext()).startswith("The fare")][0]
    assert fare_cite.get("rel") == "yes" and fare_cite.get("id") == fare.pool_id
    assert [r.text for r in fare_cite.findall("relspan")] == ["too high for students"]
    assert fare_cite.get("original") == "The fare is too high for students, and the stations are far from Shubra."
    # The quoted near-duplicate takes its leader's judgment.
    quoted = [c for c in cites if c.get("post") == "p2" and c.get("offset") == "34"][0]
    assert quoted.get("rel") == "no"


def test_export_gives_a_near_duplicate_its_leaders_relevant_parts(loaded, make_user):
    a1 = make_user("bolt-a1", "assessor")
    topic = loaded.topics.get(ident="1.001")
    _assign(topic, a1)
    leader = next(i for i in judging.citation_items(topic) if i.text.startswith("The new metro line"))
    start = leader.text.index("Tickets cost 2 pounds")
    judging.judge_citation(a1, leader, {"rel": "yes", "trans": "accept", "chksrc": True, "relspans": [[start, 21]]}, 0)
    cites = etree.fromstring(judging.export_run(Run.objects.get(tag="alpha1"))).find("response").findall("cite")
    first, quoted = (c for c in cites if "".join(c.itertext()).startswith("The new metro line"))
    assert quoted.get("post") == "p2" and quoted.get("id") == "-1"  # the near-duplicate, not pooled
    # Its leader's judgment, relevant part included (not the whole passage marked relevant).
    for cite in (first, quoted):
        assert (cite.get("rel"), cite.get("trans")) == ("yes", "accept")
        assert [r.text for r in cite.findall("relspan")] == ["Tickets cost 2 pounds"]


def test_found_citation_and_agreement(loaded, make_user):
    a1, a2 = make_user("bolt-a1", "assessor"), make_user("bolt-a2", "assessor")
    topic = loaded.topics.get(ident="1.002")
    _assign(topic, a1)
    _assign(topic, a2, Assignment.SECONDARY)
    item, saved = judging.add_found_citation(
        a1, topic, "bolt-eng-DF-183-190210-0042", "p3", 50, 54, "Say what you want, the Hope Foundation does good work."
    )
    assert item.origin == PoolItem.ASSESSOR and item.pool_id == "1.002-A1"
    assert saved.judgment.value["rel"] == "yes"
    with pytest.raises(judging.BoltError, match="lies outside post"):
        judging.add_found_citation(a1, topic, "bolt-eng-DF-183-190210-0042", "p3", 100, 54, "past the end")
    items = judging.citation_items(topic)
    for n, item in enumerate(items):
        judging.judge_citation(a1, item, {"rel": "yes"}, None)
        judging.judge_citation(a2, item, {"rel": "yes" if n else "no"}, 0)
    result = judging.agreement(loaded)
    assert result["overall"]["items"] == len(items)
    assert result["overall"]["agreement"] == pytest.approx((len(items) - 1) / len(items))
    assert result["topics"][0]["topic"] == "1.002"
    # The second assessor's judgments do not count: the found citation is relevant in R.
    rescore_evaluation(loaded.pk)
    s = Score.objects.get(run__tag="beta1", scope=Score.SERIES, topic=topic, measure="char_f")
    assert s.detail["chars_relevant_total"] == sum(len(i.text) for i in items)


def test_grouping_judgment_and_measures(loaded, make_user):
    load(loaded, "alpha1-groups.xml")
    a1 = make_user("bolt-a1", "assessor")
    topic = loaded.topics.get(ident="1.002")
    _assign(topic, a1)
    for item in judging.citation_items(topic):
        judging.judge_citation(a1, item, {"rel": "no" if item.text.startswith("They helped") else "yes"}, 0)
    views = judging.grouping_views(topic)
    (tag, view), item = next(iter(views.items()))
    assert (tag, view) == ("alpha1-groups", "0")
    groups = judging.view_structure(item)
    food, funding = groups
    value = {
        "relevant": "yes",
        "useful": "yes",
        "groups": {
            "0": {
                "relevant": "yes",
                "cohesive": "yes",
                "scope": "yes",
                "members": {c["key"]: "yes" for c in food["citations"]},
            },
            "1": {
                "relevant": "yes",
                "cohesive": "yes",
                "scope": "no",
                "members": {funding["citations"][0]["key"]: "no"},
            },
        },
    }
    judging.judge_view(a1, item, value, 0)
    rescore_evaluation(loaded.pk)
    got = {s.measure: s.value for s in Score.objects.filter(run__tag="alpha1-groups", scope=Score.SERIES, topic=topic)}
    # view precision: group 0 relevant+scoped, group 1 not scoped -> 1/2; group precision (1 + 0)/2 = .5;
    # skew: food's citations 1 and 0 -> std .5, funding's one citation 1 -> std 0; mean over groups .25
    assert got["view_precision"] == pytest.approx(0.5)
    assert got["group_precision"] == pytest.approx(0.5)
    assert got["group_skew"] == pytest.approx(0.25)
    assert Score.objects.get(run__tag="alpha1-groups", scope=Score.RUN, measure="view_precision").value == 0.5


def test_scoreboard_and_report_show_char_measures(loaded, make_user, client):
    from django.urls import reverse

    from tests.conftest import PASSWORD

    a1 = make_user("bolt-a1", "assessor")
    topic = loaded.topics.get(ident="1.001")
    _assign(topic, a1)
    for item in judging.citation_items(topic):
        judging.judge_citation(a1, item, {"rel": "yes"}, 0)
    rescore_evaluation(loaded.pk)
    make_user("bolt-org", "organizer")
    client.login(username="bolt-org", password=PASSWORD)
    board = client.get(reverse("scoring:scoreboard", args=[loaded.slug]))
    assert board.status_code == 200
    text = board.content.decode()
    assert "alpha1" in text and "beta1" in text
    report = client.get(reverse("scoring:run_report", args=[loaded.slug, "alpha1"]))
    assert report.status_code == 200 and "Char. MAP" in report.content.decode()
    # The report says how passage characters were counted (SPEC-NOTES' reading, the default setting).
    assert "Passage characters are counted as submitted (SPEC-NOTES)" in report.content.decode()
    csv_text = client.get(reverse("scoring:run_report_csv", args=[loaded.slug, "alpha1"])).content.decode()
    assert "setting passage_white_space = 'as submitted'" in csv_text


def test_a_judgment_rescores_its_topic_live(loaded, make_user, django_capture_on_commit_callbacks):
    a1 = make_user("bolt-a1", "assessor")
    topic = loaded.topics.get(ident="1.001")
    _assign(topic, a1)
    rescore_evaluation(loaded.pk)
    before = Score.objects.get(run__tag="alpha2", scope=Score.SERIES, topic=topic, measure="char_precision")
    assert before.value == 0.0
    fare = next(i for i in judging.citation_items(topic) if i.text.startswith("The fare is too high"))
    with django_capture_on_commit_callbacks(execute=True):  # the commit enqueues rescoring (eager in tests)
        judging.judge_citation(a1, fare, {"rel": "yes"}, 0)
    after = Score.objects.get(run__tag="alpha2", scope=Score.SERIES, topic=topic, measure="char_precision")
    assert after.value == pytest.approx(72 / 124)  # the 72-character fare citation of 72 + 52 returned


def test_topic_file_citations_join_the_pool_and_count_in_r(loaded, make_user):
    org = make_user("bolt-org", "organizer")
    assert judging.import_topic_citations(loaded, org) == 1
    assert judging.import_topic_citations(loaded, org) == 0  # idempotent
    topic = loaded.topics.get(ident="1.001")
    item = PoolItem.objects.get(topic=topic, origin=PoolItem.ASSESSOR)
    assert (item.text, item.pool_id, item.data["ldc_id"]) == ("That is progress.", "1.001-A1", "LDC-1.001-1")
    build_pools(loaded)  # a rebuild keeps it
    assert PoolItem.objects.filter(pk=item.pk).exists()
    rescore_evaluation(loaded.pk)
    s = Score.objects.get(run__tag="alpha1", scope=Score.SERIES, topic=topic, measure="char_recall")
    assert s.detail["chars_relevant_total"] == len("That is progress.") and s.value == 0.0


def test_group_skew_counts_a_near_duplicate_with_its_leaders_judgment(loaded, make_user):
    load(loaded, "alpha1-groups.xml")
    a1 = make_user("bolt-a1", "assessor")
    topic = loaded.topics.get(ident="1.001")
    _assign(topic, a1)
    for item in judging.citation_items(topic):
        rel = "no" if item.text.startswith(("The women's car", "I took it", "My brother")) else "yes"
        judging.judge_citation(a1, item, {"rel": rel}, 0)
    rescore_evaluation(loaded.pk)  # no grouping judgment yet: skew needs only the citation judgments
    skew = Score.objects.get(run__tag="alpha1-groups", scope=Score.SERIES, topic=topic, measure="group_skew")
    # SPEC-NOTES: each group's standard deviation of its citations' precisions, averaged over the view's groups.
    # View 0: "Praise" = leader (yes), its quoted near-duplicate (takes yes), metro cheaper (yes), women's car (no)
    # -> precisions 1, 1, 1, 0: mean .75, std sqrt(3/16); "Complaints" = fare (yes), taxi (yes) -> std 0.
    # View mean sqrt(3/16)/2. View 1: "Riders" = leader, duplicate, fare, metro -> std 0; "Taxi drivers" -> 0
    # (misc not counted). Topic value: mean over the two views = sqrt(3/16)/4 = .10825.
    # (Today's code took one deviation across the groups' shares, std(.75, 1) = .125, and gave .0625.)
    assert skew.value == pytest.approx((3 / 16) ** 0.5 / 4)


def test_commands_export_agreement_and_team_topics(loaded, tmp_path, capsys):
    import json

    from django.core.management import call_command
    from django.core.management.base import CommandError

    call_command("bolt_export", loaded.slug, "--out", str(tmp_path))
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["alpha1.xml", "alpha2.xml", "beta1.xml"]
    assert all(export.validate_export(p.read_bytes()) == [] for p in tmp_path.iterdir())
    with pytest.raises(CommandError, match="no citation run nope"):
        call_command("bolt_export", loaded.slug, "nope")
    capsys.readouterr()
    call_command("bolt_agreement", loaded.slug)
    assert json.loads(capsys.readouterr().out)["overall"]["items"] == 0
    call_command("bolt_team_topics", loaded.slug)
    out = capsys.readouterr().out
    assert "<query>What do people in Cairo think of the new metro line?</query>" in out
    assert "description" not in out and "rules" not in out


def test_the_collapsed_reading_is_chosen_with_a_command(db, tmp_path):
    from django.core.management import CommandError, call_command

    load_collection("bolt-c-forum", "bolt-forum", [str(FIXTURES / "forum.xml")])
    call_command(
        "create_evaluation", "bolt-c", "--track", "bolt-ir-p2", "--collection", "bolt-c-forum",
        "--setting", "passage_white_space=collapsed",
    )  # fmt: skip
    ev = Evaluation.objects.get(slug="bolt-c")
    assert ev.settings["passage_white_space"] == "collapsed" and ev.settings["max_passage_chars"] == 250
    with pytest.raises(CommandError, match="'passage_blanks' is not a setting of track bolt-ir-p2"):
        call_command("update_evaluation", "bolt-c", "--setting", "passage_blanks=collapsed")
    # A passage wrapped over an indented line is stored collapsed under this reading, as submitted by default.
    load_topics(ev, (FIXTURES / "topics.xml").read_bytes(), "topics.xml")
    wrapped = (FIXTURES / "alpha2.xml").read_bytes().replace(b"The fare is too high", b"The fare\n      is too high")
    (result,) = load_run_files(ev, [RunFile(filename="alpha2.xml", data=wrapped, team="Team Alpha", priority=1)])
    assert not result.problems
    texts = {e.text for e in result.run.entries.all()}
    assert "The fare is too high for students, and the stations are far from Shubra." in texts
    call_command("update_evaluation", "bolt-c", "--setting", "passage_white_space=as submitted")
    ev.refresh_from_db()
    (result,) = load_run_files(ev, [RunFile(filename="alpha3.xml", data=wrapped, team="Team Alpha", priority=1)])
    assert "The fare\n      is too high for students, and the stations are far from Shubra." in {
        e.text for e in result.run.entries.all()
    }
