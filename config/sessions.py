"""SESSION_ENGINE: Django's database sessions, stored in config.models.Session with the user's id beside the
encoded data (kept in step on every save, since Django rewrites the whole row each time)."""
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DBStore


class SessionStore(DBStore):
    @classmethod
    def get_model_class(cls):
        from config.models import Session

        return Session

    def create_model_instance(self, data):
        instance = super().create_model_instance(data)
        try:
            instance.user_id = int(data.get(SESSION_KEY))
        except (TypeError, ValueError):
            instance.user_id = None
        return instance
