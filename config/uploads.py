"""Size limits of files uploaded through the pages, one per kind (setting UPLOAD_MAX_BYTES, each kind also from the
environment as UPLOAD_MAX_BYTES_<KIND>). Django streams a large upload to a temporary file; the limit is checked
before the file is read into memory, so a 5 GB "run" is refused with a message instead of taking the worker's
memory. Collections are loaded from the server's disk (`load_collection`), with limits of their own."""

from django.conf import settings

DEFAULTS = {
    "topics": 64 << 20,  # question files, test sets, topic files
    "top_docs": 256 << 20,  # 1000 ranked documents per target
    "runs": 256 << 20,  # one run file
    "manifest": 1 << 20,
    "gold": 64 << 20,
}


def limit(kind):
    return int(getattr(settings, "UPLOAD_MAX_BYTES", {}).get(kind, DEFAULTS[kind]))


def _size(n):
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def oversized(upload, kind):
    """A message naming the file, its size and the limit when `upload` is larger than `kind` allows; else None."""
    most = limit(kind)
    if upload.size is None or upload.size <= most:
        return None
    return (
        f"{upload.name}: {_size(upload.size)} is more than the {_size(most)} allowed for {kind.replace('_', ' ')} "
        f"files (setting UPLOAD_MAX_BYTES_{kind.upper()})"
    )
