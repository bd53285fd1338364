from django.urls import path

from assess import views

app_name = "assess"
urlpatterns = [
    path("", views.my_assignments, name="my_assignments"),
]
