"""The QA tracks plug in here (TAC 2008 QA, the TREC 2007 QA main task and ciQA): their Tracks (plain data) and,
in register(), every function a stage calls in them (core.extension_points). Imported by QaConfig.ready(), once
the models are loaded."""

from dataclasses import replace

from core import extension_points as ep
from core.submission_rules import TAG_TEAM_PREFIX, TAG_TEAM_PRIORITY, SubmissionRules
from core.tracks import PageLink, Track, register_track
from pooling.campaign import OtherSubmission
from scoring.registry import Export
from tracks.qa import (
    adjudication,
    demo_evaluation,
    demo_judgments,
    demo_machine_set,
    demo_scores,
    demo_trec2007,
    keys,
    kinds,
    nugget_judging,
    qrels,
    report,
    scorer,
    search_found,
)
from tracks.qa.ciqa import demo as ciqa_demo
from tracks.qa.ciqa import results as ciqa_results
from tracks.qa.ciqa import submissions as ciqa_submissions
from tracks.qa.formats import ciqa_runs, ciqa_topics, runs, topics
from tracks.qa.judgments_jsonl import QaRecords
from tracks.qa.measures import CIQA, TAC2008_MEASURES, TREC2007_MEASURES, TREC2007_NUGGET_F_PYRAMID
from tracks.qa.nist_exports import EXPORTS
from tracks.qa.nuggetizer_exports import EXPORTS as NUGGETIZER_EXPORTS
from tracks.qa.questions import INSTANCE_TYPES, NUGGET_TYPES
from tracks.qa.top_docs_run import EXPORTS as TOP_DOCS_EXPORTS

# Progress, for every QA question type (ciQA's too): an instance question's items are judged by their labels, a
# nugget question's by their matches, which are the primary's (a second assessor labels instances only).
QA_DONE_KINDS = {
    **dict.fromkeys(sorted(INSTANCE_TYPES), "instance"),
    **dict.fromkeys(sorted(NUGGET_TYPES), "nugget_match"),
}
QA_PRIMARY_ONLY_KINDS = ("nugget_match",)
# What every QA track shares: its own pages (tracks/qa/urls.py, namespace "qa") and progress rules; each track
# below is this with its own fields (never registered itself).
QA_COMMON = Track(
    slug="",
    title="",
    seed="",
    collection_formats=(),
    topic_format=topics,
    run_format=runs,
    pages=keys.PAGES,
    adjudication_page="qa:adjudication",
    assignment_page="qa:assignment",
    vote_page="qa:vote_series",
    done_kinds=QA_DONE_KINDS,
    primary_only_kinds=QA_PRIMARY_ONLY_KINDS,
)

TAC2008 = replace(
    QA_COMMON,
    slug="tac2008-qa",
    title="TAC 2008 QA (opinion question series over Blog06)",
    seed="000",
    collection_formats=("blog06",),
    topic_format=topics,
    run_format=runs,
    question_types=("RIGIDLIST", "SQUISHYLIST"),
    kinds=kinds.kinds(("incorrect", "unsupported", "non-exact", "correct")),
    measures=TAC2008_MEASURES,
    default_settings={
        "judged_priorities": [1, 2],
        "max_answer_chars": 7000,
        "series_weights": {"RIGIDLIST": 0.5, "SQUISHYLIST": 0.5},
        "allow_nil": False,
        "permalink_only": True,  # answers must be supported by Blog06 permalink documents
    },
    submission_rules=SubmissionRules(
        max_runs_per_team=3,
        priorities=(1, 2, 3),
        unique_priorities=True,
        first_automatic=True,
        tag_rule=TAG_TEAM_PRIORITY,
        team_id_from_tag=r"^(?P<team>.+)[1-3]$",
        manual_description=True,
        ask_whole_collection=True,
        source="000: up to three runs, ranked by priority (1-3); the first-priority run completely automatic; "
        "run-tag = Team ID + priority; the form asks manual or automatic (with a description) and whether the "
        "whole Blog06 collection was searched",
    ),
)

TREC2007 = replace(
    QA_COMMON,
    slug="trec2007-qa",
    title="TREC 2007 QA main task (factoid, list, Other)",
    seed="001",
    collection_formats=("aquaint2", "blog06"),
    topic_format=topics,
    run_format=runs,
    question_types=("FACTOID", "LIST", "OTHER"),
    kinds=kinds.kinds(("incorrect", "unsupported", "non-exact", "locally-correct", "globally-correct")),
    measures=TREC2007_MEASURES,
    submission_rules=SubmissionRules(
        max_runs_per_team=3,
        priorities=(1, 2, 3),
        unique_priorities=True,
        automatic_only=True,
        tag_rule=TAG_TEAM_PREFIX,
        team_id_from_tag=r"^(?P<team>[A-Za-z]+)",
        source="001: all processing of the questions was required to be strictly automatic; up to three runs "
        "per group ranked by priority, tags starting with the group's ID (TREC's practice)",
    ),
    organizer_links=(
        PageLink("nil-answers", "NIL answers", "qa:nil_answers", "which factoid questions have no known answer"),
    ),
    topic_decisions=("answer_is_nil",),  # tracks.qa.nil_answers
    default_settings={
        "judged_priorities": [1, 2],
        "series_weights": {"FACTOID": 1 / 3, "LIST": 1 / 3, "OTHER": 1 / 3},
        "allow_nil": True,
        # SPEC-NOTES: "an empty response scores 0": a list or Other question answered by a NIL line alone
        "allow_empty_response": True,
    },
)

