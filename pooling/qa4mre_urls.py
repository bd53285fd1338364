from django.urls import path

from pooling import qa4mre_views as views

app_name = "qa4mre"
urlpatterns = [
    path("<slug:slug>/", views.overview, name="overview"),
    path("<slug:slug>/gold/", views.upload_gold, name="upload_gold"),
    path("<slug:slug>/results.csv", views.results, name="results"),
    path("<slug:slug>/questions/", views.questions, name="questions"),
    path("<slug:slug>/tests/<str:ident>/", views.reading_test, name="reading_test"),
    path("<slug:slug>/runs/<str:tag>/", views.run_report, name="run_report"),
]
