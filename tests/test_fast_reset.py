"""tests/fast_reset.py: the reset after a transactional test leaves what Django's flush leaves."""

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from tests import fast_reset
from tracks.qa.sample import build_sample
from tracks.qa.synthetic import tiny_trec2007

pytestmark = pytest.mark.django_db(transaction=True)


def _counts():
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        counts = {}
        for table in connection.introspection.django_table_names(only_existing=True, include_views=False):
            cursor.execute(f"SELECT count(*) FROM {quote(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


def _fill(make_user):
    build_sample(slug="reset-a")  # evaluations, topics, runs, pools, judgments: rows linked by foreign keys
    tiny_trec2007(slug="reset-b")
    make_user("reset-user", "participant", team="Team Reset")


@pytest.fixture
def vendor():
    if connection.vendor != "postgresql":
        pytest.skip("the fast reset is PostgreSQL's; elsewhere Django's flush runs")


@pytest.mark.parametrize("delete_at_most", [fast_reset.DELETE_AT_MOST, 0], ids=["delete", "truncate"])
def test_every_table_is_emptied_but_content_types_and_permissions(vendor, make_user, monkeypatch, delete_at_most):
    monkeypatch.setattr(fast_reset, "DELETE_AT_MOST", delete_at_most)
    kept = (ContentType.objects.count(), Permission.objects.count())
    _fill(make_user)
    filled = [table for table, n in _counts().items() if n and table not in fast_reset.KEPT]
    assert {"pooling_evaluation", "pooling_poolitem", "assess_judgment", "auth_user_groups"} <= set(filled)
    assert fast_reset.empty_tables()
    counts = _counts()
    assert {t: n for t, n in counts.items() if n and t not in fast_reset.KEPT} == {}
    assert (counts["django_content_type"], counts["auth_permission"]) == kept
    assert all(kept)


def test_a_test_that_changed_the_kept_tables_gets_djangos_flush(vendor, make_user):
    _fill(make_user)
    assert fast_reset.empty_tables()  # the counts are as the first reset found them
    Permission.objects.create(
        codename="probe", name="probe", content_type=ContentType.objects.get_for_model(Permission)
    )
    assert not fast_reset.empty_tables()  # (the teardown's flush then re-creates them as post_migrate does)
