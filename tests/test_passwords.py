"""Every path that sets a password runs Django's password validators (issue 20, item 6e)."""

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from accounts.models import Team
from accounts.people import ensure_user
from pooling.demo import DEMO_USERS
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "password, reason",
    [
        ("a", "too short"),
        ("12345678901", "entirely numeric"),
        ("password123", "too common"),
        ("newcomer-01", "too similar to the username"),
    ],
)
def test_add_user_refuses_a_weak_password_and_stores_nothing(password, reason):
    with pytest.raises(CommandError, match=f"password refused for 'newcomer': .*{reason}"):
        call_command(
            "add_user",
            "newcomer",
            "--role",
            "participant",
            "--password",
            password,
            "--team",
            "Team Z",
            stdout=StringIO(),
        )
    assert not User.objects.filter(username="newcomer").exists()
    assert not Team.objects.filter(name="Team Z").exists()


def test_add_user_accepts_a_good_password():
    out = StringIO()
    call_command("add_user", "newcomer", "--role", "organizer", "--password", "correct horse battery", stdout=out)
    user = User.objects.get(username="newcomer")
    assert user.check_password("correct horse battery") and user.groups.filter(name="organizer").exists()
    # an existing user gets one more role; the password given is not applied, and the command says so
    call_command("add_user", "newcomer", "--role", "assessor", "--password", "a", stdout=out)
    user.refresh_from_db()
    assert user.check_password("correct horse battery") and user.groups.filter(name="assessor").exists()
    assert "password not changed" in out.getvalue()


def test_ensure_user_validates_before_storing():
    with pytest.raises(ValidationError):
        ensure_user("weak", "assessor", "a")
    assert not User.objects.filter(username="weak").exists()
    assert ensure_user("strong", "assessor", PASSWORD).check_password(PASSWORD)


def test_demo_passwords_pass_the_validators():
    from pooling.demo import create_users

    create_users(lambda line: None)
    for username, _role, password, _team in DEMO_USERS:
        assert User.objects.get(username=username).check_password(password)
