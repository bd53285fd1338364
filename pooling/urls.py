from django.urls import path

from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)
from pooling import campaign_views, views

app_name = "pooling"
urlpatterns = [
    path("evaluations/", views.evaluation_list, name="evaluation_list"),
    path("evaluations/new/", views.evaluation_create, name="evaluation_create"),
    path("evaluations/<slug:slug>/", views.evaluation_detail, name="evaluation_detail"),
    path("evaluations/<slug:slug>/state/", views.evaluation_state, name="evaluation_state"),
    path("evaluations/<slug:slug>/settings/", views.evaluation_settings, name="evaluation_settings"),
    path("evaluations/<slug:slug>/topics/", views.topics, name="topics"),
    path("evaluations/<slug:slug>/runs/upload/", views.runs_upload, name="runs_upload"),
    path("evaluations/<slug:slug>/teams/", campaign_views.teams, name="teams"),
    path("evaluations/<slug:slug>/pools/", views.pools, name="pools"),
    path("evaluations/<slug:slug>/pools/progress/", views.pool_progress, name="pool_progress"),
    path("evaluations/<slug:slug>/pools/<segment:ident>/", views.pool_question, name="pool_question"),
    path("check/", views.run_check, name="run_check"),
    path("my/runs/", views.my_runs, name="my_runs"),
    path("my/evaluations/<slug:slug>/", campaign_views.participate, name="participate"),
    path("my/evaluations/<slug:slug>/files/<segment:kind>/", campaign_views.team_file, name="team_file"),
    path("my/receipts/<id:pk>/", campaign_views.receipt, name="receipt"),
]
