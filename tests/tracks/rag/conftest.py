"""TEMPORARY until rag-load's collection-format registration is merged: the segments format under a short name."""

import pytest

from corpus import formats

FORMAT = "msmarco-seg-tmp"


@pytest.fixture(autouse=True)
def _segments_format(monkeypatch):
    monkeypatch.setitem(formats.FORMAT_MODULES, FORMAT, "tracks.rag.formats.segments")
