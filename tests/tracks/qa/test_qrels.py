"""QA's answer documents as qrels (issue 28) on the judging sample (tracks.qa.sample, TREC 2007): the
supporting document of each response under its question, binary from the instance label, an Other response 1
when it matched a nugget, NIL left out, -1 where nobody judged; per assessor in qrels_jg."""

import ir_measures

from assess.models import Judgment
from scoring.qrels import qrels_jg_lines, qrels_lines


def test_answer_documents_graded_from_the_instance_labels(sample, make_user):
    ann, bob = make_user("q-ann", "assessor"), make_user("q-bob", "assessor")
    factoid, other = sample.items["1.1"], sample.items["1.3"]

    def judge(item, kind, value, user=ann, role=Judgment.PRIMARY):
        Judgment.objects.create(
            evaluation=sample.evaluation, topic=item.topic, kind=kind, item=item, assessor=user, role=role, value=value
        )

    judge(factoid[0], "instance", {"label": "correct"})  # 1983
    judge(factoid[1], "instance", {"label": "unsupported"})  # Karl Lagerfeld
    judge(factoid[3], "instance", {"label": "non-exact"})  # Paris
    judge(factoid[3], "instance", {"label": "incorrect"}, bob, Judgment.SECONDARY)
    judge(other[0], "nugget_match", {"nuggets": [7]})
    judge(other[1], "nugget_match", {"nuggets": []})
    lines = "".join(qrels_lines(sample.evaluation)).splitlines()
    assert [line for line in lines if line.startswith("1.1 ")] == [
        "1.1 0 DOC001-1-0000 1",
        "1.1 0 DOC001-1-0001 0",
        "1.1 0 DOC001-1-0003 1",  # NIL (item 2) names no document
    ]
    assert [line for line in lines if line.startswith("1.3 ")][:2] == ["1.3 0 DOC001-3-0000 1", "1.3 0 DOC001-3-0001 0"]
    assert all(line.endswith(" -1") for line in lines if line.startswith("1.2 "))  # the list question: unjudged
    assert len(list(ir_measures.read_trec_qrels("\n".join(lines)))) == len(lines)
    jg = "".join(qrels_jg_lines(sample.evaluation)).splitlines()
    assert "1.1 primary DOC001-1-0003 1" in jg and "1.1 secondary DOC001-1-0003 0" in jg and len(jg) == 6
