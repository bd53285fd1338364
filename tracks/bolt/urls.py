from django.urls import path

from assess import bolt_adjudication_views, bolt_views
from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)

app_name = "bolt"
urlpatterns = [
    path("a/<id:pk>/", bolt_views.topic_page, name="topic"),
    path("a/<id:pk>/item/<id:item_id>/", bolt_views.item_page, name="item"),
    path("a/<id:pk>/find/", bolt_views.find_page, name="find"),
    path("a/<id:pk>/find/add", bolt_views.add_found, name="add_found"),
    path("a/<id:pk>/view/<id:item_id>/", bolt_views.view_page, name="view"),
    path("a/<id:pk>/view/<id:item_id>/answer", bolt_views.view_answer, name="view_answer"),
    path("item/<id:item_id>/judge", bolt_views.judge, name="judge"),
    path("agreement/<slug:slug>/", bolt_views.agreement_page, name="agreement"),
    path("adjudicate/<slug:slug>/", bolt_adjudication_views.queue_page, name="adjudication"),
    path("adjudicate/<slug:slug>/<id:item_id>/", bolt_adjudication_views.decide_page, name="adjudicate"),
    path("topics/<slug:slug>/", bolt_views.team_topics_page, name="team_topics"),
    path("export/<slug:slug>/<segment:tag>.xml", bolt_views.export_view, name="export"),
]
