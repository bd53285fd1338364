from django.urls import path

from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)
from tracks.qa4mre import views

app_name = "qa4mre"
urlpatterns = [
    path("<slug:slug>/", views.overview, name="overview"),
    path("<slug:slug>/gold/", views.upload_gold, name="upload_gold"),
    path("<slug:slug>/results.csv", views.results, name="results"),
    path("<slug:slug>/questions/", views.questions, name="questions"),
    path("<slug:slug>/tests/<segment:ident>/", views.reading_test, name="reading_test"),
    path("<slug:slug>/runs/<segment:tag>/", views.run_report, name="run_report"),
]
