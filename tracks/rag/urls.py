from django.urls import path

from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)
from tracks.rag import views

app_name = "rag"
urlpatterns = [
    path("a/<id:pk>/", views.topic_page, name="topic"),
    path("a/<id:pk>/support/<id:number>/", views.support_page, name="support"),
    path("a/<id:pk>/relevance/<id:item_id>/", views.relevance_page, name="relevance"),
    path("a/<id:pk>/answer/<id:item_id>/", views.assign_page, name="assign"),
    path("a/<id:pk>/nuggets/", views.nuggets_page, name="nuggets"),
    path("a/<id:pk>/nuggets/new", views.nugget_create, name="nugget_create"),
    path("a/<id:pk>/nuggets/<id:nugget_id>", views.nugget_change, name="nugget"),
    path("a/<id:pk>/suggestions/<id:index>", views.suggestion, name="suggestion"),
    path("a/<id:pk>/proposals/<id:suggestion_id>/<id:index>", views.proposal, name="proposal"),
    path("a/<id:pk>/nuggets/done", views.nuggets_done, name="nuggets_done"),
    path("item/<id:item_id>/judge", views.judge, name="judge"),
    path("overview/<slug:slug>/", views.overview_page, name="overview"),
    path("overview/<slug:slug>/suggestions", views.suggestions_upload, name="suggestions_upload"),
    path("adjudicate/<slug:slug>/", views.queue_page, name="adjudication"),
    path("adjudicate/<slug:slug>/<id:item_id>/", views.decide_page, name="adjudicate"),
    path("adjudicate/<slug:slug>/<id:item_id>/decide", views.decide, name="decide"),
]
