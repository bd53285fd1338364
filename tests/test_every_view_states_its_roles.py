"""Every page of the application says who may see it: a role check wraps each view, bar the public few."""

from django.urls import URLPattern, URLResolver, get_resolver

PUBLIC = {"home", "healthz", "favicon", "login", "logout"}  # home and favicon only redirect; healthz shows no data
# Password resets are for people who cannot log in: they show forms and say "sent"/"done", no data.
PUBLIC |= {"password_reset", "password_reset_done", "password_reset_confirm", "password_reset_complete"}


def _patterns(resolver, prefix=""):
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if entry.app_name == "admin":
                continue  # Django's admin has its own staff check
            yield from _patterns(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def _roles_of(view):
    """allowed_roles set by role_required, or by RoleRequiredMixin on a class-based view."""
    seen = view
    while seen is not None:
        if getattr(seen, "allowed_roles", None):
            return seen.allowed_roles
        view_class = getattr(seen, "view_class", None)
        if view_class is not None and getattr(view_class, "allowed_roles", None):
            return view_class.allowed_roles
        seen = getattr(seen, "__wrapped__", None)
    return None


def test_every_view_has_a_role_check_and_a_who_docstring():
    unprotected, undocumented, checked = [], [], 0
    for route, pattern in _patterns(get_resolver()):
        if pattern.name in PUBLIC:
            continue
        checked += 1
        view = pattern.callback
        if not _roles_of(view):
            unprotected.append(f"{route} ({pattern.name})")
        doc = getattr(view, "__doc__", None) or getattr(getattr(view, "view_class", None), "__doc__", "") or ""
        if "Who:" not in doc:
            undocumented.append(f"{route} ({pattern.name})")
    assert checked > 50  # the walk really reached every app's pages
    assert unprotected == []
    assert undocumented == []


def test_the_check_notices_an_unprotected_view():
    def bare(request):
        """Who: claims to be checked, but is not."""

    assert _roles_of(bare) is None
