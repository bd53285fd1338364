from django.urls import path

from assess import assessor_views, assignment_views, assist_views, organizer_views, progress_views, search_views
from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)

# The judging pages of every track; a track's own judging pages are in its urls.py (QA's also under assess/).
app_name = "assess"
urlpatterns = [
    path("", assessor_views.my_assignments, name="my_assignments"),
    path("item/<id:item_id>/history", assessor_views.item_history, name="item_history"),
    path("q/<id:qid>/history", assessor_views.question_history, name="question_history"),
    path("preferences/auto-advance", assessor_views.auto_advance, name="auto_advance"),
    path("search/<id:pk>/", search_views.search, name="search"),
    path("assist/<id:item_id>/<segment:kind>/", assist_views.panel, name="assist_panel"),
    path("search/open/<id:log_id>/", search_views.open_result, name="search_open"),
    # the organizer's pages
    path("organize/", organizer_views.organize_index, name="organize_index"),
    path("organize/<slug:slug>/", organizer_views.overview, name="organize"),
    path("organize/<slug:slug>/progress", progress_views.evaluation_progress, name="evaluation_progress"),
    path("organize/<slug:slug>/assignments/", assignment_views.assignments, name="assignments"),
    path("organize/<slug:slug>/assist/", assist_views.overview, name="assist"),
    path("organize/<slug:slug>/assist/design", assist_views.design, name="assist_design"),
    path("organize/<slug:slug>/assist/load", assist_views.load_file, name="assist_load"),
    path("organize/<slug:slug>/assist/pass", assist_views.run_pass, name="assist_pass"),
    path("organize/<slug:slug>/invite", organizer_views.invite, name="invite"),
    path("organize/<slug:slug>/second", organizer_views.second_assessor, name="second_assessor"),
    path("organize/<slug:slug>/revote", organizer_views.revote, name="revote"),
    path("organize/topic/<id:topic_id>/<segment:action>", organizer_views.closure, name="closure"),
]
