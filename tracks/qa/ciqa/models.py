"""ciQA's own records (app label "qa"): URL files and their screenshots, interaction sessions, the exit
questionnaire's answers and the baseline interaction's sentence judgments.

Answers and sentence judgments are append-only: every save adds a row (who, when, what), the latest row per
assessor and subject is the current value, so no answer is ever lost and every change is kept.
"""

from django.conf import settings
from django.db import models


class UrlFile(models.Model):
    """A team's pointers to its interactive system: one URL per topic, plus screenshots of its interface. A URL
    file whose `baseline_run` is set is the sentence-relevance baseline: its sessions open Assay's own page."""

    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="ciqa_url_files")
    team = models.ForeignKey("accounts.Team", on_delete=models.PROTECT, related_name="ciqa_url_files")
    tag = models.CharField(max_length=100)
    is_manual = models.BooleanField(default=False)
    urls = models.JSONField(default=dict)  # topic ident -> URL
    screenshot_links = models.JSONField(default=list)  # the file's own pointers, kept for the archive
    baseline_run = models.ForeignKey(
        "pooling.Run", null=True, blank=True, on_delete=models.CASCADE, related_name="ciqa_baseline_urls"
    )
    source_name = models.CharField(max_length=255, blank=True)
    loaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        app_label = "qa"
        ordering = ["evaluation", "team__name", "tag"]
        constraints = [models.UniqueConstraint(fields=["evaluation", "tag"], name="ciqa_unique_url_file_tag")]

    def __str__(self):
        return f"{self.evaluation.slug}:{self.tag}"


class Screenshot(models.Model):
    """An image of a team's interface, uploaded by the organizer (pages may show only same-site images)."""

    url_file = models.ForeignKey(UrlFile, on_delete=models.CASCADE, related_name="screenshots")
    name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=40)
    image = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "qa"
        ordering = ["url_file", "id"]


class InteractionSession(models.Model):
    """One assessor's timed interaction with one team's system on one topic."""

    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="ciqa_sessions")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="ciqa_sessions")
    topic = models.ForeignKey("pooling.Topic", on_delete=models.CASCADE, related_name="ciqa_sessions")
    url_file = models.ForeignKey(UrlFile, on_delete=models.CASCADE, related_name="sessions")
    position = models.PositiveIntegerField(default=0)  # the assessor's order: training topic first
    seconds = models.PositiveIntegerField(default=300)  # time allowed, from the setting when it started
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    stopped_early = models.BooleanField(default=False)
    skipped_at = models.DateTimeField(null=True, blank=True)
    skip_reason = models.TextField(blank=True)

    class Meta:
        app_label = "qa"
        ordering = ["evaluation", "assessor", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["assessor", "topic", "url_file"], name="ciqa_one_session_per_system")
        ]

    def __str__(self):
        return f"{self.assessor} · {self.topic.ident} · {self.url_file.tag}"

    @property
    def done(self):
        return self.ended_at is not None or self.skipped_at is not None

    @property
    def status(self):
        if self.skipped_at:
            return "skipped"
        if self.ended_at:
            return "stopped early" if self.stopped_early else "done"
        return "running" if self.started_at else "to do"


class QuestionnaireAnswer(models.Model):
    """One saved answer to one exit-questionnaire question, about one interaction (a URL file) or, with no URL
    file, about the whole experience. Append-only: the latest row per (assessor, url file, question) counts."""

    evaluation = models.ForeignKey("pooling.Evaluation", on_delete=models.CASCADE, related_name="ciqa_answers")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="ciqa_answers")
    url_file = models.ForeignKey(UrlFile, null=True, blank=True, on_delete=models.CASCADE, related_name="answers")
    question = models.CharField(max_length=40)
    value = models.TextField(blank=True)
    saved_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "qa"
        ordering = ["evaluation", "assessor", "url_file", "question", "id"]
        indexes = [models.Index(fields=["evaluation", "assessor"])]


class SentenceJudgment(models.Model):
    """The baseline interaction: an assessor's relevant / not relevant / no opinion on one sentence of the
    baseline run (a run entry). Append-only: the latest row per (assessor, entry) counts."""

    LABELS = ("relevant", "not-relevant", "no-opinion")

    session = models.ForeignKey(InteractionSession, on_delete=models.CASCADE, related_name="sentence_judgments")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    entry = models.ForeignKey("pooling.RunEntry", on_delete=models.CASCADE, related_name="ciqa_sentence_judgments")
    label = models.CharField(max_length=20)
    saved_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "qa"
        ordering = ["session", "entry", "id"]
