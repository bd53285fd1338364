from django.urls import path

from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)
from corpus import search_views, views

app_name = "corpus"
urlpatterns = [
    path("", views.collection_list, name="collection_list"),
    path("search/", search_views.search_page, name="search"),  # "search" is no collection name (RESERVED_NAMES)
    path("<slug:name>/", views.collection_detail, name="collection_detail"),
    path("<slug:name>/doc/<textpath:docno>/", views.document_view, name="document"),
    path("<slug:name>/frame/<textpath:docno>/", views.frame, name="frame"),
]
