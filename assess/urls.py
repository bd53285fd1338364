from django.urls import path

from assess import class_views, nugget_views, organizer_views, views

app_name = "assess"
urlpatterns = [
    path("", views.my_assignments, name="my_assignments"),
    # instance judging
    path("a/<int:pk>/", views.assignment_detail, name="assignment"),
    path("a/<int:pk>/q/<int:qid>/", views.question_page, name="question"),
    path("a/<int:pk>/q/<int:qid>/item/<int:item_id>/", views.item_panel, name="item_panel"),
    path("item/<int:item_id>/judge", views.judge, name="judge"),
    path("item/<int:item_id>/history", views.item_history, name="item_history"),
    path("q/<int:qid>/history", views.question_history, name="question_history"),
    # answer classes and answers the assessor found
    path("a/<int:pk>/q/<int:qid>/classes", class_views.classes, name="classes"),
    path("a/<int:pk>/q/<int:qid>/classes/<int:class_id>/<str:action>", class_views.class_action,
         name="class_action"),
    path("a/<int:pk>/q/<int:qid>/found", class_views.found_answer, name="found_answer"),
    # nuggets: build, vote, match
    path("a/<int:pk>/q/<int:qid>/nuggets", nugget_views.workspace, name="nuggets"),
    path("a/<int:pk>/q/<int:qid>/nuggets/new", nugget_views.nugget_create, name="nugget_create"),
    path("a/<int:pk>/q/<int:qid>/nuggets/order", nugget_views.nugget_order, name="nugget_order"),
    path("a/<int:pk>/q/<int:qid>/nuggets/<int:nugget_id>/<str:action>", nugget_views.nugget_action,
         name="nugget_action"),
    path("item/<int:item_id>/match", nugget_views.match, name="match"),
    path("nugget/<int:nugget_id>/vote", nugget_views.vote, name="vote"),
    path("vote/<int:series_id>/", nugget_views.vote_series, name="vote_series"),
    # adjudication and the organizer's pages
    path("adjudicate/<slug:slug>/", organizer_views.adjudication, name="adjudication"),
    path("adjudicate/item/<int:item_id>", organizer_views.adjudicate, name="adjudicate"),
    path("organize/", organizer_views.organize_index, name="organize_index"),
    path("organize/<slug:slug>/", organizer_views.overview, name="organize"),
    path("organize/<slug:slug>/invite", organizer_views.invite, name="invite"),
    path("organize/<slug:slug>/second", organizer_views.second_assessor, name="second_assessor"),
    path("organize/<slug:slug>/revote", organizer_views.revote, name="revote"),
    path("organize/topic/<int:topic_id>/<str:action>", organizer_views.closure, name="closure"),
]
