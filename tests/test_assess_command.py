"""`manage.py judging`: the organizer's judging actions from the command line."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from assess import judging
from assess.models import Assignment, Invitation, TopicClosure
from tracks.qa import instance_judging
from tracks.qa.sample import build_sample


def run(*args):
    out = StringIO()
    call_command("judging", *args, stdout=out)
    return out.getvalue()


def test_organizer_actions_and_reports(make_user, organizer):
    sample = build_sample()
    ann, bob, cy = (make_user(n, "assessor") for n in ("ann", "bob", "cy"))
    Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=ann)
    slug = sample.evaluation.slug
    assert "second assessor bob on series 1" in run("second", slug, "1", "bob", "--by", "org")
    run("invite-voter", slug, "1", "cy", "--by", "org")
    run("invite-adjudicator", slug, "cy", "--by", "org")
    assert Invitation.objects.filter(user=cy).count() == 2
    it = sample.items["1.1"][0]
    instance_judging.judge_instance(ann, judging.load_item(ann, it.pk), "incorrect", 0)
    instance_judging.judge_instance(bob, judging.load_item(bob, it.pk), "non-exact", 0)
    assert "ann: incorrect\tbob: non-exact\topen" in run("queue", slug)
    assert "pair ann/bob\tn=1\tagreement=0.000" in run("agreement", slug)
    assert "ann\t1\tprimary\t1\t12" in run("progress", slug)
    run("close", slug, "1.1", "--by", "org")
    assert TopicClosure.objects.filter(topic__ident="1.1").exists()
    with pytest.raises(CommandError, match="only an organizer"):
        run("reopen", slug, "1.1", "--by", "ann")
    with pytest.raises(CommandError, match="no topic"):
        run("close", slug, "9.9", "--by", "org")
