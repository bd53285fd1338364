from django.urls import path

from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)
from scoring import judgment_set_views as sets
from scoring import views

app_name = "scoring"
urlpatterns = [
    path("<slug:slug>/", views.scoreboard, name="scoreboard"),
    path("<slug:slug>/board/", views.board, name="board"),
    path("<slug:slug>/significance/", views.significance, name="significance"),
    path("<slug:slug>/robustness/", views.robustness, name="robustness"),
    path("<slug:slug>/release/", views.release_view, name="release"),
    path("<slug:slug>/rescore/", views.rescore_view, name="rescore"),
    path("<slug:slug>/export/<segment:kind>/", views.export_view, name="export"),
    path("<slug:slug>/results/<segment:shape>/", views.results_file, name="results_file"),
    path("<slug:slug>/runs/<segment:tag>/", views.run_report, name="run_report"),
    path("<slug:slug>/team-judgments/<segment:kind>/", views.team_judgments, name="team_judgments"),
    path("<slug:slug>/runs/<segment:tag>/judgments/", views.team_run_judgments, name="team_run_judgments"),
    path("<slug:slug>/runs/<segment:tag>/report.csv", views.run_report_csv, name="run_report_csv"),
    path("<slug:slug>/runs/<segment:tag>/report.json", views.run_report_json, name="run_report_json"),
    path("<slug:slug>/judgment-sets/", sets.judgment_sets_page, name="judgment_sets"),
    path("<slug:slug>/judgment-sets/assessors/", sets.judgment_set_detail, name="assessor_agreement"),
    path("<slug:slug>/judgment-sets/<id:pk>/", sets.judgment_set_detail, name="judgment_set"),
    path("<slug:slug>/judgment-sets/<id:pk>/action/", sets.judgment_set_action, name="judgment_set_action"),
    path("<slug:slug>/judgment-sets/<id:pk>/download/", sets.judgment_set_download, name="judgment_set_download"),
    path("<slug:slug>/judge-runs/", sets.judge_runs_page, name="judge_runs"),
]
