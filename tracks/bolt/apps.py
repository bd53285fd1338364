from django.apps import AppConfig

from assess.keymap import register_pages
from core.submission_rules import SubmissionRules
from core.tracks import PageLink, Track, register_track
from tracks.bolt import keys
from tracks.bolt.measures import MEASURES

BOLT = Track(
    slug="bolt-ir-p2",
    title="BOLT IR phase 2 (forum citations and thematic groupings)",
    seed="004",
    collection_formats=("bolt-forum",),
    topic_format="tracks.bolt.formats.topics",
    run_format="tracks.bolt.formats.citations",
    judgment_kinds=("citation", "relspan", "grouping"),
    judgments={"citation": ("yes", "maybe", "no")},
    done_kinds={"TOPIC": "citation"},  # a topic is judged citation by citation
    items_judged_apart={"data__bolt": "view"},  # grouping views: judged on their own page (judging.grouping_views)
    measures=MEASURES,
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
    adjudication_queue="tracks.bolt.adjudication.adjudication_queue",
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
    demo_steps=("tracks.bolt.demo.load_bolt_demo",),
    participant_topics="tracks.bolt.team_files.evaluation_topics",
    run_judgments="tracks.bolt.team_files.assessed_run",
    # Seed 004: "After the citation retrieval subtask is assessed, ... Teams will then produce up to three views".
    submission_rules=SubmissionRules(judging_subtasks=("groups",), source="004, Subtask 2: Thematic Grouping"),
)


class BoltConfig(AppConfig):
    """BOLT IR phase 2 (seed 004): forum citations, relevant spans and thematic groupings."""

    name = "tracks.bolt"
    label = "bolt"
    default_auto_field = "django.db.models.BigAutoField"
    url_prefix = "bolt/"

    def ready(self):
        register_track(BOLT)
        register_pages(keys.PAGES)
        from assess.search_panel import register_found_form
        from tracks.bolt import search_found

        register_found_form(BOLT.slug, search_found.FORM)
        from assess.kinds import register_kind
        from tracks.bolt.kinds import KINDS

        for kind in KINDS:
            register_kind(kind)
        from scoring.registry import register_report
        from tracks.bolt import report, scorer  # import models: not before the apps are ready

        scorer.register()
        register_report(BOLT.slug, report.run_report)
