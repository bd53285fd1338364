from django.apps import AppConfig


class ScoringConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "scoring"

    def ready(self):
        from scoring import qa_scoring  # noqa: F401  (registers the QA tracks' scorer)
        from scoring import qa4mre_report

        qa4mre_report.register()
        from scoring import bolt_scoring

        bolt_scoring.register()
