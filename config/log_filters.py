"""Logging of refused requests (issue 26): Django logs every 4xx it answers for an exception (a 403 of
role_required, a BadParameter's 400, a 404, a SuspiciousOperation) with the exception's full traceback, so any
signed-in user could grow the log by ten lines a request. A refusal is the application working as meant: it is
logged as one line (the message, the exception's class and text), without traceback. 5xx keep theirs."""

import logging

MAX_DETAIL = 300  # characters of the exception's text kept (it may quote what the client sent)


class RefusalOnOneLine(logging.Filter):
    def filter(self, record):
        status = getattr(record, "status_code", None)
        if record.exc_info and isinstance(status, int) and status < 500:
            exc = record.exc_info[1]
            line = record.getMessage()
            detail = str(exc)
            if detail and detail not in line:
                line = f"{line} ({type(exc).__name__}: {detail[:MAX_DETAIL]})"
            # one line: what a client sent (a path, a parameter) may hold line breaks that would fake entries
            record.msg = line.replace("\r", "\\r").replace("\n", "\\n")
            record.args = ()
            record.exc_info = record.exc_text = None
        return True
