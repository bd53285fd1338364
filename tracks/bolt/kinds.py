"""The BOLT judgment kinds and the shape of their values (the Track holds them, assess.kinds checks them;
tracks.bolt.judging cleans them first)."""

from core.tracks import JudgmentKind, MapOf, Nullable
from tracks.bolt.judging import RELS, TRANS

YES_NO = Nullable(bool)  # None: not answered yet
TRANS_WORDS = {"accept": "acceptable", "problematic": "problematic", "notaccept": "not acceptable"}


def citation_words(value, names):
    """E.g. "relevant: yes, translation problematic, source checked, 2 relevant parts"."""
    parts = [f"relevant: {value['rel']}"]
    if value.get("trans") in TRANS_WORDS:
        parts.append(f"translation {TRANS_WORDS[value['trans']]}")
    if value.get("chksrc"):
        parts.append("source checked")
    n = len(value.get("relspans") or ())
    if n:
        parts.append(f"{n} relevant part{'s' if n > 1 else ''}")
    return ", ".join(parts)


KINDS = (
    JudgmentKind(
        "citation",
        {"rel": RELS, "trans": TRANS, "chksrc": bool, "relspans": [[int]]},
        "a citation's relevance, translation grade, source checked and relevant spans [start, length]",
        citation_words,
        labels=RELS,
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
