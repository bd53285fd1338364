"""TREC BioGen plugs in here: its Track (plain data) and, in register(), every function a stage calls in it
(core.extension_points). Imported by BiogenConfig.ready(), once the models are loaded."""

from core import extension_points as ep
from core.tracks import PageLink, Track, register_track
from tracks.biogen import demo, exports, judging, keys, kinds, qrels, report, scorer
from tracks.biogen.formats import runs, topics
from tracks.biogen.labels import KIND
from tracks.biogen.measures import MEASURES

BIOGEN = Track(
    slug="biogen-2024",
    title="TREC BioGen 2024 (biomedical answers with PubMed citations)",
    seed="002",
    collection_formats=("pubmed",),
    topic_format=topics,
    run_format=runs,
    question_types=("QUESTION",),
    kinds=kinds.KINDS,
    done_kinds={"QUESTION": KIND},  # every pool item of a topic (answer, sentence, citation) takes one judgment
    measures=MEASURES,
    pages=keys.PAGES,
    default_settings={
        "judged_priorities": list(range(1, 10)),  # every run is pooled (runs carry no priority)
        "run_shape": "2024",  # or "2025-A", "2025-B" (JSON Lines)
        "limits": {  # SPEC-NOTES: the official validators' caps, per run shape
            "2024": {"max_words": 150, "max_sentences": 10},
            "2025-A": {"max_citations": 3},
            "2025-B": {"max_words": 250, "max_citations": 3},
        },
    },
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
)


def judgment_exports(evaluation):
    return exports.EXPORTS, "CSV of every judgment"


def register():
    register_track(BIOGEN)
    slug = BIOGEN.slug
    ep.demo.register(slug, demo.load_biogen_demo)
    ep.adjudication_queue.register(slug, judging.adjudication_queue)
    ep.scorer.register(slug, scorer.score)
    ep.report.register(slug, report.run_report)
    ep.judgment_exports.register(slug, judgment_exports)
    ep.qrels.register(slug, qrels.qrels)  # cited PMIDs (issue 28)
    ep.judgment_scales.register(slug, qrels.scales)  # agreement and qrels in (issue 29)
    ep.qrels_items.register(slug, qrels.items)
    ep.item_labels.register(slug, judging.item_labels)  # assisted judging's suggestions (issue 30)
    ep.ranked_documents.register(slug, qrels.ranked_documents)  # their run files
