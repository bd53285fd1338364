"""Assessors see NIST's top-documents list of their series, linked to the document viewer."""

from django.urls import reverse

from assess.models import Assignment
from corpus.models import Collection, Document
from pooling.models import Evaluation, Topic
from pooling.topics import load_top_docs
from tests.conftest import PASSWORD


def test_series_page_lists_top_documents_linked_to_the_viewer(client, make_user):
    me = make_user("judge", "assessor")
    collection = Collection.objects.create(name="blogs", format="blog06")
    Document.objects.create(
        collection=collection,
        docno="BLOG06-20051206-001-0001",
        raw=b"<p>Kong is great</p>",
        charset="utf-8",
        text="Kong is great",
    )
    evaluation = Evaluation.objects.create(slug="tac", title="TAC", track="tac2008-qa")
    evaluation.collections.add(collection)
    series = Topic.objects.create(evaluation=evaluation, ident="1001", kind="series", text="King Kong")
    Topic.objects.create(
        evaluation=evaluation, parent=series, ident="1001.1", kind="RIGIDLIST", position=1, text="Who liked King Kong?"
    )
    load_top_docs(evaluation, b"1001 1 BLOG06-20051206-001-0001 9.5\n1001 2 BLOG06-20051207-002-0002 8.0\n", "top")
    assignment = Assignment.objects.create(evaluation=evaluation, topic=series, assessor=me)

    client.login(username="judge", password=PASSWORD)
    body = client.get(reverse("qa:assignment", args=[assignment.pk])).content.decode()
    link = reverse("corpus:document", args=["blogs", "BLOG06-20051206-001-0001"])
    assert f'href="{link}"' in body
    assert "BLOG06-20051207-002-0002" in body
    assert client.get(link).status_code == 200
