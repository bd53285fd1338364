from django.urls import path

from scoring import views

app_name = "scoring"
urlpatterns = [
    path("<slug:slug>/", views.scoreboard, name="scoreboard"),
]
