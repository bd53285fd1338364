"""The QA app's models: ciQA's records (tracks/qa/ciqa/models.py); the judging data lives in assess."""

from tracks.qa.ciqa.models import InteractionSession, QuestionnaireAnswer, Screenshot, SentenceJudgment, UrlFile

__all__ = ["InteractionSession", "QuestionnaireAnswer", "Screenshot", "SentenceJudgment", "UrlFile"]
