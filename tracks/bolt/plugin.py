"""BOLT IR phase 2 plugs in here: its Track (plain data) and, in register(), every function a stage calls in it
(core.extension_points). Imported by BoltConfig.ready(), once the models are loaded."""

from core import extension_points as ep
from core.submission_rules import SubmissionRules
from core.tracks import PageLink, Track, register_track
from tracks.bolt import (
    adjudication,
    demo,
    judging,
    keys,
    kinds,
    near_duplicates,
    qrels,
    report,
    scorer,
    search_found,
    team_files,
)
from tracks.bolt.formats import citations, topics
from tracks.bolt.measures import MEASURES

BOLT = Track(
    slug="bolt-ir-p2",
    title="BOLT IR phase 2 (forum citations and thematic groupings)",
    seed="004",
    collection_formats=("bolt-forum",),
    topic_format=topics,
    run_format=citations,
    kinds=kinds.KINDS,
    done_kinds={"TOPIC": "citation"},  # a topic is judged citation by citation
    items_judged_apart={"data__bolt": "view"},  # grouping views: judged on their own page (judging.grouping_views)
    measures=MEASURES,
    pages=keys.PAGES,
    default_settings={
        "judged_priorities": list(range(1, 10)),  # the seed: "all returned passages will be pooled"
        "eval_id": "BOLT-IR-P2",
        "max_citations": 100,
        "max_passage_chars": 250,
        "passage_white_space": "as submitted",  # SPEC-NOTES' reading; "collapsed" is the other (xml_common)
        "near_dup_percent": 95,
        "max_views": 3,
        "max_groups": 10,
        "max_label_chars": 250,
    },
    adjudication_page="bolt:adjudication",
    assignment_page="bolt:topic",
    organizer_links=(
        PageLink(
            "bolt-agreement-link",
            "BOLT: agreement on double-judged topics and assessed-citation exports",
            "bolt:agreement",
            note="also manage.py bolt_export SLUG RUN",
        ),
        PageLink("bolt-adjudication-link", "adjudication of disagreements", "bolt:adjudication"),
        PageLink("bolt-near-duplicates-link", "near-duplicate classes", "bolt:near_duplicates"),
        PageLink("bolt-groupings-link", "grouping measures", "bolt:groupings"),
    ),
    participant_links=(PageLink("bolt-team-topics", "topics", "bolt:team_topics"),),
    # Seed 004: "After the citation retrieval subtask is assessed, ... Teams will then produce up to three views".
    submission_rules=SubmissionRules(judging_subtasks=("groups",), source="004, Subtask 2: Thematic Grouping"),
)


def register():
    register_track(BOLT)
    slug = BOLT.slug
    ep.demo.register(slug, demo.load_bolt_demo)
    ep.check_context.register(slug, judging.check_extra)
    ep.batch_context.register(slug, near_duplicates.shared_features)
    ep.participant_topics.register(slug, team_files.evaluation_topics)
    ep.adjudication_queue.register(slug, adjudication.adjudication_queue)
    ep.search_found.register(slug, search_found.found)
    ep.scorer.register(slug, scorer.score_bolt)
    ep.report.register(slug, report.run_report)
    ep.run_judgments.register(slug, team_files.assessed_run)
    ep.qrels.register(slug, qrels.qrels)  # cited posts (issue 28)
    ep.ranked_documents.register(slug, qrels.ranked_documents)
    ep.judgment_scales.register(slug, qrels.scales)  # agreement and qrels in (issue 29)
    ep.qrels_items.register(slug, qrels.items)
