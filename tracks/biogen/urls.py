from django.urls import path

from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)
from tracks.biogen import views

app_name = "biogen"
urlpatterns = [
    path("a/<id:pk>/", views.topic_page, name="topic"),
    path("a/<id:pk>/item/<id:item_id>/", views.item_page, name="item"),
    path("item/<id:item_id>/judge", views.judge, name="judge"),
    path("overview/<slug:slug>/", views.overview_page, name="overview"),
    path("adjudicate/<slug:slug>/", views.queue_page, name="adjudication"),
    path("adjudicate/<slug:slug>/<id:item_id>/", views.decide_page, name="adjudicate"),
    path("adjudicate/<slug:slug>/<id:item_id>/decide", views.decide, name="decide"),
]
