from django.apps import AppConfig

from pooling.tracks import Track, register_track

QA_JUDGMENT_KINDS = ("instance", "answer_class", "nugget", "nugget_vote", "nugget_revote", "nugget_match")
QA_DEMO_STEPS = ("pooling.demo_tac.load_tac_demo", "assess.demo.judge_demo", "scoring.demo.score_demo")

TAC2008 = Track(
    slug="tac2008-qa",
    title="TAC 2008 QA (opinion question series over Blog06)",
    seed="000",
    collection_formats=("blog06",),
    topic_format="trec_qa_xml",
    run_format="qa_run",
    question_types=("RIGIDLIST", "SQUISHYLIST"),
    judgment_kinds=QA_JUDGMENT_KINDS,
    judgments={"instance": ("incorrect", "unsupported", "non-exact", "correct")},
    measures=("list_f", "nugget_f_pyramid", "series_score"),
    default_settings={
        "judged_priorities": [1, 2],
        "max_answer_chars": 7000,
        "series_weights": {"RIGIDLIST": 0.5, "SQUISHYLIST": 0.5},
        "allow_nil": False,
        "permalink_only": True,  # answers must be supported by Blog06 permalink documents
    },
    demo_steps=QA_DEMO_STEPS,
)

TREC2007 = Track(
    slug="trec2007-qa",
    title="TREC 2007 QA main task (factoid, list, Other)",
    seed="001",
    collection_formats=("aquaint2", "blog06"),
    topic_format="trec_qa_xml",
    run_format="qa_run",
    question_types=("FACTOID", "LIST", "OTHER"),
    judgment_kinds=QA_JUDGMENT_KINDS,
    judgments={"instance": ("incorrect", "unsupported", "non-exact", "locally-correct", "globally-correct")},
    measures=("factoid_accuracy", "nil_precision_recall", "list_f", "nugget_f_pyramid", "series_score"),
    default_settings={
        "judged_priorities": [1, 2],
        "series_weights": {"FACTOID": 1 / 3, "LIST": 1 / 3, "OTHER": 1 / 3},
        "allow_nil": True,
    },
)


class QaConfig(AppConfig):
    """TAC 2008 QA and the TREC 2007 QA main task (seeds 000 and 001); ciQA joins later."""

    name = "tracks.qa"
    label = "qa"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        register_track(TAC2008)
        register_track(TREC2007)
        from scoring import qa_scoring  # noqa: F401  (registers the QA tracks' scorer)
