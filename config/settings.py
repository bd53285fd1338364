"""Assay settings, all read from the environment.

With nothing set, Assay runs as the embedded demo: a SQLite file in the project folder, debug on, and Celery
tasks run in-process. Production sets DEBUG=0, SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL and CELERY_BROKER_URL;
with debug off a missing secret key or host list stops start-up instead of falling back to something unsafe.
"""

import os
import warnings
from pathlib import Path

from django.utils.csp import CSP

from config.env import ConfigurationError, env_bool, env_int, env_list, parse_database_url
from config.uploads import DEFAULTS as UPLOAD_DEFAULTS
from config.uploads import REQUEST_DEFAULT as UPLOAD_REQUEST_DEFAULT

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
if not DEBUG:
    if not SECRET_KEY:
        raise ConfigurationError("SECRET_KEY must be set when DEBUG is off")
    if not ALLOWED_HOSTS:
        raise ConfigurationError("ALLOWED_HOSTS must list the served host names when DEBUG is off")
elif not SECRET_KEY:
    SECRET_KEY = "assay-insecure-development-key-do-not-use-in-production"

CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",  # login throttling: failed attempts counted in the database (config.auth.ThrottleBackend)
    "config",  # the session table (config.models.Session)
    "core",  # below the stages: the tracks' plug-in contract and the audit log
    "accounts",  # users, roles, teams
    "corpus",
    "pooling",
    "assess",
    "scoring",
    # The tracks, after every stage app: each registers itself with the stages from its AppConfig.ready().
    "tracks.qa",
    "tracks.qa4mre",
    "tracks.bolt",
    "tracks.biogen",
    "tracks.rag",
    # The REST API: after the stage apps; it reaches tracks only through the stages' registries.
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from /static/ (the pages' CSP allows no CDN)
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves /static/ from the web process itself (no web server in front is needed), before anything else reads
    # the session or the database.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.uploads.RequestSizeLimit",  # 413 for a body over UPLOAD_MAX_REQUEST_BYTES, before anything reads it
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "config.auth.SessionUserMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "axes.middleware.AxesMiddleware",  # answers a locked-out login with templates/registration/locked_out.html
    "django_htmx.middleware.HtmxMiddleware",
    # Last, so its process_exception sees a view's error first: a lost database connection is retried once when
    # nothing was written (config/db_retry.py).
    "config.db_retry.RetryLostConnection",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.roles.role_context",
            ],
        },
    },
]

