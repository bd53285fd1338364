"""Size limits of uploaded files, one per kind (setting UPLOAD_MAX_BYTES, each kind also from the environment as
UPLOAD_MAX_BYTES_<KIND>), for every page and API view that takes a file. Django streams a large upload to a
temporary file and knows its size before anything reads it: `read` refuses a file over its kind's limit before
reading a byte, and never reads more than the limit (plus one byte, to notice a file larger than it said), so a
5 GB "run" is refused with a message instead of taking the worker's memory. Collections are loaded from the
server's disk (`load_collection`), with limits of their own."""

from django.conf import settings

DEFAULTS = {
    "topics": 64 << 20,  # question files, test sets, topic files
    "top_docs": 256 << 20,  # 1000 ranked documents per target
    "runs": 256 << 20,  # one run file
    "manifest": 1 << 20,
    "gold": 64 << 20,
    "judgments": 256 << 20,  # an Assay JSON Lines export, imported
    "urls": 16 << 20,  # a ciQA URL file
    "images": 16 << 20,  # a ciQA screenshot
}


REQUEST_DEFAULT = 1 << 30  # a whole request (UPLOAD_MAX_REQUEST_BYTES): the organizer's batch of run files


class RequestSizeLimit:
    """Middleware: a request whose Content-Length is over UPLOAD_MAX_REQUEST_BYTES is answered 413 before anything
    reads its body (Django would stream every file of it to disk first, whatever the per-kind limits). Before the
    CSRF check, which parses a form's body."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.http import HttpResponse, JsonResponse

        most = int(getattr(settings, "UPLOAD_MAX_REQUEST_BYTES", REQUEST_DEFAULT))
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0  # Django reads no body then
        if length <= most:
            return self.get_response(request)
        message = (
            f"the request is {_size(length)}, more than the {_size(most)} allowed for one request "
            "(setting UPLOAD_MAX_REQUEST_BYTES)"
        )
        if request.path.startswith("/api/"):
            return JsonResponse({"problems": [message]}, status=413)
        return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")


class TooLarge(Exception):
    """An upload larger than its kind allows; the message names the file, its size and the limit."""


def limit(kind):
    return int(getattr(settings, "UPLOAD_MAX_BYTES", {}).get(kind, DEFAULTS[kind]))


def _size(n):
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def _message(name, size_words, kind, most):
    return (
        f"{name}: {size_words} is more than the {_size(most)} allowed for {kind.replace('_', ' ')} "
        f"files (setting UPLOAD_MAX_BYTES_{kind.upper()})"
    )


def oversized(upload, kind):
    """A message naming the file, its size and the limit when `upload` is larger than `kind` allows; else None."""
    most = limit(kind)
    if upload.size is None or upload.size <= most:
        return None
    return _message(upload.name, _size(upload.size), kind, most)


def read(upload, kind):
    """The bytes of `upload` (a Django UploadedFile), or TooLarge: before reading when its size is over the limit,
    and after reading at most limit + 1 bytes when the file holds more than its size said."""
    too_big = oversized(upload, kind)
    if too_big:
        raise TooLarge(too_big)
    most = limit(kind)
    upload.seek(0)
    data = upload.read(most + 1)
    if len(data) > most:
        raise TooLarge(_message(upload.name, "what it holds", kind, most))
    return data
