"""API tokens: created (shown once) and revoked on the user's token page, by `manage.py api_token`, or by an
organizer through the API's users endpoint. Only a digest is stored, so a copied database gives no usable key."""

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from api.models import ApiToken
from core import audit


def _digest(key):
    return hashlib.sha256(key.encode()).hexdigest()


def create_token(user):
    """A new key for `user`, replacing any earlier one (which stops working at once); returns the key."""
    key = secrets.token_urlsafe(32)
    with transaction.atomic():
        ApiToken.objects.filter(user=user).delete()
        ApiToken.objects.create(user=user, digest=_digest(key), prefix=key[:8])
    return key


def revoke_token(user, by=None):
    """Remove the user's key; True if there was one. Revoked by someone else (an organizer), it is logged."""
    with transaction.atomic():
        revoked = ApiToken.objects.filter(user=user).delete()[0] > 0
        if revoked and by is not None and by != user:
            audit.record(by, "api token revoked", user.username)
    return revoked


def user_for(key):
    """The active user a key belongs to, or None."""
    token = ApiToken.objects.select_related("user").filter(digest=_digest(key)).first()
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:  # one write a minute at most
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user
