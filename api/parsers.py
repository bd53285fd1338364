"""The API's JSON parser: request bodies decoded by config.safejson, so a hostile body (nested 50,000 deep, a
5,000-digit number, a lone surrogate) answers 400 naming the problem and its line and column instead of a 500."""

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from config import safejson


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        # Django limits request.body, but DRF reads the stream itself: read at most one byte past the limit.
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        data = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(data) > limit:
            raise ParseError(f"JSON parse error - the body is larger than {limit} bytes")
        try:
            return safejson.loads(data)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {safejson.describe(exc)}") from None
