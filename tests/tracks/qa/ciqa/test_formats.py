"""ciQA's pure formats: the topic file (seed 001 3.2 and Figure 2), URL files and the questionnaire definition."""

from pooling.formats.base import CheckContext
from tracks.qa.formats import ciqa_runs
from tracks.qa.formats.ciqa_questionnaire import check_answer, default_questionnaire, parse_questionnaire
from tracks.qa.formats.ciqa_topics import KIND, TRAINING_KIND, match_template, parse_topics
from tracks.qa.formats.ciqa_urls import parse_url_file

SEED_EXAMPLE = b"""Topic Number: oQA2007throwaway
Template: What is the position of [Hank Aaron] with respect to [Barry Bonds' use of steroids]?
Narrative: Hank Aaron is the all-time home run leader, a feat which Bonds is threatening; however, Bonds has
been accused of drug usage to help his home run achievements.

Topic Number: 56
Template: What evidence is there for transport of [drugs] from [Mexico] to [the U.S.]?
Narrative: The analyst would like to know of efforts to curtail the transport of drugs from Mexico to the U.S.
"""


def test_the_seeds_example_parses_with_template_slots_and_narrative():
    problems, topics = parse_topics(SEED_EXAMPLE, "topics.txt")
    assert problems == []
    training, drugs = topics
    assert (training.ident, training.kind, training.data["training"]) == ("oQA2007throwaway", TRAINING_KIND, True)
    assert training.data["template"] == 4
    assert training.data["slots"] == ["Hank Aaron", "Barry Bonds' use of steroids"]
    assert training.data["narrative"].endswith("help his home run achievements.")  # the continuation line joined
    assert (drugs.ident, drugs.kind, drugs.line) == ("56", KIND, 6)
    assert drugs.data["template"] == 1 and drugs.data["slots"] == ["drugs", "Mexico", "the U.S."]
    assert drugs.text == "What evidence is there for transport of [drugs] from [Mexico] to [the U.S.]?"


def test_each_of_the_five_templates_is_recognised():
    cases = {
        "What evidence is there for transport of [guns] from [Iraq] to [Syria]?": 1,
        "What [financial relationships] exist between [drug companies] and [universities]?": 2,
        "What effect does [the Pope] have on [Poland]?": 3,
        "What influence do [religious groups] have in [US politics]?": 3,
        "What is the position of [Germany] with respect to [Iran's nuclear program]?": 4,
        "Is there evidence to support the involvement of [Iran] in [the Lebanon war]?": 5,
    }
    for text, number in cases.items():
        template, slots = match_template(text)
        assert template.number == number, text
        assert all(slots)
    assert match_template("Who is [Hank Aaron]?") is None


def test_problems_are_named_by_line():
    bad = b"""Narrative: orphan
Topic Number: 57
Template: Who is [Hank Aaron]?
Narrative: x

Topic Number: 58
Template: What [business ties] exist between [A] and [B]?
Narrative: y
Topic Number: 57
Template: What effect does [A] have on [B]?
Narrative: z
Topic Number: 59
Template: What effect does [A] have on [B]?
"""
    problems, topics = parse_topics(bad, "t.txt")
    said = [p.format("t.txt") for p in problems]
    assert said == [
        "t.txt:1: 'Narrative:' before the first 'Topic Number:' line",
        "t.txt:3: topic 57: the template matches none of the five ciQA templates "
        "(What evidence is there for transport of [goods] from [entity] to [entity]?; "
        "What [relationship] exist between [entity] and [entity]?; "
        "What influence/effect do(es) [entity] have on/in [entity]?; "
        "What is the position of [entity] with respect to [issue]?; "
        "Is there evidence to support the involvement of [entity] in [event/entity]?)",
        "t.txt:7: topic 58: relationship 'business ties' is not one of financial relationships, organizational "
        "ties, familial ties, common interests",
        "t.txt:9: duplicate topic number '57'; first used on line 2",
        "t.txt:12: topic 59 has no 'Narrative:'",
    ]
    assert topics == []


def test_a_second_training_topic_and_bad_encoding_are_refused():
    two = SEED_EXAMPLE + SEED_EXAMPLE.replace(b"oQA2007throwaway", b"training2").replace(b"56", b"60")
    problems, _ = parse_topics(two, "t.txt")
    assert [p.format("t.txt") for p in problems] == ["t.txt:9: a second training topic; the first is on line 1"]
    problems, _ = parse_topics(b"Topic Number: 1\nTemplate: \xff\n", "t.txt")
    assert problems[0].line == 2 and "UTF-8" in problems[0].message


TOPICS = ["oQA2007throwaway", "56", "57"]


def test_a_url_file_needs_a_tag_and_one_http_url_per_topic():
    good = b"""# UMD's system
tag UMDurl1
screenshot https://umd.example.org/shot.png
oQA2007throwaway https://umd.example.org/ciqa?t=train
57 http://umd.example.org:8080/ciqa?t=57
56 https://umd.example.org/ciqa?t=56
"""
    problems, parsed = parse_url_file(good, "u.txt", TOPICS)
    assert problems == []
    assert parsed.tag == "UMDurl1" and parsed.screenshots == ["https://umd.example.org/shot.png"]
    assert list(parsed.urls) == TOPICS  # topic order, not file order
    bad = b"""56 ftp://umd.example.org/x
56 https://a.example.org/
99 https://a.example.org/
oQA2007throwaway https://
56 https://b.example.org/ extra
"""
    problems, parsed = parse_url_file(bad, "u.txt", TOPICS)
    assert parsed is None
    assert [p.format("u.txt") for p in problems] == [
        "u.txt:1: URL 'ftp://umd.example.org/x' is not http(s)",
        "u.txt:3: unknown topic '99'",
        "u.txt:4: URL 'https://' names no host",
        "u.txt:5: expected 'TOPIC URL', 'tag NAME' or 'screenshot URL', found 3 columns",
        "u.txt:0: no 'tag NAME' line naming the URL file",
        "u.txt:0: topic oQA2007throwaway has no URL: every topic needs one",
        "u.txt:0: topic 57 has no URL: every topic needs one",
    ]


