"""BOLT thematic grouping files (subtask "groups"), checked against the citation run they come from."""

from pathlib import Path

from pooling.formats.base import CheckContext
from tracks.bolt.formats import citations
from tracks.bolt.formats import groups as grouping_format

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "bolt"
T1 = "bolt-eng-DF-170-181103-8882"


def citation_run(name):
    ctx = CheckContext(topics={"1.001": "topic", "1.002": "topic"}, settings={})
    problems, run = citations.check_run((FIXTURES / name).read_bytes(), name, ctx)
    assert problems == []
    by_topic = {}
    for e in run.entries:
        by_topic.setdefault(e.topic, []).append(
            {
                "thread": e.docid,
                "post": e.data["post"],
                "offset": e.data["offset"],
                "length": e.data["length"],
                "score": e.data["score"],
                "passage": e.text,
                "id": f"id-{e.line}",
            }
        )
    return by_topic


def context(**extra):
    runs = {"alpha1": citation_run("alpha1.xml"), "alpha2": citation_run("alpha2.xml")}
    return CheckContext(
        topics={"1.001": "topic", "1.002": "topic"}, settings={}, extra={"citation_runs": runs, **extra}
    )


def test_fixture_grouping_passes_through_the_citation_checker():
    data = (FIXTURES / "alpha1-groups.xml").read_bytes()
    problems, run = citations.check_run(data, "alpha1-groups.xml", context())
    assert problems == []
    assert run.tag == "alpha1-groups"
    assert run.data["subtask"] == "groups" and run.data["citation_run"] == "alpha1"  # found by its citations
    views = {(e.topic, e.data["view"]) for e in run.entries}
    assert views == {("1.001", "0"), ("1.001", "1"), ("1.002", "0")}
    misc = [e for e in run.entries if e.data["misc"]]
    assert len(misc) == 1 and misc[0].data["group_label"] == "miscellaneous"
    first = run.entries[0]
    assert first.data["view_label"] == "For and against the metro"
    assert first.data["group_label"] == "Praise for the metro" and first.data["grpscore"] == 0.9


def test_named_citation_run_must_exist_and_match():
    data = (FIXTURES / "alpha1-groups.xml").read_bytes()
    problems, _ = grouping_format.check_groups(data, "g.xml", context(citation_run="nope"))
    assert [p.message for p in problems] == ["citation run 'nope' is not a citation run of this team"]
    problems, _ = grouping_format.check_groups(data, "g.xml", context(citation_run="alpha2"))
    assert problems and all("not verbatim" in p.message or "leaves" in p.message for p in problems)


def _cite(score="0.5", passage="alpha beta gamma", grpscore="0.5", extra=""):
    return (
        f'<cite grpscore="{grpscore}" score="{score}" thread="{T1}" post="p1" offset="0" length="5"{extra}>'
        f"{passage}</cite>"
    )


