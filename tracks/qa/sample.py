"""A small, self-contained QA evaluation to judge: used by the judging tests (the `sample` fixture).

Built with the ORM only (no loaders): a collection with a few documents, a series with a factoid, a list and an
Other question (TREC 2007) or a rigid and a squishy list question (TAC 2008), two runs whose answers are pooled.
"""

from dataclasses import dataclass, field

from accounts.models import Team
from corpus.models import Collection, Document
from pooling.models import Evaluation, PoolItem, Run, RunEntry, Topic

ANSWERS = {
    "FACTOID": ["1983", "Karl Lagerfeld", "NIL", "Paris"],
    "LIST": ["Nicole Kidman", "Keira Knightley", "N. Kidman", "Brad Pitt"],
    "RIGIDLIST": ["Sean Hannity fans", "talk radio listeners", "Hannity's viewers", "nobody"],
    "OTHER": [
        "founded by Coco Chanel in 1909",
        "headquartered in Paris",
        "Chanel No. 5 is its top-selling perfume",
        "Karl Lagerfeld became designer in 1983",
    ],
    "SQUISHYLIST": ["he is patriotic", "he defends conservative values", "he is entertaining", "he is funny"],
}
SERIES_TYPES = {"trec2007-qa": ("FACTOID", "LIST", "OTHER"), "tac2008-qa": ("RIGIDLIST", "SQUISHYLIST")}


@dataclass
class Sample:
    evaluation: Evaluation
    series: list
    questions: dict = field(default_factory=dict)  # ident -> Topic
    items: dict = field(default_factory=dict)  # question ident -> [PoolItem]


def build_sample(slug="assess-sample", track="trec2007-qa", n_series=1, items_per_question=4):
    """The evaluation with `n_series` series; each question has `items_per_question` pool items (at most 4
    distinct answers, repeated across documents beyond that)."""
    collection, _ = Collection.objects.get_or_create(name=f"{slug}-docs", defaults={"format": "aquaint2"})
    evaluation = Evaluation.objects.create(slug=slug, title=f"Sample {track}", track=track)
    evaluation.collections.add(collection)
    team, _ = Team.objects.get_or_create(name=f"{slug} team")
    runs = [Run.objects.create(evaluation=evaluation, team=team, tag=f"{slug}run{i}", priority=i) for i in (1, 2)]
    sample = Sample(evaluation=evaluation, series=[])
    docs = {}
    position = 0
    for s in range(1, n_series + 1):
        series = Topic.objects.create(
            evaluation=evaluation, ident=str(s), kind="series", text=f"House of Chanel {s}", position=position
        )
        position += 1
        sample.series.append(series)
        for qn, qtype in enumerate(SERIES_TYPES[track], start=1):
            question = Topic.objects.create(
                evaluation=evaluation,
                parent=series,
                ident=f"{s}.{qn}",
                kind=qtype,
                text=f"Question {qn} of type {qtype}",
                position=position,
            )
            position += 1
            sample.questions[question.ident] = question
            items = []
            for k in range(items_per_question):
                answer = ANSWERS[qtype][k % 4]
                if answer == "NIL" and k >= 4:  # one NIL per question: NIL has no document to tell copies apart
                    answer = f"Answer {k}"
                nil = answer == "NIL"
                docid = "" if nil else f"DOC{s:03d}-{qn}-{k:04d}"
                if docid and docid not in docs:
                    docs[docid] = Document(
                        collection=collection,
                        docno=docid,
                        raw=(
                            f'<DOC id="{docid}" type="story"><HEADLINE>Sample</HEADLINE>'
                            f"<TEXT><P>Reported: {answer}.</P></TEXT></DOC>"
                        ).encode(),
                        text=f"Sample\n\nReported: {answer}.",
                    )
                item = PoolItem.objects.create(
                    evaluation=evaluation,
                    topic=question,
                    key=f"{docid}\t{answer}",
                    docid=docid,
                    text=answer,
                    position=k,
                )
                for i, run in enumerate(runs):
                    if i == 0 or k % 2 == 0:
                        entry = RunEntry.objects.create(
                            run=run, topic=question, line_no=position * 1000 + k, docid=docid or "NIL", text=answer
                        )
                        item.sources.add(entry)
                items.append(item)
            sample.items[question.ident] = items
    Document.objects.bulk_create(docs.values(), ignore_conflicts=True)
    return sample
