from django.apps import AppConfig

from assess.keymap import register_pages
from core.tracks import PageLink, Track, register_track
from tracks.biogen import keys
from tracks.biogen.labels import ALL_LABELS, KIND
from tracks.biogen.measures import MEASURES

BIOGEN = Track(
    slug="biogen-2024",
    title="TREC BioGen 2024 (biomedical answers with PubMed citations)",
    seed="002",
    collection_formats=("pubmed",),
    topic_format="tracks.biogen.formats.topics",
    run_format="tracks.biogen.formats.runs",
    question_types=("QUESTION",),
    judgment_kinds=(KIND,),
    judgments={KIND: ALL_LABELS},
    done_kinds={"QUESTION": KIND},  # every pool item of a topic (answer, sentence, citation) takes one judgment
    measures=MEASURES,
    default_settings={
        "judged_priorities": list(range(1, 10)),  # every run is pooled (runs carry no priority)
        "run_shape": "2024",  # or "2025-A", "2025-B" (JSON Lines)
        "limits": {  # SPEC-NOTES: the official validators' caps, per run shape
            "2024": {"max_words": 150, "max_sentences": 10},
            "2025-A": {"max_citations": 3},
            "2025-B": {"max_words": 250, "max_citations": 3},
        },
    },
    adjudication_queue="tracks.biogen.judging.adjudication_queue",
    adjudication_page="biogen:adjudication",
    assignment_page="biogen:topic",
    organizer_links=(
        PageLink(
            "biogen-link",
            "BioGen: pools by item kind, adjudication and the judgment exports",
            "biogen:overview",
            note="also manage.py export_judgments SLUG --format csv",
        ),
    ),
    demo_steps=("tracks.biogen.demo.load_biogen_demo",),
)


class BiogenConfig(AppConfig):
    """TREC BioGen (seed 002): answers with PubMed citations, judged per answer, sentence and citation."""

    name = "tracks.biogen"
    label = "biogen"
    default_auto_field = "django.db.models.BigAutoField"
    url_prefix = "biogen/"

    def ready(self):
        from assess.kinds import register_kind
        from scoring.registry import register_exports, register_report, register_scorer
        from tracks.biogen import exports, report, scorer
        from tracks.biogen.kinds import KINDS

        register_track(BIOGEN)
        register_pages(keys.PAGES)
        for kind in KINDS:
            register_kind(kind)
        register_scorer(BIOGEN.slug, scorer.score)
        register_report(BIOGEN.slug, report.run_report)
        register_exports(BIOGEN.slug, exports.EXPORTS, note="CSV of every judgment")
