"""How the API knows who calls and what they may do: a token header (`Authorization: Token KEY`, or `Bearer
KEY`) or the browser's session, and the same roles as the pages (config.roles): each view names its
`allowed_roles` (and `method_roles` where a method is narrower), and its docstring says "Who:"."""

from rest_framework import authentication, exceptions, permissions

from api.tokens import user_for
from config.roles import has_role


class TokenAuthentication(authentication.BaseAuthentication):
    keywords = ("token", "bearer")

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower().decode(errors="replace") not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("the Authorization header is `Token KEY`")
        try:
            key = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("the token holds characters no key has") from None
        user = user_for(key)
        if user is None:
            raise exceptions.AuthenticationFailed("unknown or revoked token")
        return user, key

    def authenticate_header(self, request):
        return "Token"


class RolePermission(permissions.BasePermission):
    """The view's roles for this method (method_roles, else allowed_roles)."""

    message = "your role may not do this"

    def has_permission(self, request, view):
        roles = getattr(view, "method_roles", {}).get(request.method) or getattr(view, "allowed_roles", ())
        return bool(request.user and request.user.is_authenticated and roles and has_role(request.user, *roles))
