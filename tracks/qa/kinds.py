"""The QA judgment kinds and the shape of their values (each QA Track holds them with its own instance labels;
assess.kinds checks them, assess.official reads them)."""

from core.tracks import JudgmentKind, Nullable

VOTE_SHAPE = {"vote": ("vital", "okay")}


def instance_words(value, names):
    """E.g. "globally-correct, class “Paris”"."""
    cls = value.get("answer_class")
    if cls is None:
        return value["label"]
    return f"{value['label']}, class “{names.get('answer_class', {}).get(cls, f'#{cls}')}”"


def match_words(value, names):
    texts = [f"“{names.get('nuggets', {}).get(n, f'#{n}')}”" for n in value["nuggets"]]
    return f"holds {', '.join(texts)}" if texts else "holds no nugget"


def vote_words(value, names):
    return value["vote"]


def instance_bounds(instance_labels):
    """Bounds of an unjudged instance: incorrect, or correct (the best label) in a class of its own (a distinct
    answer, as the scorer counts an unclassed correct instance)."""
    best = "globally-correct" if "globally-correct" in instance_labels else "correct"

    def bounds(item_data, nugget_ids):
        return {"label": "incorrect", "answer_class": None}, {"label": best, "answer_class": None}

    return bounds if instance_labels else None


def match_bounds(item_data, nugget_ids):
    """Bounds of an unmatched response: it holds no nugget, or every nugget of its question."""
    return {"nuggets": []}, {"nuggets": sorted(nugget_ids)}


def kinds(instance_labels=()):
    """The QA kinds of a track whose assessors label instances with `instance_labels`."""
    return (
        JudgmentKind(
            "instance",
            {"label": str, "answer_class": Nullable(int)},
            "a response's label (one of the track's instance labels) and, for a correct list answer, its answer class",
            instance_words,
            labels=tuple(instance_labels),
            bounds=instance_bounds(tuple(instance_labels)),
        ),
        *SHARED,
    )


SHARED = (
    JudgmentKind("nugget_match", {"nuggets": [int]}, "the nuggets a response holds", match_words, bounds=match_bounds),
    JudgmentKind("nugget_vote", VOTE_SHAPE, "a voter's vital/okay vote on a nugget", vote_words),
    JudgmentKind(
        "nugget_revote", VOTE_SHAPE, "the primary assessor's later vote set (one more pyramid vote set)", vote_words
    ),
)
