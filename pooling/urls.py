from django.urls import path

from pooling import views

app_name = "pooling"
urlpatterns = [
    path("evaluations/", views.evaluation_list, name="evaluation_list"),
    path("evaluations/<slug:slug>/", views.evaluation_detail, name="evaluation_detail"),
    path("my/runs/", views.my_runs, name="my_runs"),
]
