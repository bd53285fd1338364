"""QA4MRE plugs in here: its Track (plain data) and, in register(), every function a stage calls in it
(core.extension_points). Imported by Qa4mreConfig.ready(), once the models are loaded."""

from core import extension_points as ep
from core.submission_rules import SubmissionRules
from core.tracks import PageLink, Track, register_track
from tracks.qa4mre import demo, loading, report, scorer
from tracks.qa4mre.formats import run, test_set
from tracks.qa4mre.measures import DEFINITIONS

QA4MRE = Track(
    slug="qa4mre-2012",
    title="QA4MRE 2012 (reading tests, multiple choice)",
    seed="003",
    collection_formats=(),
    topic_format=test_set,
    run_format=run,
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


def register():
    register_track(QA4MRE)
    slug = QA4MRE.slug
    ep.demo.register(slug, demo.load_qa4mre_demo)
    ep.after_topics_loaded.register(slug, loading.after_topics_loaded)
    ep.check_context.register(slug, loading.check_context_extra)
    ep.after_run_stored.register(slug, loading.after_store)
    ep.scorer.register(slug, scorer.score)
    ep.report.register(slug, report.run_report)
    ep.judging_progress.register(slug, report.judging)
