from django.conf import settings
from django.db import models

from core.tracks import get_track, track_choices


class Evaluation(models.Model):
    """One evaluation of one track: its collections, questions, runs, pools and, in the end, scores."""

    OPEN = "open"
    JUDGING = "judging"
    RELEASED = "released"
    STATES = [(OPEN, "Open for runs"), (JUDGING, "Judging"), (RELEASED, "Scores released")]

    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    track = models.CharField(max_length=40, choices=track_choices)  # callable: tracks register after models load
    collections = models.ManyToManyField("corpus.Collection", blank=True, related_name="evaluations")
    state = models.CharField(max_length=20, choices=STATES, default=OPEN)
    # Track-specific settings (judged priorities, answer-length limits, series weights...), seeded from the
    # track's defaults and editable by the organizer.
    settings = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "slug"]

    def __str__(self):
        return self.slug

    @property
    def track_spec(self):
        return get_track(self.track)

    def setting(self, name, default=None):
        """An evaluation setting, falling back to the track's default."""
        if name in self.settings:
            return self.settings[name]
        return self.track_spec.default_settings.get(name, default)

    def save(self, *args, **kwargs):
        if not self.settings:
            self.settings = dict(get_track(self.track).default_settings)
        super().save(*args, **kwargs)


class Topic(models.Model):
    """A topic, target/series, question or reading test. Series hold questions through `parent`."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="topics")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="children")
    ident = models.CharField(max_length=50)  # "216" for a series, "216.3" for its third question
    kind = models.CharField(max_length=30)  # series, FACTOID, LIST, OTHER, RIGIDLIST, SQUISHYLIST, ...
    text = models.TextField(blank=True)
    position = models.PositiveIntegerField(default=0)  # order in the file, kept for display and checks
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["evaluation", "position"]
        constraints = [models.UniqueConstraint(fields=["evaluation", "ident"], name="unique_topic_ident")]

    def __str__(self):
        return f"{self.evaluation.slug}:{self.ident}"


class Run(models.Model):
    """One submitted run file of one team."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="runs")
    team = models.ForeignKey("accounts.Team", on_delete=models.PROTECT, related_name="runs")
    tag = models.CharField(max_length=100)
    priority = models.PositiveSmallIntegerField(default=1)
    is_manual = models.BooleanField(default=False)
    whole_collection = models.BooleanField(default=True)
    source_name = models.CharField(max_length=255, blank=True)
    loaded_at = models.DateTimeField(auto_now=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["evaluation", "team__name", "priority", "tag"]
        constraints = [models.UniqueConstraint(fields=["evaluation", "tag"], name="unique_run_tag")]

    def __str__(self):
        return f"{self.evaluation.slug}:{self.tag}"


class RunEntry(models.Model):
    """One line (or record) of a run: for QA a [docid, answer-string] instance; other tracks keep their extra
    fields (citation offsets, scores, chosen answers) in `data`."""

    # No foreign-key constraints in the database (db_constraint=False): PostgreSQL checks them with two trigger
    # queries per row, half of storing 300,000 BOLT citations (benchmarks/bolt.py). Rows are only written by
    # the loaders, for a run they create or lock, after locking the run's topics (pooling.runs.store_run);
    # deletes cascade through Django's collector (on_delete) as before.
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="entries", db_constraint=False)
    # No index of its own: the (topic, run) index below serves lookups by topic, and a third index on the table
    # made storing a run a third slower (benchmarks/bolt.py: 300,000 citations).
    topic = models.ForeignKey(
        Topic, on_delete=models.CASCADE, related_name="run_entries", db_index=False, db_constraint=False
    )
    line_no = models.PositiveIntegerField()  # line (or record number) in the submitted file, for messages
    docid = models.CharField(max_length=200, blank=True)
    text = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "line_no"]
        indexes = [models.Index(fields=["topic", "run"])]

    def __str__(self):
        return f"{self.run.tag}:{self.line_no}"


