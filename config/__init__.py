# Empty on purpose: pure modules (config.safejson, imported by the track formats) must be importable without
# Celery or Django. The Celery app is loaded with Django by ConfigConfig.ready() (config/apps.py); workers find it
# by `celery -A config`, which imports config.celery.
