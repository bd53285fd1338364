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


def citation_bounds(item_data, nugget_ids):
    """Bounds of an unjudged citation: not relevant, or relevant in all its characters (no relspans). A grouping
    view (judged apart) and a citation LDC judged in the topic file ("rel" in its data) have none."""
    if item_data.get("bolt") == "view" or "rel" in item_data:
        return None
    worst = {"rel": "no", "trans": "na", "chksrc": False, "relspans": []}
    return worst, worst | {"rel": "yes"}


KINDS = (
    JudgmentKind(
        "citation",
        {"rel": RELS, "trans": TRANS, "chksrc": bool, "relspans": [[int]]},
        "a citation's relevance, translation grade, source checked and relevant spans [start, length]",
        citation_words,
        labels=RELS,
        bounds=citation_bounds,
    ),
    JudgmentKind(
        "grouping",
        {
            "relevant": YES_NO,
            "useful": YES_NO,
            "groups": MapOf({"relevant": YES_NO, "cohesive": YES_NO, "scope": YES_NO, "members": MapOf(bool)}),
        },
        "a grouping view's yes/no answers, its groups' and their members'",
        # no bounds: a grouping view is judged on a page of its own, group by group (Track.items_judged_apart)
    ),
)
