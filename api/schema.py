"""How the OpenAPI schema describes the API: the token header, and plain JSON objects where a view answers a
dict it builds itself (each view's docstring says what it holds) rather than a serializer."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes


class AssaySchema(AutoSchema):
    def _get_serializer(self):
        if not hasattr(self.view, "get_serializer") and not hasattr(self.view, "serializer_class"):
            return OpenApiTypes.OBJECT
        return super()._get_serializer()


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token KEY` (or `Bearer KEY`); make a key on /api/token/",
        }
