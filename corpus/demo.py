"""The demo's small Blog06-like collection: opinion posts about three targets in several charsets, a few hostile."""

from pathlib import Path

from corpus.loading import load_collection

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "corpus"
DEMO_BLOG06 = "demo-blog06"
DEMO_FILES = ["blog06-demo.txt", "blog06-demo-2.txt.gz"]
DEMO_FORUM = "demo-bolt-forum"
DEMO_FORUM_FILES = ["forum/bolt-forum-demo.xml"]


def load_demo_collections(out):
    r = load_collection(
        DEMO_BLOG06,
        "blog06",
        [FIXTURES / f for f in DEMO_FILES],
        description="Demo: Blog06-like permalink pages about Dana Whitfield (TV host), the "
        "Motorola RAZR V3 and King Kong (2005), in several charsets, some hostile.",
    )
    out(f"Collection {DEMO_BLOG06}: {r.inserted} new, {r.already_present} already present, {len(r.bad)} bad")
    if all((FIXTURES / f).exists() for f in DEMO_FORUM_FILES):
        r = load_collection(
            DEMO_FORUM,
            "bolt-forum",
            [FIXTURES / f for f in DEMO_FORUM_FILES],
            description="Demo: BOLT-style English discussion-forum threads.",
        )
        out(f"Collection {DEMO_FORUM}: {r.inserted} new, {r.already_present} already present, {len(r.bad)} bad")
