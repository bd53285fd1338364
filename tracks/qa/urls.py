"""QA judging pages, mounted under assess/ (QaConfig.url_prefix) so their paths are those they always had."""

from django.urls import include, path

from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)
from tracks.qa import adjudication_views, class_views, instance_views, nil_views, nugget_views, search_found

app_name = "qa"
urlpatterns = [
    # ciQA: topics, runs and URL files, interaction sessions, exit questionnaire, board (tracks/qa/ciqa/)
    path("ciqa/", include("tracks.qa.ciqa.urls")),
    # instance judging
    path("a/<id:pk>/", instance_views.assignment_detail, name="assignment"),
    path("a/<id:pk>/q/<id:qid>/", instance_views.question_page, name="question"),
    path("a/<id:pk>/q/<id:qid>/item/<id:item_id>/", instance_views.item_panel, name="item_panel"),
    path("item/<id:item_id>/judge", instance_views.judge, name="judge"),
    # answer classes and answers the assessor found
    path("a/<id:pk>/q/<id:qid>/classes", class_views.classes, name="classes"),
    path("a/<id:pk>/q/<id:qid>/classes/<id:class_id>/<segment:action>", class_views.class_action, name="class_action"),
    path("a/<id:pk>/q/<id:qid>/found", class_views.found_answer, name="found_answer"),
    path("a/<id:pk>/search-found", search_found.search_found, name="search_found"),
    # nuggets: build, vote, match
    path("a/<id:pk>/q/<id:qid>/nuggets", nugget_views.workspace, name="nuggets"),
    path("a/<id:pk>/q/<id:qid>/nuggets/new", nugget_views.nugget_create, name="nugget_create"),
    path("a/<id:pk>/q/<id:qid>/nuggets/order", nugget_views.nugget_order, name="nugget_order"),
    path("a/<id:pk>/q/<id:qid>/nuggets/done", nugget_views.nuggets_done, name="nuggets_done"),
    path(
        "a/<id:pk>/q/<id:qid>/proposals/<id:suggestion_id>/<id:index>/<segment:action>",
        nugget_views.proposal,
        name="proposal",
    ),
    path(
        "a/<id:pk>/q/<id:qid>/nuggets/<id:nugget_id>/<segment:action>", nugget_views.nugget_action, name="nugget_action"
    ),
    path("item/<id:item_id>/match", nugget_views.match, name="match"),
    path("nugget/<id:nugget_id>/vote", nugget_views.vote, name="vote"),
    path("vote/<id:series_id>/", nugget_views.vote_series, name="vote_series"),
    # adjudication of instance labels
    path("adjudicate/<slug:slug>/", adjudication_views.adjudication, name="adjudication"),
    path("adjudicate/item/<id:item_id>", adjudication_views.adjudicate, name="adjudicate"),
    # which factoid questions have NIL as their answer (organizers)
    path("organize/<slug:slug>/nil/", nil_views.nil_page, name="nil_answers"),
]
