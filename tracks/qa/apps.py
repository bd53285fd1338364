from django.apps import AppConfig

from assess.keymap import register_pages
from core.submission_rules import TAG_TEAM_PREFIX, TAG_TEAM_PRIORITY, SubmissionRules
from core.tracks import PageLink, Track, register_track
from tracks.qa import keys
from tracks.qa.measures import CIQA, TAC2008_MEASURES, TREC2007_MEASURES, TREC2007_NUGGET_F_PYRAMID
from tracks.qa.questions import INSTANCE_TYPES, NUGGET_TYPES

QA_JUDGMENT_KINDS = ("instance", "answer_class", "nugget", "nugget_vote", "nugget_revote", "nugget_match")
# Progress, for every QA question type (ciQA's too): an instance question's items are judged by their labels, a
# nugget question's by their matches, which are the primary's (a second assessor labels instances only).
QA_PROGRESS = {
    "done_kinds": {
        **dict.fromkeys(sorted(INSTANCE_TYPES), "instance"),
        **dict.fromkeys(sorted(NUGGET_TYPES), "nugget_match"),
    },
    "primary_only_kinds": ("nugget_match",),
}
QA_DEMO_STEPS = (
    "tracks.qa.demo_evaluation.load_tac_demo",
    "tracks.qa.demo_judgments.judge_demo",
    "tracks.qa.demo_scores.score_demo",
)
# QA's own pages (tracks/qa/urls.py, namespace "qa"), shared by both tracks.
QA_PAGES = {
    "adjudication_queue": "tracks.qa.adjudication.adjudication_queue",
    "adjudication_page": "qa:adjudication",
    "assignment_page": "qa:assignment",
    "vote_page": "qa:vote_series",
}

TAC2008 = Track(
    slug="tac2008-qa",
    title="TAC 2008 QA (opinion question series over Blog06)",
    seed="000",
    collection_formats=("blog06",),
    topic_format="tracks.qa.formats.topics",
    run_format="tracks.qa.formats.runs",
    question_types=("RIGIDLIST", "SQUISHYLIST"),
    judgment_kinds=QA_JUDGMENT_KINDS,
    judgments={"instance": ("incorrect", "unsupported", "non-exact", "correct")},
    measures=TAC2008_MEASURES,
    default_settings={
        "judged_priorities": [1, 2],
        "max_answer_chars": 7000,
        "series_weights": {"RIGIDLIST": 0.5, "SQUISHYLIST": 0.5},
        "allow_nil": False,
        "permalink_only": True,  # answers must be supported by Blog06 permalink documents
    },
    demo_steps=QA_DEMO_STEPS,
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
    **QA_PAGES,
    **QA_PROGRESS,
)

TREC2007 = Track(
    slug="trec2007-qa",
    title="TREC 2007 QA main task (factoid, list, Other)",
    seed="001",
    collection_formats=("aquaint2", "blog06"),
    topic_format="tracks.qa.formats.topics",
    run_format="tracks.qa.formats.runs",
    question_types=("FACTOID", "LIST", "OTHER"),
    judgment_kinds=QA_JUDGMENT_KINDS,
    judgments={"instance": ("incorrect", "unsupported", "non-exact", "locally-correct", "globally-correct")},
    measures=TREC2007_MEASURES,
    demo_steps=("tracks.qa.demo_trec2007.load_trec2007_demo",),
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
    **QA_PAGES,
    **QA_PROGRESS,
)

# TREC 2007 ciQA (seed 001 section 3): relationship topics judged with the Other questions' nugget workflow;
# its own parts (topic and URL file formats, run pairing, sessions, questionnaire, board) are in tracks/qa/ciqa/.
CIQA_TRACK = Track(
    slug="trec2007-ciqa",
    title="TREC 2007 complex interactive QA (ciQA)",
    seed="001",
    collection_formats=("aquaint2", "blog06"),
    topic_format="tracks.qa.formats.ciqa_topics",
    run_format="tracks.qa.formats.ciqa_runs",
    question_types=("CIQA",),
    judgment_kinds=QA_JUDGMENT_KINDS,
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
    demo_steps=("tracks.qa.ciqa.demo.load_ciqa_demo",),
    submission_rules=SubmissionRules(
        initial_final_pairs=True,
        judging_subtasks=("final",),
        source="001 3.2.2: at most 2 initial runs, 2 URL files and 2 final runs per participant (the settings "
        "max_initial_runs, max_url_files, max_final_runs); manual runs marked as such; each final run gives the "
        "run tag of its initial run",
    ),
    **QA_PAGES,
    **QA_PROGRESS,
)


class QaConfig(AppConfig):
    """TAC 2008 QA, the TREC 2007 QA main task and TREC 2007 ciQA (seeds 000 and 001)."""

    name = "tracks.qa"
    label = "qa"
    default_auto_field = "django.db.models.BigAutoField"
    url_prefix = "assess/"  # QA's judging pages keep the paths they had under the assess app

    def ready(self):
        register_track(TAC2008)
        register_track(TREC2007)
        register_track(CIQA_TRACK)
        register_pages(keys.PAGES)
        from assess.kinds import register_kind
        from tracks.qa.kinds import KINDS

        for kind in KINDS:
            register_kind(kind)
        from assess.search_panel import register_found_form
        from tracks.qa import search_found

        for track in (TAC2008, TREC2007):
            register_found_form(track.slug, search_found.FORM)
        from scoring.registry import register_exports, register_report, register_scorer
        from tracks.qa.nist_exports import EXPORTS
        from tracks.qa.report import qa_report
        from tracks.qa.scorer import QA_TRACKS, score_qa

        for slug in QA_TRACKS:
            register_scorer(slug, score_qa)
            register_report(slug, qa_report)
            register_exports(slug, EXPORTS, note="NIST formats")
        from tracks.qa.ciqa.results import ciqa_report

        register_report(CIQA_TRACK.slug, ciqa_report)  # the QA report with its recall-by-length plot
        from pooling.campaign import OtherSubmission, register_other_submission
        from tracks.qa.ciqa import submissions as ciqa_submissions

        register_other_submission(
            CIQA_TRACK.slug,
            OtherSubmission(
                "urls",
                "URL file (your system's address per topic)",
                ciqa_submissions.check_url_file,
                ciqa_submissions.submit_url_file,
            ),
        )
