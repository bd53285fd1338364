"""The BOLT judgment kinds and the shape of their values (assess.kinds; tracks.bolt.judging cleans them first)."""

from assess.kinds import JudgmentKind, MapOf, Nullable
from tracks.bolt.judging import RELS, TRANS

YES_NO = Nullable(bool)  # None: not answered yet

KINDS = (
    JudgmentKind(
        "citation",
        {"rel": RELS, "trans": TRANS, "chksrc": bool, "relspans": [[int]]},
        "a citation's relevance, translation grade, source checked and relevant spans [start, length]",
    ),
    JudgmentKind(
        "grouping",
        {
            "relevant": YES_NO,
            "useful": YES_NO,
            "groups": MapOf({"relevant": YES_NO, "cohesive": YES_NO, "scope": YES_NO, "members": MapOf(bool)}),
        },
        "a grouping view's yes/no answers, its groups' and their members'",
    ),
)
