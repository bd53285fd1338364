"""SESSION_ENGINE: Django's database sessions, stored in config.models.Session with the user's id beside the
encoded data (kept in step on every save, since Django rewrites the whole row each time)."""

from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DBStore


class SessionStore(DBStore):
    @classmethod
    def get_model_class(cls):
        from config.models import Session

        return Session

    def _validate_session_key(self, key):
        # The key comes from a cookie and is looked up in a text column: keys Django makes are lowercase letters
        # and digits, anything else (a NUL byte in particular, which PostgreSQL refuses) is no session at all.
        return bool(super()._validate_session_key(key)) and key.isascii() and key.isalnum()

    def create_model_instance(self, data):
        instance = super().create_model_instance(data)
        try:
            instance.user_id = int(data.get(SESSION_KEY))
        except (TypeError, ValueError):
            instance.user_id = None
        return instance
