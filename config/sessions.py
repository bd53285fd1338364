"""SESSION_ENGINE: Django's database sessions, stored in config.models.Session with the user's id beside the
encoded data (kept in step on every save, since Django rewrites the whole row each time)."""

from functools import lru_cache

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DBStore
from django.core import signing


class SessionStore(DBStore):
    @classmethod
    def get_model_class(cls):
        from config.models import Session

        return Session

    def _validate_session_key(self, key):
        # The key comes from a cookie and is looked up in a text column: keys Django makes are lowercase letters
        # and digits, anything else (a NUL byte in particular, which PostgreSQL refuses) is no session at all.
        return bool(super()._validate_session_key(key)) and key.isascii() and key.isalnum()

    def decode(self, session_data):
        """Django's decode, its signature checked once per distinct signed text and key (issue 32: checking the
        HMAC, base64 and zlib were ~15 us of every request; a session's text stays the same between its saves).
        The cached payload is decoded afresh each time, so no request shares another's objects; anything that
        does not verify takes Django's own path (its log line and an empty session)."""
        try:
            payload = _verified_payload(
                session_data, self.key_salt, settings.SECRET_KEY, tuple(settings.SECRET_KEY_FALLBACKS)
            )
            return self.serializer().loads(payload)
        except Exception:
            return super().decode(session_data)

    def create_model_instance(self, data):
        instance = super().create_model_instance(data)
        try:
            instance.user_id = int(data.get(SESSION_KEY))
        except (TypeError, ValueError):
            instance.user_id = None
        return instance


class _Payload:
    """A serializer that leaves the verified bytes as they are."""

    def loads(self, data):
        return data


@lru_cache(maxsize=4096)
def _verified_payload(session_data, salt, key, fallback_keys):
    """The serialized session inside `session_data`, once its signature checks out (signing.BadSignature
    otherwise, which is not cached)."""
    return signing.loads(session_data, key=key, salt=salt, serializer=_Payload, fallback_keys=list(fallback_keys))
