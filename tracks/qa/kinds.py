"""The QA judgment kinds and the shape of their values (assess.kinds; assess.official reads them)."""

from assess.kinds import JudgmentKind, Nullable

VOTE_SHAPE = {"vote": ("vital", "okay")}

KINDS = (
    JudgmentKind(
        "instance",
        {"label": str, "answer_class": Nullable(int)},
        "a response's label (one of the track's instance labels) and, for a correct list answer, its answer class",
    ),
    JudgmentKind("nugget_match", {"nuggets": [int]}, "the nuggets a response holds"),
    JudgmentKind("nugget_vote", VOTE_SHAPE, "a voter's vital/okay vote on a nugget"),
    JudgmentKind("nugget_revote", VOTE_SHAPE, "the primary assessor's later vote set (one more pyramid vote set)"),
)
