"""What a question asks of its assessor, from its type and its evaluation's track declaration.

Instance questions (factoid, list, rigid list) get one label per pool item, and list questions group the top-label
instances into answer classes; nugget questions (Other, squishy list, ciQA) get a nugget list, vital/okay votes and
per-item nugget matches.
"""

INSTANCE_TYPES = frozenset({"FACTOID", "LIST", "RIGIDLIST"})
LIST_TYPES = frozenset({"LIST", "RIGIDLIST"})
NUGGET_TYPES = frozenset({"OTHER", "SQUISHYLIST", "CIQA"})
VOTES = ("vital", "okay")


def qtype(topic):
    return (topic.kind or "").upper()


def is_instance_question(topic):
    return qtype(topic) in INSTANCE_TYPES


def is_list_question(topic):
    return qtype(topic) in LIST_TYPES


def is_nugget_question(topic):
    return qtype(topic) in NUGGET_TYPES


def instance_labels(evaluation):
    """The track's instance labels, worst to best (its declaration, tracks/qa/apps.py)."""
    return tuple(evaluation.track_spec.labels("instance"))


def class_label(evaluation):
    """The label whose instances go into answer classes: the best one (TAC "correct", TREC "globally-correct")."""
    labels = instance_labels(evaluation)
    return labels[-1] if labels else None


def is_nil(item):
    """A factoid NIL response: the literal string NIL and no supporting document."""
    return item.text.strip().upper() == "NIL" and item.docid.strip().upper() in ("", "NIL")


def labels_for(item, evaluation):
    """Labels an item may get: a NIL response is either right (no known answer) or wrong, nothing between."""
    labels = instance_labels(evaluation)
    if labels and is_nil(item):
        return (labels[0], labels[-1])
    return labels
