"""Request parameters checked where views read them, so a malformed one answers 400 and never reaches the database
as something PostgreSQL refuses (a DataError, hence a 500): text holding a NUL byte (neither text nor jsonb can
store one) or a number beyond its column (bigint ids, integer versions).

BadParameter is Django's BadRequest, which Django answers with 400 when a view lets it through; views that answer
with a partial or JSON catch it and show its message, which names the parameter.
"""

import re

from django.core.exceptions import BadRequest

from config import safejson

BIGINT_MAX = 2**63 - 1  # ids
INT_MAX = 2**31 - 1  # integer columns: judgment versions
_WHOLE_NUMBER = re.compile(r"\s*[0-9]{1,20}\s*")  # ASCII digits only: int() also takes "١٢" and chokes on "²"


class BadParameter(BadRequest):
    """A malformed request parameter; the message names it and is safe to show."""


def integer(value, name, *, maximum=BIGINT_MAX, minimum=0):
    """A whole number from `minimum` to `maximum`, given as a form, query or JSON value (a JSON true is no
    number)."""
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value):
        value = int(value)
    if type(value) is not int or not minimum <= value <= maximum:
        raise BadParameter(f"{name} must be a whole number from {minimum} to {maximum}")
    return value


def optional_integer(value, name, *, maximum=BIGINT_MAX, minimum=0):
    """integer(), or None when the parameter is absent or empty."""
    return None if value is None or value == "" else integer(value, name, maximum=maximum, minimum=minimum)


def integers(values, name):
    """A list of ids (a repeated form field or a JSON list)."""
    if not isinstance(values, (list, tuple)):
        raise BadParameter(f"{name} must be a list of whole numbers")
    return [integer(v, name) for v in values]


def version(value):
    """The judgment version a page last saw (an integer column)."""
    try:
        return integer(value, "version", maximum=INT_MAX)
    except BadParameter:
        raise BadParameter("the request did not say which version you saw; reload the page") from None


def text(value, name, default=""):
    """A string without NUL bytes; `default` when absent."""
    if value is None:
        return default
    if not isinstance(value, str) or "\x00" in value:
        raise BadParameter(f"{name} must be text without NUL characters")
    return value


def json_object(body):
    """A request body that must be one JSON object (an empty body is an empty one), decoded by config.safejson
    (NaN and Infinity, which jsonb refuses, hostile depth, numbers and surrogates: a 400 naming where)."""
    try:
        data = safejson.loads(body or b"{}")
    except ValueError as e:
        raise BadParameter(f"the request body is not JSON: {safejson.describe(e)}") from None
    if not isinstance(data, dict):
        raise BadParameter("the request body must be a JSON object")
    return data
