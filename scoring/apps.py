from django.apps import AppConfig


class ScoringConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "scoring"

    def ready(self):
        # Registers the tasks with the Celery app in every process: earlier stages send them by name
        # (pooling.staleness), and the in-process mode looks them up there.
        # A team's page (pooling.campaign) asks scoring whether its results are released and what it may fetch then.
        from pooling.campaign import register_downloads, register_release_check
        from scoring import tasks  # noqa: F401
        from scoring.release import released_for
        from scoring.team_downloads import downloads

        register_release_check(released_for)
        register_downloads(downloads)
