"""Path converters whose values the database can always be asked about, so a malformed URL is a 404 (no pattern
matches) rather than a DataError: Django's `int` lets ids beyond bigint through (the save path's prepared
statements cast them to bigint), and `str`/`path` let NUL bytes through (PostgreSQL text cannot hold one).

    <id:pk>          a database id: ASCII digits, at most 2**63 - 1
    <segment:ident>  one path segment without NUL (idents, run tags, actions)
    <textpath:docno> the rest of the path without NUL (document numbers may hold slashes)

Registered on import; every URL module that uses them imports this module.
"""

from django.urls import register_converter

from config.params import BIGINT_MAX


class IdConverter:
    regex = "[0-9]+"

    def to_python(self, value):
        number = int(value)
        if number > BIGINT_MAX:
            raise ValueError("beyond bigint")  # the URL does not match: 404
        return number

    def to_url(self, value):
        return str(value)


class SegmentConverter:
    regex = "[^/\x00]+"  # a NUL character in the class: re takes it as it is

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


class TextPathConverter(SegmentConverter):
    regex = "[^\x00]+"


register_converter(IdConverter, "id")
register_converter(SegmentConverter, "segment")
register_converter(TextPathConverter, "textpath")
