"""ciQA's pages, included by tracks/qa/urls.py under ciqa/ (names in the "qa" namespace: qa:ciqa_*)."""

from django.urls import path

from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)
from tracks.qa.ciqa import views

urlpatterns = [
    # organizer
    path("<slug:slug>/", views.overview, name="ciqa_overview"),
    path("<slug:slug>/runs", views.upload_run, name="ciqa_upload_run"),
    path("<slug:slug>/urls", views.upload_urls, name="ciqa_upload_urls"),
    path("<slug:slug>/urls/<id:pk>/screenshot", views.upload_screenshot, name="ciqa_upload_screenshot"),
    path("<slug:slug>/baseline", views.make_baseline, name="ciqa_make_baseline"),
    path("<slug:slug>/plan", views.plan, name="ciqa_plan"),
    path("<slug:slug>/questionnaire/define", views.define_questionnaire, name="ciqa_define_questionnaire"),
    path("<slug:slug>/questionnaire.csv", views.questionnaire_csv, name="ciqa_questionnaire_csv"),
    path("<slug:slug>/questionnaire/summary/", views.questionnaire_summary, name="ciqa_questionnaire_summary"),
    path("<slug:slug>/board/", views.board, name="ciqa_board"),
    path("screenshot/<id:pk>", views.screenshot, name="ciqa_screenshot"),
    # assessor
    path("<slug:slug>/sessions/", views.my_sessions, name="ciqa_sessions"),
    path("<slug:slug>/exit/", views.exit_questionnaire, name="ciqa_questionnaire"),
    path("session/<id:pk>/", views.session_page, name="ciqa_session"),
    path("session/<id:pk>/start", views.session_start, name="ciqa_session_start"),
    path("session/<id:pk>/end", views.session_end, name="ciqa_session_end"),
    path("session/<id:pk>/skip", views.session_skip, name="ciqa_session_skip"),
    path("session/<id:pk>/sentences/", views.sentences, name="ciqa_sentences"),
    path("demo-system/<segment:ident>/", views.demo_system, name="ciqa_demo_system"),
]
