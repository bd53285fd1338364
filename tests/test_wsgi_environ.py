"""config.wsgi: a server that copies the process environment into each request's environ (granian, like wsgiref)
leaves none of it in request.META, and the request's own CGI variables and headers stay."""

from django.core.handlers.wsgi import WSGIHandler

from config import wsgi


def test_the_process_environment_is_taken_out_of_each_request(monkeypatch):
    process = {
        "SECRET_KEY": "s3cret",
        "DATABASE_URL": "postgresql://u:pw@db/assay",
        "PATH": "/usr/bin",
        "CONTENT_TYPE": "text/plain",  # a CGI name: the request's own when it has one
        "HTTP_PROXY": "http://proxy:3128",  # a header's name: a request may send it
    }
    names = wsgi.process_only(process)
    assert names == {"SECRET_KEY", "DATABASE_URL", "PATH"}
    monkeypatch.setattr(wsgi.application, "_process_names", names)
    seen = []
    monkeypatch.setattr(WSGIHandler, "__call__", lambda self, environ, start_response: seen.append(dict(environ)))
    request = {"REQUEST_METHOD": "GET", "PATH_INFO": "/", "HTTP_HOST": "testserver", "wsgi.url_scheme": "http"}
    wsgi.application(process | request | {"CONTENT_TYPE": "application/x-www-form-urlencoded"}, None)
    assert seen == [request | {"CONTENT_TYPE": "application/x-www-form-urlencoded", "HTTP_PROXY": "http://proxy:3128"}]


def test_what_a_server_sets_per_request_is_never_taken():
    assert wsgi.process_only({"wsgi.input": 1, "REMOTE_PORT": "5", "HTTP_HOST": "h", "SERVER_NAME": "x"}) == set()
