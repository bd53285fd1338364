"""The browser tests' guard on wait_for_function (tests/conftest.py): only a function's text passes, because the
pages' CSP refuses the `eval` Playwright uses to re-check a plain expression (a flake seen in CI)."""

from tests.conftest import _FUNCTION_TEXT


def test_functions_pass_and_plain_or_immediately_called_expressions_do_not():
    for text in ("() => x", "(t) => x", "([s, t]) => x", "text => x", "async () => x", "function () { return 1 }"):
        assert _FUNCTION_TEXT.match(text), text
    for text in ("document.title === 'a'", "!document.body", "(() => { return 1; })()", "(x)"):
        assert not _FUNCTION_TEXT.match(text), text
