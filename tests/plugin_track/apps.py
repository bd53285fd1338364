from django.apps import AppConfig


class PluginTrackConfig(AppConfig):
    """A minimal track defined inside the test suite (installed by tests/settings.py only): the proof that a track
    plugs in through the contract alone (core.tracks, core.extension_points), with no edit outside its folder."""

    name = "tests.plugin_track"
    label = "plugin_track"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from tests.plugin_track import plugin

        plugin.register()
