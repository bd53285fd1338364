"""The site's session table: Django's database session plus the signed-in user's id as a column, so a request
can read its session, its user and the user's roles in one query (config.auth)."""

from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models


class Session(AbstractBaseSession):
    # No foreign key: a deleted user's sessions simply stop matching anyone.
    user_id = models.IntegerField(null=True, db_index=True)

    @classmethod
    def get_session_store_class(cls):
        from config.sessions import SessionStore

        return SessionStore

    class Meta(AbstractBaseSession.Meta):
        db_table = "assay_session"
