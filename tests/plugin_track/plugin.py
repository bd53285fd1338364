"""The plug-in test track: its Track and, in register(), every function a stage calls in it."""

from core import extension_points as ep
from core.tracks import Track, register_track
from pooling.evaluations import create_evaluation
from pooling.models import Evaluation
from pooling.pools import build_pools
from pooling.runs import RunFile, load_run_files
from pooling.topics import load_topics
from tests.plugin_track import formats, scorer
from tests.plugin_track.measures import MEASURES

TRACK = Track(
    slug="plugin-test",
    title="Plug-in test track (defined inside the test suite)",
    seed="test",
    collection_formats=(),
    topic_format=formats,
    run_format=formats,
    measures=MEASURES,
    human_judging=False,
    default_settings={"judged_priorities": [1]},
)
SLUG = "plugin-demo"
TOPICS = b"t1\tthe first topic\nt2\tthe second topic\n"
RUN = b"t1\td1\tAlpha1\nt1\td2\tAlpha1\nt2\td1\tAlpha1\n"


def load_demo(out):
    """An evaluation with two topics, one run and its pools (idempotent)."""
    if Evaluation.objects.filter(slug=SLUG).exists():
        return
    evaluation = create_evaluation(SLUG, TRACK.slug)
    load_topics(evaluation, TOPICS, "topics.txt")
    load_run_files(evaluation, [RunFile("alpha1.txt", RUN, "Team Alpha", priority=1)])
    build_pools(evaluation)
    out(f"Plug-in test track: {SLUG}")


def register():
    register_track(TRACK)
    ep.demo.register(TRACK.slug, load_demo)
    ep.scorer.register(TRACK.slug, scorer.score)
