"""One Django app per track family (qa, bolt, qa4mre). Each registers its tracks, formats, scorer, report, pages
and demo with the stage apps from its AppConfig.ready(); the stage apps never import a track."""