# TREC 2007 ciQA (seed 001 section 3): relationship topics judged with the Other questions' nugget workflow;
# its own parts (topic and URL file formats, run pairing, sessions, questionnaire, board) are in tracks/qa/ciqa/.
CIQA_TRACK = replace(
    QA_COMMON,
    slug="trec2007-ciqa",
    title="TREC 2007 complex interactive QA (ciQA)",
    seed="001",
    collection_formats=("aquaint2", "blog06"),
    topic_format=ciqa_topics,
    run_format=ciqa_runs,
    question_types=("CIQA",),
    kinds=kinds.kinds(),
    measures=(CIQA, TREC2007_NUGGET_F_PYRAMID),
    default_settings={
        "judged_priorities": [1, 2],  # initial and final runs are all judged
        "allow_nil": False,
        "interaction_seconds": 300,  # seed 001 3.2.1: five minutes per topic
        "max_initial_runs": 2,
        "max_final_runs": 2,
        "max_url_files": 2,
        "baseline_quota": 5000,  # seed 001 3.2.3: the sentence-retrieval baseline's characters per topic
        "allow_private_urls": False,  # URL files may point only at public addresses (tracks/qa/formats/ciqa_urls.py)
    },
    organizer_links=(
        PageLink(
            "ciqa-link", "ciQA: runs and pairs, URL files, interaction sessions, questionnaire", "qa:ciqa_overview"
        ),
        PageLink("ciqa-board-link", "ciQA scores: recall by length, initial versus final", "qa:ciqa_board"),
    ),
    submission_rules=SubmissionRules(
        initial_final_pairs=True,
        judging_subtasks=("final",),
        source="001 3.2.2: at most 2 initial runs, 2 URL files and 2 final runs per participant (the settings "
        "max_initial_runs, max_url_files, max_final_runs); manual runs marked as such; each final run gives the "
        "run tag of its initial run",
    ),
)


def load_tac_demo(out):
    demo_evaluation.load_tac_demo(out)
    demo_judgments.judge_demo(out)
    demo_scores.score_demo(out)
    demo_machine_set.machine_set_demo(out)


def nist_exports(evaluation) -> tuple[tuple[Export, ...], str]:
    return (
        EXPORTS + NUGGETIZER_EXPORTS + TOP_DOCS_EXPORTS,
        "NIST formats; nuggets and assignments in nuggetizer's JSON Lines; the top-documents lists as a run file",
    )


def url_files(evaluation):
    return [
        OtherSubmission(
            "urls",
            "URL file (your system's address per topic)",
            ciqa_submissions.check_url_file,
            ciqa_submissions.submit_url_file,
        )
    ]


def register():
    for track in (TAC2008, TREC2007, CIQA_TRACK):
        register_track(track)
        ep.adjudication_queue.register(track.slug, adjudication.adjudication_queue)
        ep.scorer.register(track.slug, scorer.score_qa)
        ep.judgment_exports.register(track.slug, nist_exports)
        ep.qrels.register(track.slug, qrels.qrels)  # answer documents (issue 28)
        ep.judgment_scales.register(track.slug, qrels.scales_of(track))  # agreement and qrels in (issue 29)
        ep.judgments_jsonl.register(track.slug, QaRecords)  # answer classes and nuggets in the judgments file
        ep.nugget_sources.register(track.slug, nugget_judging.nugget_sources)  # assisted nugget proposals
    ep.demo.register(TAC2008.slug, load_tac_demo)
    ep.demo.register(TREC2007.slug, demo_trec2007.load_trec2007_demo)
    ep.demo.register(CIQA_TRACK.slug, ciqa_demo.load_ciqa_demo)
    for track in (TAC2008, TREC2007):
        ep.qrels_items.register(track.slug, qrels.items)  # ciQA's responses are judged by nuggets only
        ep.report.register(track.slug, report.qa_report)
        ep.search_found.register(track.slug, search_found.found)
    ep.report.register(CIQA_TRACK.slug, ciqa_results.ciqa_report)  # the QA report with its recall-by-length plot
    ep.check_submission.register(CIQA_TRACK.slug, ciqa_submissions.check_submission_of)
    ep.after_run_stored.register(CIQA_TRACK.slug, ciqa_submissions.after_store)
    ep.other_submissions.register(CIQA_TRACK.slug, url_files)
