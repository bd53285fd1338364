"""One Django app per track family (qa, qa4mre, bolt, biogen); the stage apps never import a track.

Each plugs in the same way: its AppConfig.ready() imports its `plugin` module and calls `plugin.register()`, which
registers its Track (core.tracks: plain data — titles, formats, kinds, measures, settings, pages, links) and, in
one visible list, every function a stage calls in it (core.extension_points: demo, loading hooks, adjudication
queue, scorer, report, exports, ...)."""
