from django.urls import path

from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)
from tracks.bolt import adjudication_views, views

app_name = "bolt"
urlpatterns = [
    path("a/<id:pk>/", views.topic_page, name="topic"),
    path("a/<id:pk>/item/<id:item_id>/", views.item_page, name="item"),
    path("a/<id:pk>/find/", views.find_page, name="find"),
    path("a/<id:pk>/find/add", views.add_found, name="add_found"),
    path("a/<id:pk>/view/<id:item_id>/", views.view_page, name="view"),
    path("a/<id:pk>/view/<id:item_id>/answer", views.view_answer, name="view_answer"),
    path("item/<id:item_id>/judge", views.judge, name="judge"),
    path("agreement/<slug:slug>/", views.agreement_page, name="agreement"),
    path("adjudicate/<slug:slug>/", adjudication_views.queue_page, name="adjudication"),
    path("adjudicate/<slug:slug>/<id:item_id>/", adjudication_views.decide_page, name="adjudicate"),
    path("topics/<slug:slug>/", views.team_topics_page, name="team_topics"),
    path("near-duplicates/<slug:slug>/", views.near_duplicates_page, name="near_duplicates"),
    path("groupings/<slug:slug>/", views.groupings_page, name="groupings"),
    path("export/<slug:slug>/<segment:tag>.xml", views.export_view, name="export"),
]
