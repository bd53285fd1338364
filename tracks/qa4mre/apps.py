from django.apps import AppConfig

from core.submission_rules import SubmissionRules
from core.tracks import PageLink, Track, register_track
from tracks.qa4mre.measures import DEFINITIONS

QA4MRE = Track(
    slug="qa4mre-2012",
    title="QA4MRE 2012 (reading tests, multiple choice)",
    seed="003",
    collection_formats=(),
    topic_format="tracks.qa4mre.formats.test_set",
    run_format="tracks.qa4mre.formats.run",
    judgment_kinds=(),
    measures=DEFINITIONS,
    human_judging=False,
    default_settings={
        "max_runs_per_team": 10,
        "languages": ["ar", "bg", "de", "en", "es", "it", "ro"],  # run_id language pairs accepted
    },
    organizer_links=(
        PageLink(
            "qa4mre-link", "QA4MRE: reading tests, gold standard, c@1 and the per-question view", "qa4mre:overview"
        ),
    ),
    demo_steps=("tracks.qa4mre.demo.load_qa4mre_demo",),
    submission_rules=SubmissionRules(
        max_runs_per_team=10,
        priorities=tuple(range(1, 11)),
        unique_priorities=True,
        days_after_first_download=5,
        # the run_id's team ID is checked by the track itself (tracks.qa4mre.loading.after_store)
        source="003: run_id = team ID + 12 + run number 01-10; submissions due within 5 days from the first "
        "test set download",
    ),
)


class Qa4mreConfig(AppConfig):
    """QA4MRE 2012 (seed 003): reading tests scored against a gold standard, no human judging."""

    name = "tracks.qa4mre"
    label = "qa4mre"
    default_auto_field = "django.db.models.BigAutoField"
    url_prefix = "qa4mre/"

    def ready(self):
        from scoring.registry import register_judging, register_report, register_scorer
        from tracks.qa4mre import report, scorer

        register_track(QA4MRE)
        register_scorer(QA4MRE.slug, scorer.score)
        register_report(QA4MRE.slug, report.run_report)
        register_judging(QA4MRE.slug, report.judging)
