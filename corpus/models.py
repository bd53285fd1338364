from django.db import models


class Collection(models.Model):
    """A document collection (Blog06, AQUAINT-2, a BOLT forum set, PubMed abstracts) as loaded into Assay."""

    FORMATS = [
        ("blog06", "Blog06 permalinks"),
        ("aquaint2", "AQUAINT-2 newswire"),
        ("bolt-forum", "BOLT discussion forums"),
        ("pubmed", "PubMed abstracts"),
    ]

    name = models.SlugField(max_length=100, unique=True)
    format = models.CharField(max_length=20, choices=FORMATS)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Document(models.Model):
    """One document exactly as received (raw bytes) with what was derived from it at load time."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="documents")
    docno = models.CharField(max_length=200)
    raw = models.BinaryField()
    charset = models.CharField(max_length=40, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    text = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "docno"], name="unique_docno_per_collection")]

    def __str__(self):
        return f"{self.collection.name}:{self.docno}"