class PoolItem(models.Model):
    """A distinct thing to judge for one topic: the same instance returned by many runs is one item.

    `key` is the track's normalised identity of the item (for QA: docid + answer string with white space
    collapsed), so rebuilding a pool finds the items, and with them the judgments, it had before. Items the
    assessors add themselves (answers or citations found while developing the topic) have origin "assessor".
    """

    RUNS = "runs"
    ASSESSOR = "assessor"

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="pool_items")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="pool_items")
    key = models.TextField()
    pool_id = models.CharField(max_length=50, blank=True)  # stable public id, e.g. for NIST-style exports
    docid = models.CharField(max_length=200, blank=True)
    text = models.TextField(blank=True)
    origin = models.CharField(max_length=10, choices=[(RUNS, "runs"), (ASSESSOR, "assessor")], default=RUNS)
    position = models.PositiveIntegerField(default=0)  # order shown to assessors
    data = models.JSONField(default=dict, blank=True)
    sources = models.ManyToManyField(RunEntry, blank=True, related_name="pool_items")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["topic", "key"], name="unique_pool_item_key")]

    def __str__(self):
        return f"{self.topic.ident}#{self.pool_id or self.pk}"


class PoolBuild(models.Model):
    """One run of the pool-building task: its progress (series done of total), shown to the organizer."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    STATUSES = [(QUEUED, "Queued"), (RUNNING, "Running"), (DONE, "Done"), (FAILED, "Failed")]

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="pool_builds")
    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True)
    counts = models.JSONField(default=dict, blank=True)  # items created, kept, removed, sources linked
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.evaluation.slug} pool build {self.pk} ({self.status})"

    @property
    def percent(self):
        return int(100 * self.done / self.total) if self.total else (100 if self.status == self.DONE else 0)

    @property
    def active(self):
        return self.status in (self.QUEUED, self.RUNNING)


class StaleTopic(models.Model):
    """A question whose scores are out of date: pooling.staleness writes it in the same transaction as the change
    that made it stale (a judgment, a run, a pool), scoring clears it once recomputed. So a stopped Redis or a
    crashed worker delays the score but never loses the need to recompute it."""

    topic = models.OneToOneField("pooling.Topic", on_delete=models.CASCADE, related_name="stale_mark")
    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="stale_topics")
    since = models.DateTimeField()  # first change not yet reflected in the scores
    changed_at = models.DateTimeField()  # latest change

    class Meta:
        # The model moved here from scoring (issue 13) so that the stages before scoring can write it; the table
        # kept its name, so no data moved.
        db_table = "scoring_staletopic"


# ---------------------------------------------------------------- the campaign around the judging


class Participation(models.Model):
    """A team taking part in one evaluation: its team ID there (run tags start with it) and when it first
    downloaded the test data (QA4MRE: its runs are due within 5 days of that)."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="participations")
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="participations")
    ident = models.CharField(max_length=100, blank=True)  # the team ID; "" until set or learned from a run
    first_download_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["evaluation", "team__name"]
        constraints = [models.UniqueConstraint(fields=["evaluation", "team"], name="unique_participation")]

    def __str__(self):
        return f"{self.evaluation.slug}:{self.team.name}"


class Submission(models.Model):
    """The receipt of one run file accepted for storage: who sent it, when, its checksum, and what the
    submission form said (manual processing, whole collection, rule overrides)."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="submissions")
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="submissions")
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="submissions")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    tag = models.CharField(max_length=100)
    filename = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField(default=0)
    priority = models.PositiveSmallIntegerField(null=True)
    replaced = models.BooleanField(default=False)
    submitted_at = models.DateTimeField(auto_now_add=True)
    form = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-submitted_at", "-id"]

    def __str__(self):
        return f"{self.evaluation.slug}:{self.tag}@{self.submitted_at:%Y-%m-%d %H:%M}"


class EvaluationFile(models.Model):
    """A file the organizers give the teams: the test questions, top-documents lists, a test set, the full
    topics. Stored as uploaded; `released` says when teams see it: at once, or only once the evaluation's
    judgments are released (BOLT's full topics)."""

    AT_ONCE = "at_once"
    WITH_JUDGMENTS = "with_judgments"
    RELEASES = [(AT_ONCE, "while the evaluation runs"), (WITH_JUDGMENTS, "with the judgments")]

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="files")
    kind = models.CharField(max_length=30)  # "topics", "top_docs"
    filename = models.CharField(max_length=255)
    data = models.BinaryField()
    released = models.CharField(max_length=20, choices=RELEASES, default=AT_ONCE)
    test_data = models.BooleanField(default=True)  # its first download starts a team's clock (QA4MRE)
    uploaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["evaluation", "kind"]
        constraints = [models.UniqueConstraint(fields=["evaluation", "kind"], name="unique_evaluation_file")]


class Download(models.Model):
    """Who of which team fetched which file when (the first one of a team's test data starts its clock)."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="downloads")
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="downloads")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    what = models.CharField(max_length=100)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at"]
