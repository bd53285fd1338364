from django.apps import AppConfig

from pooling.tracks import PageLink, Track, register_track

QA4MRE = Track(
    slug="qa4mre-2012",
    title="QA4MRE 2012 (reading tests, multiple choice)",
    seed="003",
    collection_formats=(),
    topic_format="qa4mre_test_set",
    run_format="qa4mre_run",
    judgment_kinds=(),
    measures=("c_at_1", "accuracy_answered", "self_validation"),
    human_judging=False,
    default_settings={
        "max_runs_per_team": 10,
        "languages": ["ar", "bg", "de", "en", "es", "it", "ro"],  # run_id language pairs accepted
    },
    organizer_links=(PageLink("qa4mre-link", "QA4MRE: reading tests, gold standard, c@1 and the per-question view",
                              "qa4mre:overview"),),
    demo_steps=("pooling.qa4mre_demo.load_qa4mre_demo",),
)


class Qa4mreConfig(AppConfig):
    """QA4MRE 2012 (seed 003): reading tests scored against a gold standard, no human judging."""

    name = "tracks.qa4mre"
    label = "qa4mre"
    default_auto_field = "django.db.models.BigAutoField"
    url_prefix = "qa4mre/"

    def ready(self):
        register_track(QA4MRE)
        from scoring import qa4mre_report

        qa4mre_report.register()