DATABASES = {"default": parse_database_url(os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"))}
if os.environ.get("TEST_DATABASE_NAME"):
    # Lets several test runs share one PostgreSQL server without clobbering each other's test database.
    DATABASES["default"]["TEST"] = {"NAME": os.environ["TEST_DATABASE_NAME"]}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
if "PYTEST_VERSION" in os.environ:
    # Under pytest only (pytest sets the variable; the servers and workers a test starts inherit it, so they check
    # the passwords the test stored): tests make and log in users by the thousand, and PBKDF2's 1.5 million rounds
    # (about 0.4 s each on a quiet core) were over a third of the suite's time. Hashing is not what they test.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Sessions carry the user's id in a column so session, user and roles are read in one query (config.auth).
SESSION_ENGINE = "config.sessions"
# The throttle first: it refuses a locked-out user before any password is checked.
AUTHENTICATION_BACKENDS = ["config.auth.ThrottleBackend", "config.auth.Backend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Login throttling (django-axes, in PostgreSQL like everything else): after AXES_FAILURE_LIMIT failed logins from
# one address, that (user name, address) pair is locked for AXES_COOLOFF_HOURS, or until an organizer unlocks it
# (user pages, `manage.py unlock_user`). Not the user name alone: five wrong passwords from anywhere would lock its
# owner out everywhere. Not the address alone: a team's members often share one (a university's gateway). Guesses
# spread over many addresses are slowed per user name, never locked (config.auth.username_wait: a growing wait
# up to AXES_USERNAME_MAX_WAIT seconds, answered at once with "try again in N s").
# The address is REMOTE_ADDR (django-ipware is not installed, so axes trusts no X-Forwarded-For a client could set).
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = env_int("AXES_COOLOFF_HOURS", 1)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_MAX_WAIT = env_int("AXES_USERNAME_MAX_WAIT", 30)
# A refused attempt during a lock is not counted (it would restart the cool-off the attacker controls).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_DISABLE_ACCESS_SUCCESS_LOG = True
AXES_VERBOSE = False

# E-mail (password resets, invitations): printed on the console in the demo (DEBUG), SMTP at EMAIL_HOST:EMAIL_PORT
# otherwise, or the EMAIL_BACKEND given; tests use locmem. Django 6.1's MAILERS (EMAIL_BACKEND is deprecated).
_MAIL_DEFAULT = "django.core.mail.backends." + ("console" if DEBUG else "smtp") + ".EmailBackend"
MAILERS = {"default": {"BACKEND": os.environ.get("EMAIL_BACKEND", _MAIL_DEFAULT)}}
if MAILERS["default"]["BACKEND"].endswith("smtp.EmailBackend"):
    MAILERS["default"]["OPTIONS"] = {
        "host": os.environ.get("EMAIL_HOST", "localhost"),
        "port": env_int("EMAIL_PORT", 25),
    }
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "assay@localhost")
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3 * 24 * 3600)  # also an invitation's lifetime

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
# In production `collectstatic` writes hashed, pre-compressed copies that WhiteNoise serves with far-future cache
# headers; with debug on, files are served straight from static/ so an edit shows at once.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
if DEBUG:  # files come from static/ through the finders; no collected folder is expected
    warnings.filterwarnings("ignore", message="No directory at: ")
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "media"))
MEDIA_URL = "media/"
# Run files and collections can be large; uploads stream to disk past this size.
DATA_UPLOAD_MAX_NUMBER_FILES = env_int("DATA_UPLOAD_MAX_NUMBER_FILES", 500)
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# A collection file larger than this once decompressed, or one record (document) larger than that, refuses the
# whole load with a clear message (a 1 MB gzip bomb once took 2 GB of memory): corpus/formats/base.py.
CORPUS_MAX_FILE_BYTES = env_int("CORPUS_MAX_FILE_BYTES", 2 * 1024**3)
CORPUS_MAX_RECORD_BYTES = env_int("CORPUS_MAX_RECORD_BYTES", 64 * 1024**2)
# Largest file of each kind the pages and the API accept (config/uploads.py).
UPLOAD_MAX_REQUEST_BYTES = env_int("UPLOAD_MAX_REQUEST_BYTES", UPLOAD_REQUEST_DEFAULT)
UPLOAD_MAX_BYTES = {
    kind: env_int(f"UPLOAD_MAX_BYTES_{kind.upper()}", default) for kind, default in UPLOAD_DEFAULTS.items()
}
# Full-text search on PostgreSQL ranks at most this many matching documents (reading each one's tsvector is the
# cost of a search); a query matching more says so and asks for more words (corpus/search.py).
SEARCH_RANK_CANDIDATES = env_int("SEARCH_RANK_CANDIDATES", 300)
# An AND of words in many documents may find those matches by reading the collection in heap order instead of its
# full-text index, and an AND of a middling and a common word through the middling word's postings alone, the same
# rows for less (corpus/search_plan.py); off: always the full-text index over every word (phrases of common words
# still take the pairs index below).
SEARCH_SCAN_IN_ORDER = env_bool("SEARCH_SCAN_IN_ORDER", default=True)
# A collection's RUM index is built in this many pieces side by side, one backend each, once it has this many
# entries (corpus/search_rum.py): RUM builds in one process. 1: always one index.
SEARCH_INDEX_PIECES = env_int("SEARCH_INDEX_PIECES", 2)
SEARCH_INDEX_PIECES_FROM = env_int("SEARCH_INDEX_PIECES_FROM", 20_000)
# A collection of this many entries also gets an index of its adjacent common-word pairs, "common" meaning in at
# least this percentage of its documents, so a phrase of two such words does not read both words' postings
# (corpus/search_pairs.py). SEARCH_PAIRS_FROM 0: never.
SEARCH_PAIRS_FROM = env_int("SEARCH_PAIRS_FROM", 100_000)
SEARCH_PAIRS_PERCENT = env_int("SEARCH_PAIRS_PERCENT", 10)

# --- REST API (api/) ----------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.auth.TokenAuthentication",  # first: an unauthenticated call answers 401 with WWW-Authenticate: Token
        "rest_framework.authentication.SessionAuthentication",  # the browsable API and docs in a signed-in browser
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.auth.RolePermission"],
    # JSON bodies through config.safejson (depth, digits, surrogates: a 400 naming where, never a 500).
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": env_int("API_PAGE_SIZE", 100),
    "DEFAULT_SCHEMA_CLASS": "api.schema.AssaySchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Assay API",
    "DESCRIPTION": "Evaluations, topics, runs, pools, assignments, judgments, scores, reports, users and teams. "
    "Authenticate with `Authorization: Token KEY` (your token page: /api/token/). Long work answers 202 with a "
    "status URL.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["api.auth.RolePermission"],
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
}

