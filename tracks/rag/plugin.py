"""TREC RAG plugs in here: its Track (plain data) and, in register(), every function a stage calls in it
(core.extension_points). Imported by RagConfig.ready(), once the models are loaded."""

from core import extension_points as ep
from core.tracks import PageLink, Track, register_track
from tracks.rag import assist_prompts, demo, exports, judging, keys, kinds, qrels, report, run_groups, scorer
from tracks.rag.formats import runs, segments, topics
from tracks.rag.judgments_jsonl import RagRecords
from tracks.rag.labels import KIND
from tracks.rag.measures import MEASURES

RAG = Track(
    slug=judging.TRACK,
    title="TREC RAG 2024/2025 (answers citing MS MARCO V2.1 segments)",
    seed='SPEC-NOTES "TREC RAG"',
    collection_formats=("msmarco-v2.1-segmented",),
    topic_format=topics,
    run_format=runs,
    question_types=("QUESTION",),
    kinds=kinds.KINDS,
    done_kinds={"QUESTION": KIND},  # every pool item of a topic (relevance, support, answer) takes one judgment
    measures=MEASURES,
    pages=keys.PAGES,
    default_settings={
        "judged_priorities": list(range(1, 10)),  # every run is pooled
        "run_shape": "shared",  # "2024", "2025" or "shared": the checker recognises each line's shape anyway
        "pool_depth": 20,  # a retrieval run's segments pooled for relevance, per topic
    },
    adjudication_page="rag:adjudication",
    assignment_page="rag:topic",
    organizer_links=(
        PageLink(
            "rag-link",
            "RAG: pools by item kind, nugget suggestions, adjudication and the nuggetizer exports",
            "rag:overview",
            note="also manage.py rag_suggestions SLUG FILE and export_judgments SLUG --format nuggetizer-nuggets",
        ),
    ),
)


def judgment_exports(evaluation):
    return exports.EXPORTS, "nuggets and assignments in nuggetizer's JSON Lines; qrels of the cited segments"


def register():
    register_track(RAG)
    slug = RAG.slug
    ep.demo.register(slug, demo.load_rag_demo)
    ep.adjudication_queue.register(slug, judging.adjudication_queue)
    ep.scorer.register(slug, scorer.score)
    ep.run_groups.register(slug, run_groups.run_groups)  # answer and retrieval runs compared apart
    ep.report.register(slug, report.run_report)
    ep.judgment_exports.register(slug, judgment_exports)
    ep.qrels.register(slug, qrels.qrels)
    ep.ranked_documents.register(slug, qrels.ranked_documents)
    ep.judgment_scales.register(slug, qrels.scales)  # agreement, qrels and nuggetizer files in (issue 29)
    ep.qrels_items.register(slug, qrels.items)
    ep.item_labels.register(slug, judging.item_labels)  # assisted judging's suggestions (issue 30)
    ep.nugget_sources.register(slug, judging.nugget_sources)  # and its nugget proposals
    ep.assist_prompt.register(slug, assist_prompts.assist_prompt)  # a prompt per item kind of "rag"
    ep.judgments_jsonl.register(slug, RagRecords)  # nuggets and suggestions in the judgments file
    # loading (formats)
    ep.collection_formats.register(slug, segments.collection_formats)  # MS MARCO V2.1 segmented, to corpus
