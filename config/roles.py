"""The three roles and the reusable checks every view uses to say who may see it.

A role is a Django group (organizer, assessor, participant); superusers count as organizers. A participant's
reach is further bounded by the teams they belong to (accounts.Team.members), checked by the views themselves.
"""

from functools import wraps

from django.contrib.auth.mixins import AccessMixin
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django_htmx.http import HttpResponseClientRedirect

ORGANIZER = "organizer"
ASSESSOR = "assessor"
PARTICIPANT = "participant"
ROLES = (ORGANIZER, ASSESSOR, PARTICIPANT)


def roles_of(user):
    """The set of roles a user holds, cached on the user object for the request."""
    if not user.is_authenticated:
        return frozenset()
    cached = getattr(user, "_assay_roles", None)
    if cached is None:
        remember_roles(user, user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        cached = user._assay_roles
    return cached


def remember_roles(user, group_names):
    """Set a user's roles from group names read elsewhere (config.auth reads them with the session)."""
    names = set(group_names) & set(ROLES)
    if user.is_superuser:
        names.add(ORGANIZER)
    user._assay_roles = frozenset(names)


def has_role(user, *roles):
    return bool(roles_of(user) & set(roles))


def primary_role(user):
    """The role whose home page the user lands on: the most powerful one they hold."""
    held = roles_of(user)
    for role in ROLES:
        if role in held:
            return role
    return None


def _check(request, roles):
    if not request.user.is_authenticated:
        htmx = getattr(request, "htmx", None)
        if htmx and request.method == "GET":
            # A panel or partial asked for by htmx (the next item, say) once the session has ended: htmx would follow
            # a redirect itself and swap the login page into the panel, so the whole page goes to the login page
            # and comes back to the page it was on. (A save keeps its answer: "Not saved", docs/save-protocol.md.)
            login = redirect_to_login(htmx.current_url_abs_path or request.get_full_path())
            return HttpResponseClientRedirect(login["Location"])
        return redirect_to_login(request.get_full_path())
    if not has_role(request.user, *roles):
        raise PermissionDenied("This page is for: " + ", ".join(roles))
    return None


def role_required(*roles):
    """View decorator: anonymous users go to the login page; signed-in users without one of `roles` get 403."""
    unknown = set(roles) - set(ROLES)
    if unknown or not roles:
        raise ValueError(f"role_required needs roles from {ROLES}, got {roles}")

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            refused = _check(request, roles)
            return refused if refused is not None else view(request, *args, **kwargs)

        wrapped.allowed_roles = frozenset(roles)
        return wrapped

    return decorator


organizer_required = role_required(ORGANIZER)
assessor_required = role_required(ASSESSOR)
participant_required = role_required(PARTICIPANT)


class RoleRequiredMixin(AccessMixin):
    """Class-based equivalent of role_required: set `allowed_roles` on the view."""

    allowed_roles = ()

    def dispatch(self, request, *args, **kwargs):
        refused = _check(request, self.allowed_roles)
        return refused if refused is not None else super().dispatch(request, *args, **kwargs)


def role_context(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"user_roles": frozenset(), "primary_role": None}
    return {"user_roles": roles_of(user), "primary_role": primary_role(user)}
