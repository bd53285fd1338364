from django.urls import path

from corpus import views

app_name = "corpus"
urlpatterns = [
    path("", views.collection_list, name="collection_list"),
]