def test_runs_do_not_answer_the_training_topic():
    context = CheckContext(topics={"oQA2007throwaway": TRAINING_KIND, "56": KIND}, settings={})
    problems, parsed = ciqa_runs.check_run(b"56 UMD1 D1 some answer\n", "r.txt", context)
    assert problems == [] and parsed.tag == "UMD1"
    problems, parsed = ciqa_runs.check_run(b"56 UMD1 D1 some answer\noQA2007throwaway UMD1 D1 x\n", "r.txt", context)
    assert parsed is None
    assert [p.format("r.txt") for p in problems] == [
        "r.txt:2: topic oQA2007throwaway is the training topic: runs do not answer it"
    ]


def test_the_default_questionnaire_is_the_seeds_and_definitions_are_checked():
    q = default_questionnaire()
    assert [x["id"] for x in q["interaction"]] == [
        "understand",
        "coherent",
        "stimulating",
        "new-ways",
        "learn",
        "quality",
        "comments",
    ]
    assert q["interaction"][0] | {} == {
        "id": "understand",
        "kind": "scale",
        "text": "How easy was it to understand how to interact with this system?",
        "left": "easy",
        "right": "difficult",
    }
    assert len(q["overall"]) == 4
    problems, _ = parse_questionnaire("scale a | Q | l | r\n[misc]\n[interaction]\nscale a | Q | l\ntext a | Q\n")
    assert [p.format("q") for p in problems] == [
        "q:1: a question before [interaction] or [overall]",
        "q:2: unknown section [misc]; expected [interaction] or [overall]",
        "q:4: expected 'scale ID | QUESTION | LEFT | RIGHT'",
    ]
    problems, _ = parse_questionnaire("[interaction]\ntext a | Q\ntext a | R\n")
    assert [p.format("q") for p in problems] == ["q:3: duplicate question id 'a'; first on line 2"]
    scale = q["interaction"][0]
    assert check_answer(scale, "3") is None and check_answer(scale, "") is None
    assert check_answer(scale, "6") == "understand: a rating from 1 to 5, not '6'"


def test_control_characters_are_refused_by_line():
    problems, _ = parse_topics(b"Topic Number: 56\nTemplate: x\x00y\n", "t.txt")
    assert [p.format("t.txt") for p in problems][0] == "t.txt:2: bad encoding: control character U+0000"
    problems, _ = parse_url_file(b"tag A\n56 https://a.example.org/\x00\n", "u.txt", ["56"])
    assert [p.format("u.txt") for p in problems][0] == "u.txt:2: bad encoding: control character U+0000"


def test_url_files_point_only_at_public_hosts_as_a_browser_reads_them():
    def problems_of(*hosts, allow=False, resolve=None):
        lines = "".join(f"56 http://{h}/x\n" for h in hosts)
        data = f"tag T\noQA2007throwaway https://a.example.org/\n{lines}57 https://a.example.org/\n".encode()
        return [p.format("u.txt") for p in parse_url_file(data, "u.txt", TOPICS, allow, resolve)[0]]

    kinds = {
        "169.254.169.254": "a link-local address",
        "2852039166": "a link-local address",  # 169.254.169.254 as one number
        "0xa9.0xfe.0xa9.0xfe": "a link-local address",
        "169.254.43518": "a link-local address",
        "0251.0376.0251.0376": "a link-local address",  # octal
        "127.1": "a loopback address",
        "%31%32%37.0.0.1": "a loopback address",
        "\uff11\uff12\uff17.0.0.1": "a loopback address",  # full-width digits
        "localhost": "a loopback address",
        "ciqa.localhost": "a loopback address",
        "[::1]": "a loopback address",
        "[::ffff:10.0.0.1]": "a private address",
        "10.1.2.3": "a private address",
        "192.168.0.10": "a private address",
        "[fe80::1]": "a link-local address",
        "224.0.0.1": "a multicast address",
        "0.0.0.0": "an unspecified address",
        "240.0.0.1": "a reserved address",
        "100.64.0.1": "a non-public address",
    }
    for host, kind in kinds.items():
        problem = problems_of(host)[0]  # (then: topic 56 has no URL)
        shown = host.strip("[]")
        assert problem.startswith(f"u.txt:3: URL 'http://{host}/x': host '{shown}")
        assert f"is {kind}; assessors are only sent to public addresses" in problem, problem
    assert problems_of("1.2.3.09")[0] == (
        "u.txt:3: URL 'http://1.2.3.09/x': host '1.2.3.09' is not a valid IPv4 address (a browser reads a host "
        "ending in a number as one)"
    )
    assert problems_of("93.184.216.34") == problems_of("umd.example.org") == []
    # the organizer may allow them (the demo does: its systems are on its own host)
    assert problems_of("127.0.0.1:8000", allow=True) == problems_of("169.254.169.254", allow=True) == []
    # a name is looked up only by the resolver the caller gives
    resolve = {"intranet.example.org": ["93.184.216.34", "10.0.0.7"]}.get
    assert problems_of("intranet.example.org") == []
    assert problems_of("intranet.example.org", resolve=lambda h: resolve(h, []))[0] == (
        "u.txt:3: URL 'http://intranet.example.org/x': host 'intranet.example.org' resolves to 10.0.0.7, a private "
        "address; assessors are only sent to public addresses (the evaluation's setting allow_private_urls is off)"
    )