def test_every_problem_by_line():
    groups = "\n".join(f'<group number="{i}" label="g{i}">{_cite()}</group>' for i in range(11))
    data = f"""<bolt-ir-submission team="t" date="d" eval="BOLT-IR-P2" subtask="groups" contact="c">
<response number="1.001">
<view number="0" label="{"x" * 251}">
{groups}
<group number="11" label="Miscellaneous">{_cite()}</group>
</view>
<view number="0" label="again">
<group number="0" label="">{_cite(grpscore="2")}</group>
<group number="0" label="dup">{_cite(passage="not in the run")}</group>
<group number="2" label="empty"></group>
</view>
<view number="2" label="three"><group number="0" label="a">{_cite(extra=' id="wrong"')}</group></view>
<view number="3" label="four"><group number="0" label="a">{_cite()}</group></view>
</response>
</bolt-ir-submission>""".encode()
    run = {
        "1.001": [
            {
                "thread": T1,
                "post": "p1",
                "offset": 0,
                "length": 5,
                "score": 0.5,
                "passage": "alpha beta gamma",
                "id": "right",
            },
            {"thread": T1, "post": "p1", "offset": 9, "length": 5, "score": 0.4, "passage": "left out"},
        ]
    }
    ctx = CheckContext(topics={"1.001": "topic"}, settings={}, extra={"citation_runs": {"r1": run}})
    problems, parsed = grouping_format.check_groups(data, "g.xml", ctx)
    assert parsed is None
    assert [p.format("g.xml") for p in problems] == [
        "g.xml:2: response 1.001 has 4 views; at most 3 are allowed",
        "g.xml:3: topic 1.001 view 0: label has 251 characters; at most 250 are allowed",
        "g.xml:3: topic 1.001 view 0 has 11 groups besides miscellaneous; at most 10 are allowed",
        "g.xml:3: topic 1.001 view 0 leaves 1 citation(s) of run r1 out of every group",
        "g.xml:17: topic 1.001: view number 0 repeated (first at line 3)",
        "g.xml:17: topic 1.001 view 0 leaves 1 citation(s) of run r1 out of every group",
        "g.xml:18: topic 1.001 view 0 group 0: missing or empty label",
        "g.xml:18: cite: grpscore must be a number between 0 and 1, not '2'",
        "g.xml:19: topic 1.001 view 0: group number 0 repeated (first at line 18)",
        "g.xml:19: cite is not verbatim a citation of run r1 for topic 1.001 (thread, post, offset, length, score "
        "and passage must all match)",
        "g.xml:20: topic 1.001 view 0 group 2 has no <cite>",
        "g.xml:22: cite id 'wrong' is not the pooling id 'right' of that citation",
        "g.xml:22: topic 1.001 view 2 leaves 1 citation(s) of run r1 out of every group",
        "g.xml:23: topic 1.001 view 3 leaves 1 citation(s) of run r1 out of every group",
    ]


def test_miscellaneous_does_not_count_and_labels_limit_is_a_setting():
    groups = "\n".join(f'<group number="{i}" label="g{i}">{_cite()}</group>' for i in range(10))
    data = f"""<bolt-ir-submission team="t" date="d" eval="BOLT-IR-P2" subtask="groups" contact="c">
<response number="1.001"><view number="0" label="twelve chars">
{groups}<group number="10" label=" miscellaneous ">{_cite()}</group></view></response>
</bolt-ir-submission>""".encode()
    run = {
        "1.001": [{"thread": T1, "post": "p1", "offset": 0, "length": 5, "score": 0.5, "passage": "alpha beta gamma"}]
    }
    ctx = CheckContext(topics={"1.001": "topic"}, settings={}, extra={"citation_runs": {"r1": run}})
    problems, parsed = grouping_format.check_groups(data, "g.xml", ctx)
    assert problems == [] and len(parsed.entries) == 11
    ctx.settings = {"max_label_chars": 5}
    problems, _ = grouping_format.check_groups(data, "g.xml", ctx)
    assert [p.message for p in problems] == [
        "topic 1.001 view 0: label has 12 characters; at most 5 are allowed",
        "topic 1.001 view 0 group 10: label has 13 characters; at most 5 are allowed",
    ]


def test_no_citation_run_to_check_against():
    data = (FIXTURES / "alpha1-groups.xml").read_bytes()
    ctx = CheckContext(topics={"1.001": "topic", "1.002": "topic"}, settings={}, extra={})
    problems, _ = grouping_format.check_groups(data, "g.xml", ctx)
    assert [p.message for p in problems] == ["the team has no citation run to check this grouping against"]


def test_the_grouping_keeps_to_its_own_teams_runs():
    data = (FIXTURES / "alpha1-groups.xml").read_bytes()
    runs = {"alpha1": citation_run("alpha1.xml"), "copy-by-beta": citation_run("alpha1.xml")}
    ctx = CheckContext(
        topics={"1.001": "topic", "1.002": "topic"},
        settings={},
        extra={
            "citation_runs": lambda: runs,
            "citation_run_teams": lambda: {"alpha1": "Team Beta", "copy-by-beta": "Team Alpha"},
        },
    )
    problems, run = grouping_format.check_groups(data, "g.xml", ctx)
    assert problems == [] and run.data["citation_run"] == "copy-by-beta"  # the header says Team Alpha
