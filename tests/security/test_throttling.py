"""Issue 26, item 4: login throttling that cannot be turned against a user. Five wrong passwords from one address
used to lock the user name everywhere for an hour (the organizer too, mid-campaign). Now django-axes locks the
(user name, address) pair, guesses from many addresses only slow the user name down (a short wait, never a
lock), the client's address is REMOTE_ADDR (an X-Forwarded-For a client sends changes nothing), and organizers
see each locked address on the user's page with an unlock button."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.urls import reverse

from config.auth import username_wait
from core.models import AuditEntry
from tests.conftest import PASSWORD

ATTACKER, VICTIM = "203.0.113.66", "198.51.100.7"


@pytest.fixture
def victim(settings, make_user):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # logins by the dozen
    return make_user("org", "organizer")


def login(address, password, username="org", **headers):
    client = Client(REMOTE_ADDR=address)
    answer = client.post(reverse("login"), {"username": username, "password": password}, **headers)
    return client, answer


def _age_attempts(seconds):
    """As if the failed logins happened `seconds` earlier (instead of waiting)."""
    for attempt in AccessAttempt.objects.all():
        attempt.attempt_time -= timedelta(seconds=seconds)
        attempt.save(update_fields=["attempt_time"])


def test_guesses_from_one_address_lock_that_address_not_the_user(victim, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(ATTACKER, "wrong")[1].status_code == 200
    locked = login(ATTACKER, "wrong")[1]
    assert locked.status_code == 429 and "from your address are locked" in locked.content.decode()
    assert login(ATTACKER, PASSWORD)[1].status_code == 429  # the pair stays locked, right password or not
    _age_attempts(settings.AXES_USERNAME_MAX_WAIT)  # past the user name's short wait (see below)
    client, answer = login(VICTIM, PASSWORD)
    assert answer.status_code == 302 and client.session["_auth_user_id"] == str(victim.pk)


def test_a_forged_forwarded_for_header_locks_only_the_sender(victim, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(ATTACKER, "wrong", HTTP_X_FORWARDED_FOR=VICTIM, HTTP_X_REAL_IP=VICTIM)
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}
    _age_attempts(settings.AXES_USERNAME_MAX_WAIT)
    assert login(VICTIM, PASSWORD)[1].status_code == 302


def test_guesses_from_many_addresses_slow_the_user_name_down_without_locking_it(victim, settings):
    for n in range(settings.AXES_FAILURE_LIMIT):
        assert login(f"192.0.2.{n + 1}", "wrong")[1].status_code == 200
    # five failures, none from this address: the user name waits (a refusal at once, not counted, not a lock)
    slowed = login(VICTIM, PASSWORD)[1]
    assert slowed.status_code == 429 and "try again in 1 s" in slowed.content.decode()
    assert sum(AccessAttempt.objects.values_list("failures_since_start", flat=True)) == settings.AXES_FAILURE_LIMIT
    assert not AccessAttempt.objects.filter(ip_address=VICTIM).exists()
    _age_attempts(1)
    assert login(VICTIM, PASSWORD)[1].status_code == 302


def test_the_wait_grows_with_the_failures_up_to_a_cap(victim, settings):
    login("192.0.2.1", "wrong")
    attempt = AccessAttempt.objects.get()
    now = attempt.attempt_time
    for failures, wait in [(4, 0), (5, 1), (6, 2), (8, 8), (40, settings.AXES_USERNAME_MAX_WAIT)]:
        AccessAttempt.objects.filter(pk=attempt.pk).update(failures_since_start=failures)
        assert username_wait("org", now=now) == wait
    assert username_wait("org", now=now + timedelta(seconds=settings.AXES_USERNAME_MAX_WAIT)) == 0
    assert username_wait("someone-else", now=now) == 0


def test_organizers_see_the_locked_addresses_and_unlock_them(victim, make_user, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(ATTACKER, "wrong", username="par")
    participant = make_user("par", "participant")
    client = Client(REMOTE_ADDR=VICTIM)
    client.force_login(victim)
    page = client.get(reverse("accounts:user_detail", args=[participant.pk])).content.decode()
    assert 'id="locks"' in page and ATTACKER in page and 'id="unlock-button"' in page
    assert "locked (failed logins)" in client.get(reverse("accounts:users")).content.decode()
    assert client.post(reverse("accounts:user_unlock", args=[participant.pk])).status_code == 302
    assert not AccessAttempt.objects.filter(username="par").exists()
    assert AuditEntry.objects.get(action="user unlocked").target == "par"
    assert 'id="locks"' not in client.get(reverse("accounts:user_detail", args=[participant.pk])).content.decode()
    assert login(ATTACKER, PASSWORD, username="par")[1].status_code == 302
