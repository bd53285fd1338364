from django.apps import AppConfig


class ScoringConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "scoring"

    def ready(self):
        # Registers the tasks with the Celery app in every process: earlier stages send them by name
        # (pooling.staleness), and the in-process mode looks them up there.
        # A team's page (pooling.campaign) asks scoring whether its results are released and what it may fetch then.
        from core import extension_points as ep
        from scoring import tasks  # noqa: F401
        from scoring.release import released_for
        from scoring.team_downloads import downloads

        ep.release_check.register(self.label, released_for)
        ep.team_downloads.register(self.label, downloads)
