"""BOLT adjudication: citations the two assessors of a double-judged topic judged differently wait in a queue
where an organizer or an invited adjudicator, never one of the topic's assessors, decides. The decision is a
"citation" judgment of role "adjudicated" written through assess.adjudication.decide (version check, history,
stale mark); assess.official makes it the judgment that counts in the BOLT measures and the export.

What goes to the queue: the relevance (yes / maybe / no) differs, or both say relevant but mark different
relevant characters (relspans compared after merging, so a relspan over the whole passage equals none). Both
change the character measures. Translation and source-checked differences change no measure, so on their own
they do not queue a citation; the adjudicator sees and decides them along with the rest.
"""

from assess.adjudication import decide, disagreements
from tracks.bolt.judging import BoltError, clean_citation_value
from tracks.bolt.measures import merge_spans, relevant_spans

RELEVANCE, RELEVANT_PART = "relevance", "relevant part"


def disagreement(first, second, length):
    """Why two citation judgment values of a passage of `length` characters need a third person, or None."""
    if first.get("rel") != second.get("rel"):
        return RELEVANCE
    if relevant_spans(length, first) != relevant_spans(length, second):
        return RELEVANT_PART
    return None


def passage_segments(text, relspans):
    """The passage as [(text, marked)] pieces, the relspans (merged) marked, for showing a judgment."""
    out, pos = [], 0
    for start, end in merge_spans(relspans or [], len(text)):
        if start > pos:
            out.append((text[pos:start], False))
        out.append((text[start:end], True))
        pos = end
    if pos < len(text):
        out.append((text[pos:], False))
    return out


def adjudication_queue(evaluation, user=None):
    """[(item, primary, secondary, adjudicated or None)] for every disagreement, in topic and pool order; each
    item carries `reason` (RELEVANCE or RELEVANT_PART). The shape of assess.progress.adjudication_queue, so the
    organizer's judging overview counts both alike. With `user`, the topics the user judged are left out."""

    def differ(first, second):
        return disagreement(first.value, second.value, len(first.item.text))

    out = disagreements(evaluation, "citation", differ, user)
    out.sort(key=lambda row: (row[0].topic.position, row[0].position, row[0].pk))
    return out


def decision_value(form, primary, secondary):
    """The decided value from the adjudication form: `adopt` ("primary" / "secondary") takes that judgment whole;
    otherwise rel, trans and chksrc as given, and the relevant part `spans` from the whole passage ("whole") or
    as one of the assessors marked it ("primary" / "secondary")."""
    sides = {"primary": primary, "secondary": secondary}
    adopt = form.get("adopt")
    if adopt:
        if adopt not in sides:
            raise BoltError(f"adopt must be primary or secondary, not {adopt!r}")
        return dict(sides[adopt].value)
    spans = form.get("spans") or "whole"
    if spans != "whole" and spans not in sides:
        raise BoltError(f"the relevant part is whole, primary or secondary, not {spans!r}")
    return {
        "rel": form.get("rel"),
        "trans": form.get("trans") or "na",
        "chksrc": bool(form.get("chksrc")),
        "relspans": [] if spans == "whole" else list(sides[spans].value.get("relspans") or []),
    }


def adjudicate_citation(user, item, value, expected_version):
    """Decide a double-judged citation (assess.adjudication.decide): one decision per citation, which the
    adjudicator who made it may change; another adjudicator's save is refused (generic.AlreadyDecided, a
    StaleJudgment carrying the decision). Raises generic.Forbidden for anyone who may not adjudicate it."""

    def clean(value):
        if item.data.get("bolt") == "view":
            raise BoltError("this item is a grouping view, not a citation")
        return clean_citation_value(value, len(item.text))

    def differ(primary, secondary):  # the queue's own rule (adjudication_queue)
        return disagreement(primary, secondary, len(item.text))

    return decide(user, item, "citation", value, expected_version, clean=clean, differ=differ, what="citation")