# --- Celery -------------------------------------------------------------------------------------------------
# No broker configured means the embedded demo: tasks run in-process, at once.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", os.environ.get("REDIS_URL", ""))
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", CELERY_BROKER_URL or None)
# Separate queue names let several deployments (or test runs) share one Redis.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "assay")
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=not CELERY_BROKER_URL)
CELERY_TASK_EAGER_PROPAGATES = True
# A task is acknowledged only once it has finished, so a crashed worker's task is delivered again.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Redis hands a task a worker took but never acknowledged (the worker was killed) out again only after this many
# seconds (its own default: an hour). It must exceed the longest task, or a task still running is delivered a
# second time: a rescoring pass takes seconds to a minute, a pool build of 300,000 citations about ten seconds,
# and a rescoring task stops passing at half of it (scoring.tasks). Every task is safe to run twice anyway. Workers
# look for such tasks every 10 s (kombu's default throttle made that every 100 s).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 300),
    "unacked_restore_interval": 10,
    "unacked_restore_throttle": 1,
}
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Celery's consumer, except that a broker still away when it closes the lost connection no longer makes the worker
# exit (config/celery_consumer.py).
CELERY_WORKER_CONSUMER = "config.celery_consumer:Consumer"
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 3600
CELERY_TIMEZONE = TIME_ZONE
# Every worker queues a rescoring for each evaluation with stale marks at start and then this often, so scores
# recover without a later save when a request was lost (Redis restarted empty, a purged queue); 0: at start only.
SCORING_SWEEP_SECONDS = env_int("SCORING_SWEEP_SECONDS", 60)
# Rescoring must never make a save wait (benchmarks/judging.py). One task at a time per worker: a second process
# only waited on the evaluation's ScoringState lock, inside an open transaction, to start the next pass at once.
CELERY_WORKER_CONCURRENCY = env_int("WORKER_CONCURRENCY", 1)
# Workers run at this lower OS priority (os.nice), so on a machine shared with the web processes a save gets the
# CPU first and rescoring takes what is left; 0 keeps the priority.
WORKER_NICE = env_int("WORKER_NICE", 10)
# Milliseconds a rescoring task waits before another pass while judgments keep arriving: the marks of a burst
# gather into one pass (each pass recomputes the runs' totals and writes WAL every save's commit must flush).
SCORING_PASS_GAP_MS = env_int("SCORING_PASS_GAP_MS", 250)
# The gap widens with the pass before it (scoring.tasks.pass_gap): this percentage of its duration, as long as
# the gap and two such passes stay within SCORING_FRESHNESS_MS. Saves arriving fast make long passes; fewer,
# larger passes then cost less per save.
SCORING_PASS_GAP_PERCENT = env_int("SCORING_PASS_GAP_PERCENT", 200)
SCORING_FRESHNESS_MS = env_int("SCORING_FRESHNESS_MS", 1500)
# Processes that check a batch of uploaded run files at once (pooling.formats.parallel) while the uploading one
# stores them; 1: every file checked in the uploading process. Only large batches of a format that allows it use
# them (BOLT citations). They pay on idle cores; on a machine busy with other work, 1 costs less CPU
# (benchmarks/bolt.py).
RUN_CHECK_PROCESSES = env_int("RUN_CHECK_PROCESSES", min(os.cpu_count() or 1, 4))
for _name, _value, _low, _high in (
    ("RUN_CHECK_PROCESSES", RUN_CHECK_PROCESSES, 1, 64),
    ("WORKER_CONCURRENCY", CELERY_WORKER_CONCURRENCY, 1, 1000),
    ("WORKER_NICE", WORKER_NICE, 0, 19),  # (raising the priority would need privileges a worker should not have)
    ("SCORING_PASS_GAP_MS", SCORING_PASS_GAP_MS, 0, 60_000),
    ("SCORING_FRESHNESS_MS", SCORING_FRESHNESS_MS, 0, 600_000),
    ("SCORING_PASS_GAP_PERCENT", SCORING_PASS_GAP_PERCENT, 0, 10_000),
    ("SEARCH_PAIRS_FROM", SEARCH_PAIRS_FROM, 0, 2**31 - 1),
    ("SEARCH_PAIRS_PERCENT", SEARCH_PAIRS_PERCENT, 1, 100),
):
    if not _low <= _value <= _high:
        raise ConfigurationError(f"{_name}={_value} is outside {_low}..{_high}")

# --- Security -----------------------------------------------------------------------------------------------
# Production defaults are strict; each can be relaxed from the environment (e.g. behind a TLS-terminating proxy).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=not DEBUG)
# Health probes (docker-compose's healthcheck, load balancers) reach the process itself over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
# Pages may not be framed; the document viewer marks its own frame views xframe_options_sameorigin.
X_FRAME_OPTIONS = "DENY"
if env_bool("USE_X_FORWARDED_PROTO", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# The application's own pages load scripts and styles only from here; document frames get a stricter policy.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.SELF],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # A refused request (4xx: 403, 400, 404, SuspiciousOperation) is one line without traceback (config/log_filters):
    # on the loggers Django writes them to, and on the handler for django.security.<ExceptionName> loggers.
    "filters": {"refusal_on_one_line": {"()": "config.log_filters.RefusalOnOneLine"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["refusal_on_one_line"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # One line per finished task drowns what matters (failures are logged at ERROR either way).
        "celery.app.trace": {"level": os.environ.get("TASK_LOG_LEVEL", "WARNING")},
        "django.request": {"filters": ["refusal_on_one_line"]},
        "django.security": {"filters": ["refusal_on_one_line"]},
    },
}
