"""The assessor's auto-advance preference is kept on the server: posted when the box is changed (CSRF checked),
read when a judging page renders, the same in every browser; a bad value is a 400 that says what is wrong."""

from django.test import Client
from django.urls import reverse

from assess import preferences
from assess.models import Assignment, JudgingPreference

URL = reverse("assess:auto_advance")


def test_posted_stored_and_rendered_checked(client, sample, make_user):
    judy = make_user("judy", "assessor")
    assignment = Assignment.objects.create(evaluation=sample.evaluation, topic=sample.series[0], assessor=judy)
    page = reverse("qa:question", args=[assignment.pk, sample.questions["1.1"].pk])
    client.force_login(judy)
    html = client.get(page).content.decode()
    assert 'id="auto-advance"' in html and "checked" not in html.split('id="auto-advance"')[1].split(">")[0]
    assert "localStorage" not in html
    response = client.post(URL, {"auto_advance": "1"})
    assert response.status_code == 200 and response.json() == {"auto_advance": True}
    assert preferences.auto_advance(judy) is True
    html = client.get(page).content.decode()
    assert " checked" in html.split('id="auto-advance"')[1].split(">")[0]
    assert client.post(URL, {"auto_advance": "0"}).json() == {"auto_advance": False}
    assert JudgingPreference.objects.get(user=judy).auto_advance is False


def test_bad_values_roles_and_csrf(client, make_user, participant):
    judy = make_user("judy", "assessor")
    client.force_login(judy)
    response = client.post(URL, {"auto_advance": "yes"})
    assert response.status_code == 400 and "auto_advance must be 1 (on) or 0 (off)" in response.json()["error"]
    assert client.get(URL).status_code == 405
    assert not JudgingPreference.objects.exists()
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(judy)
    assert strict.post(URL, {"auto_advance": "1"}).status_code == 403
    client.force_login(participant)
    assert client.post(URL, {"auto_advance": "1"}).status_code == 403
    assert not JudgingPreference.objects.exists()
