"""BioGen's cited PMIDs as qrels (core.extension_points.qrels; docs/formats.md): the document is the PMID of a
citation item, graded from its label supports 2; contradicts, neutral, partially supports 1 (relevant, as the
track's document precision counts them: tracks.biogen.measures.RELEVANT); not relevant 0. A PMID cited by
several sentences of a topic keeps its highest grade."""

from scoring.qrels import item_qrels
from tracks.biogen.labels import KIND
from tracks.biogen.measures import RELEVANT

GRADES = {label: 1 for label in RELEVANT} | {"supports": 2, "not_relevant": 0}


def qrels(evaluation, which):
    return item_qrels(
        evaluation,
        [KIND],
        which,
        lambda key, docid, data: docid if key.startswith("c:") and docid else None,
        lambda kind, value: GRADES.get(value.get("label")),
    )
