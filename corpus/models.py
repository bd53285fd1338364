from django.db import models

from corpus.formats import format_choices


class Collection(models.Model):
    """A document collection (Blog06, AQUAINT-2, a BOLT forum set, PubMed abstracts, MS MARCO V2.1 segments) as
    loaded into Assay."""

    name = models.SlugField(max_length=100, unique=True)
    # corpus's formats and those the tracks bring (core.extension_points.collection_formats): a callable, so a
    # track's format needs no migration of corpus
    format = models.CharField(max_length=40, choices=format_choices)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The PostgreSQL text search configuration its documents are indexed and searched with (corpus.search).
    search_language = models.CharField(max_length=63, default="english")
    # The search index build (corpus.search.build_index): "" never built, "building", "ready", "failed: why".
    search_status = models.CharField(max_length=500, blank=True)
    search_done = models.PositiveIntegerField(default=0)
    search_total = models.PositiveIntegerField(default=0)
    # How many pieces its RUM index was built in (corpus.search_rum): searches write the pieces' predicates.
    search_pieces = models.PositiveSmallIntegerField(default=1)
    # The common lexemes its pairs index was built for (corpus.search_pairs; PostgreSQL), [] for none.
    search_pairs = models.JSONField(default=list, blank=True, editable=False)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Document(models.Model):
    """One document exactly as received (raw bytes) with what was derived from it at load time."""

    # (no index of its own: unique_docno_per_collection begins with it, and a second one on the column let the
    # planner look a docno up by scanning the collection's documents when a load's statistics lagged)
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="documents", db_index=False)
    docno = models.CharField(max_length=200)
    raw = models.BinaryField()
    charset = models.CharField(max_length=40, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    text = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "docno"], name="unique_docno_per_collection")]

    def __str__(self):
        return f"{self.collection.name}:{self.docno}"


class TsVector(models.Field):
    """PostgreSQL's tsvector (SQLite keeps its full-text index in the FTS5 table corpus_fts instead)."""

    def db_type(self, connection):
        return "tsvector" if connection.vendor == "postgresql" else "text"


class SearchEntry(models.Model):
    """A document's row in the full-text index: its lexemes (PostgreSQL, GIN-indexed) and its date for the
    filter. Built by corpus.search.build_index; a document without a row is not found by search yet."""

    document = models.OneToOneField(Document, primary_key=True, on_delete=models.CASCADE, related_name="search_entry")
    # (no index of its own: corpus_search_coll_date begins with it)
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="+", db_index=False)
    date = models.DateField(null=True)
    vector = TsVector(null=True)

    class Meta:
        indexes = [
            models.Index(fields=["collection", "date"], name="corpus_search_coll_date"),
            # A collection's entries in heap order, for searches of common words (corpus.search_plan): an
            # expression no other query writes, so the planner can take no other index for it.
            models.Index(models.F("collection_id") * 1, name="corpus_search_load_order"),
        ]
