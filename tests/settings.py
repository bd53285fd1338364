"""The test settings: the project's, with the track defined inside the test suite (tests/plugin_track/)."""

from config.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.plugin_track"]  # noqa: F405
