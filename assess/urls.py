from django.urls import path

from assess import assignment_views, class_views, nugget_views, organizer_views, progress_views, views
from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)

app_name = "assess"
urlpatterns = [
    path("", views.my_assignments, name="my_assignments"),
    # instance judging
    path("a/<id:pk>/", views.assignment_detail, name="assignment"),
    path("a/<id:pk>/q/<id:qid>/", views.question_page, name="question"),
    path("a/<id:pk>/q/<id:qid>/item/<id:item_id>/", views.item_panel, name="item_panel"),
    path("item/<id:item_id>/judge", views.judge, name="judge"),
    path("item/<id:item_id>/history", views.item_history, name="item_history"),
    path("q/<id:qid>/history", views.question_history, name="question_history"),
    # answer classes and answers the assessor found
    path("a/<id:pk>/q/<id:qid>/classes", class_views.classes, name="classes"),
    path("a/<id:pk>/q/<id:qid>/classes/<id:class_id>/<segment:action>", class_views.class_action,
         name="class_action"),
    path("a/<id:pk>/q/<id:qid>/found", class_views.found_answer, name="found_answer"),
    # nuggets: build, vote, match
    path("a/<id:pk>/q/<id:qid>/nuggets", nugget_views.workspace, name="nuggets"),
    path("a/<id:pk>/q/<id:qid>/nuggets/new", nugget_views.nugget_create, name="nugget_create"),
    path("a/<id:pk>/q/<id:qid>/nuggets/order", nugget_views.nugget_order, name="nugget_order"),
    path("a/<id:pk>/q/<id:qid>/nuggets/<id:nugget_id>/<segment:action>", nugget_views.nugget_action,
         name="nugget_action"),
    path("item/<id:item_id>/match", nugget_views.match, name="match"),
    path("nugget/<id:nugget_id>/vote", nugget_views.vote, name="vote"),
    path("vote/<id:series_id>/", nugget_views.vote_series, name="vote_series"),
    # adjudication and the organizer's pages
    path("adjudicate/<slug:slug>/", organizer_views.adjudication, name="adjudication"),
    path("adjudicate/item/<id:item_id>", organizer_views.adjudicate, name="adjudicate"),
    path("organize/", organizer_views.organize_index, name="organize_index"),
    path("organize/<slug:slug>/", organizer_views.overview, name="organize"),
    path("organize/<slug:slug>/progress", progress_views.evaluation_progress, name="evaluation_progress"),
    path("organize/<slug:slug>/assignments/", assignment_views.assignments, name="assignments"),
    path("organize/<slug:slug>/invite", organizer_views.invite, name="invite"),
    path("organize/<slug:slug>/second", organizer_views.second_assessor, name="second_assessor"),
    path("organize/<slug:slug>/revote", organizer_views.revote, name="revote"),
    path("organize/topic/<id:topic_id>/<segment:action>", organizer_views.closure, name="closure"),
]
