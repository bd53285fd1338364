from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from api import assist_views as av
from api import evaluation_views as ev
from api import judgment_set_views as jsv
from api import judgment_views as jv
from api import people_views as pv
from api import run_views as rv
from api import score_views as sv
from api import submission_views as subv
from api import token_views
from config import converters  # noqa: F401  (registers <id:>, <segment:>, <textpath:>)
from config.roles import ROLES


class Schema(SpectacularAPIView):
    """Who: any signed-in user (or token). The API's OpenAPI 3 schema."""

    allowed_roles = ROLES


class Docs(SpectacularSwaggerSplitView):
    """Who: any signed-in user. The browsable API documentation (Swagger UI over /api/schema/; its script is a
    separate request, so the pages' Content-Security-Policy holds)."""

    allowed_roles = ROLES


app_name = "api"
urlpatterns = [
    path("token/", token_views.token_page, name="token"),
    path("schema/", Schema.as_view(), name="schema"),
    path("docs/", Docs.as_view(url_name="api:schema"), name="docs"),
    path("evaluations/", ev.EvaluationList.as_view(), name="evaluations"),
    path("evaluations/<slug:slug>/", ev.EvaluationDetail.as_view(), name="evaluation"),
    path("evaluations/<slug:slug>/state/", ev.EvaluationState.as_view(), name="evaluation_state"),
    path("evaluations/<slug:slug>/topics/", ev.Topics.as_view(), name="topics"),
    path("evaluations/<slug:slug>/runs/", rv.Runs.as_view(), name="runs"),
    path("evaluations/<slug:slug>/runs/check/", rv.RunCheck.as_view(), name="run_check"),
    path("evaluations/<slug:slug>/runs/<segment:tag>/", rv.RunDetail.as_view(), name="run"),
    path("evaluations/<slug:slug>/submissions/", subv.Submissions.as_view(), name="submissions"),
    path("evaluations/<slug:slug>/runs/<segment:tag>/report/", sv.RunReport.as_view(), name="run_report"),
    path("evaluations/<slug:slug>/pools/", rv.Pools.as_view(), name="pools"),
    path("pool-builds/<id:pk>/", rv.PoolBuildStatus.as_view(), name="pool_build"),
    path("evaluations/<slug:slug>/assignments/", jv.Assignments.as_view(), name="assignments"),
    path("evaluations/<slug:slug>/judgments/", jv.Judgments.as_view(), name="judgments"),
    path("evaluations/<slug:slug>/judgments/export/<segment:kind>/", jv.JudgmentExport.as_view(), name="export"),
    path("evaluations/<slug:slug>/judgments/import/", jv.JudgmentImport.as_view(), name="import"),
    path("evaluations/<slug:slug>/scores/", sv.Scores.as_view(), name="scores"),
    path("evaluations/<slug:slug>/rescore/", sv.Rescore.as_view(), name="rescore"),
    path("evaluations/<slug:slug>/judgment-sets/", jsv.JudgmentSets.as_view(), name="judgment_sets"),
    path("evaluations/<slug:slug>/judgment-sets/<id:pk>/", jsv.JudgmentSetDetail.as_view(), name="judgment_set"),
    path(
        "evaluations/<slug:slug>/judgment-sets/<id:pk>/release/",
        jsv.JudgmentSetRelease.as_view(),
        name="judgment_set_release",
    ),
    path(
        "evaluations/<slug:slug>/judgment-sets/<id:pk>/promote/",
        jsv.JudgmentSetPromote.as_view(),
        name="judgment_set_promote",
    ),
    path("evaluations/<slug:slug>/agreement/", jsv.Agreement.as_view(), name="agreement"),
    path("evaluations/<slug:slug>/agreement/disagreements/", jsv.Disagreements.as_view(), name="disagreements"),
    path("evaluations/<slug:slug>/judge-runs/", jsv.JudgeRuns.as_view(), name="judge_runs"),
    path("evaluations/<slug:slug>/rankings/", sv.Rankings.as_view(), name="rankings"),
    path("evaluations/<slug:slug>/assist/design/", av.Design.as_view(), name="assist_design"),
    path("evaluations/<slug:slug>/assist/suggestions/", av.Suggestions.as_view(), name="assist_suggestions"),
    path("evaluations/<slug:slug>/assist/pass/", av.SuggestionPass.as_view(), name="assist_pass"),
    path("evaluations/<slug:slug>/assist/report/", av.Report.as_view(), name="assist_report"),
    path("items/<id:item_id>/suggestion/<segment:kind>/", av.ItemSuggestion.as_view(), name="item_suggestion"),
    path("topics/<id:topic_id>/nugget-proposals/", av.TopicProposals.as_view(), name="topic_proposals"),
    path("jobs/<id:pk>/", jv.JobStatus.as_view(), name="job"),
    path("users/", pv.Users.as_view(), name="users"),
    path("users/<str:username>/token/", pv.UserToken.as_view(), name="user_token"),
    path("teams/", pv.Teams.as_view(), name="teams"),
]
