"""Friendly error pages (issue 12): 403 and 404 keep the site's navigation and say where to go; 500 is a page of
its own that needs neither the request nor the database; browsers' /favicon.ico finds the icon."""

import re
from urllib.parse import unquote

from django.template.loader import get_template
from django.test import RequestFactory
from django.urls import reverse
from django.views.defaults import server_error

from tests.conftest import PASSWORD


def test_404_has_the_navigation_and_a_way_home(client, organizer):
    client.login(username="org", password=PASSWORD)
    response = client.get("/no/such/page/")
    body = response.content.decode()
    assert response.status_code == 404 and "Page not found" in body
    assert 'class="mainnav"' in body and reverse("pooling:evaluation_list") in body  # the organizer's menu
    assert f'href="{reverse("home")}" id="error-home"' in body and "/no/such/page/" in body
    missing = client.get(reverse("pooling:evaluation_detail", args=["no-such-evaluation"]))  # a view's Http404
    assert missing.status_code == 404 and 'class="mainnav"' in missing.content.decode()


def test_404_for_someone_signed_out_offers_the_login(client, db):
    body = client.get("/no/such/page/").content.decode()
    assert f'href="{reverse("login")}"' in body and 'id="error-home"' in body


def test_403_says_who_the_page_is_for_with_the_navigation(client, make_user):
    make_user("ann", "assessor")
    client.login(username="ann", password=PASSWORD)
    response = client.get(reverse("pooling:evaluation_list"))
    body = response.content.decode()
    assert response.status_code == 403 and "You may not open this page" in body
    assert "This page is for: organizer." in body and "signed in as ann (assessor)" in body
    assert reverse("assess:my_assignments") in body and 'id="error-home"' in body  # the assessor's menu


def test_500_renders_without_a_request_or_database():
    body = get_template("500.html").render()  # as django.views.defaults.server_error does: no context at all
    assert 'href="/" id="error-home"' in body and "Something went wrong" in body
    response = server_error(RequestFactory().get("/"))  # no database access: no django_db mark
    assert response.status_code == 500 and b"error-home" in response.content


def test_favicon_is_inline_in_every_page_and_served_at_favicon_ico(client, db):
    page = client.get(reverse("login")).content.decode()
    icon = re.search(r'<link rel="icon" href="data:image/svg\+xml,([^"]+)" type="image/svg\+xml">', page)
    svg = unquote(icon.group(1))
    assert svg.startswith("<svg xmlns=") and svg.rstrip().endswith("</svg>")
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert response.content.decode() == svg and "max-age=86400" in response["Cache-Control"]
