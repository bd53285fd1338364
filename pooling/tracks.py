"""The one place where each track is declared: its file formats, judgment kinds and measures.

Plain data with no Django import. Views, commands and tasks look a track up here instead of branching on its
slug; adding a track means adding a declaration below and the pure modules it names.
"""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Track:
    slug: str
    title: str
    seed: str  # the seed document in ../shared/seeds that specifies the track
    collection_formats: tuple  # corpus formats its documents come in
    topic_format: str  # parser in pooling.formats for its topics/questions
    run_format: str  # parser/checker in pooling.formats for its run files
    question_types: tuple = ()
    judgment_kinds: tuple = ()  # what assessors record (assess app)
    judgments: dict = field(default_factory=dict)  # judgment kind -> allowed labels
    measures: tuple = ()  # measure names in scoring.measures
    human_judging: bool = True
    default_settings: dict = field(default_factory=dict)
    # Double judging's disagreements: the function listing them ([(item, primary, secondary, decided)]) and the
    # URL name of the page deciding them (takes the evaluation's slug).
    adjudication_queue: str = "assess.progress.adjudication_queue"
    adjudication_page: str = "assess:adjudication"


TRACKS = {
    t.slug: t
    for t in (
        Track(
            slug="tac2008-qa",
            title="TAC 2008 QA (opinion question series over Blog06)",
            seed="000",
            collection_formats=("blog06",),
            topic_format="trec_qa_xml",
            run_format="qa_run",
            question_types=("RIGIDLIST", "SQUISHYLIST"),
            judgment_kinds=("instance", "answer_class", "nugget", "nugget_vote", "nugget_revote", "nugget_match"),
            judgments={"instance": ("incorrect", "unsupported", "non-exact", "correct")},
            measures=("list_f", "nugget_f_pyramid", "series_score"),
            default_settings={
                "judged_priorities": [1, 2],
                "max_answer_chars": 7000,
                "series_weights": {"RIGIDLIST": 0.5, "SQUISHYLIST": 0.5},
                "allow_nil": False,
                "permalink_only": True,  # answers must be supported by Blog06 permalink documents
            },
        ),
        Track(
            slug="trec2007-qa",
            title="TREC 2007 QA main task (factoid, list, Other)",
            seed="001",
            collection_formats=("aquaint2", "blog06"),
            topic_format="trec_qa_xml",
            run_format="qa_run",
            question_types=("FACTOID", "LIST", "OTHER"),
            judgment_kinds=("instance", "answer_class", "nugget", "nugget_vote", "nugget_revote", "nugget_match"),
            judgments={
                "instance": (
                    "incorrect",
                    "unsupported",
                    "non-exact",
                    "locally-correct",
                    "globally-correct",
                )
            },
            measures=("factoid_accuracy", "nil_precision_recall", "list_f", "nugget_f_pyramid", "series_score"),
            default_settings={
                "judged_priorities": [1, 2],
                "series_weights": {"FACTOID": 1 / 3, "LIST": 1 / 3, "OTHER": 1 / 3},
                "allow_nil": True,
            },
        ),
        Track(
            slug="trec2007-ciqa",
            title="TREC 2007 complex interactive QA (ciQA)",
            seed="001",
            collection_formats=("aquaint2",),
            topic_format="ciqa_topics",
            run_format="qa_run",
            question_types=("CIQA",),
            judgment_kinds=("nugget", "nugget_vote", "nugget_revote", "nugget_match"),
            measures=("nugget_f_pyramid", "recall_by_length"),
        ),
        Track(
            slug="bolt-ir-p2",
            title="BOLT IR phase 2 (forum citations and thematic groupings)",
            seed="004",
            collection_formats=("bolt-forum",),
            topic_format="bolt_topics",
            run_format="bolt_citations",
            judgment_kinds=("citation", "relspan", "grouping"),
            judgments={"citation": ("yes", "maybe", "no")},
            measures=("char_precision", "char_recall", "char_f", "char_map", "view_precision", "group_precision",
                      "group_skew"),
            default_settings={
                "judged_priorities": list(range(1, 10)),  # the seed: "all returned passages will be pooled"
                "eval_id": "BOLT-IR-P2",
                "max_citations": 100,
                "max_passage_chars": 250,
                "near_dup_percent": 95,
                "max_views": 3,
                "max_groups": 10,
                "max_label_chars": 250,
            },
            adjudication_queue="pooling.bolt_adjudication.adjudication_queue",
            adjudication_page="bolt:adjudication",
        ),
        Track(
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
        ),
        Track(
            slug="biogen-2024",
            title="TREC BioGen 2024 (biomedical answers with PubMed citations)",
            seed="002",
            collection_formats=("pubmed",),
            topic_format="biogen_topics",
            run_format="biogen_run",
            judgment_kinds=("answer", "sentence", "citation"),
            measures=("accuracy", "citation_coverage", "document_precision", "document_recall"),
        ),
    )
}


def get_track(slug):
    try:
        return TRACKS[slug]
    except KeyError:
        raise KeyError(f"unknown track {slug!r}; known tracks: {', '.join(sorted(TRACKS))}") from None


def track_choices():
    return [(t.slug, t.title) for t in TRACKS.values()]
