from django.apps import apps
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from config import password_views, views

# Each track app with pages mounts its urls.py at its url_prefix (discovered, so a new track needs no line here).
# They come before the stages' URLs: Django tries patterns in order, and the judging pages and their saves are the
# requests made most; behind the ~55 patterns of the stages, resolving a save took 30-80 us (issue 32). No track
# path is a stage's (tests/test_malformed_parameters.py reaches every route with its real parameters).
_tracks = [
    path(app.url_prefix, include(f"{app.name}.urls"))
    for app in apps.get_app_configs()
    if getattr(app, "url_prefix", None)
]

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/password/", password_views.PasswordChange.as_view(), name="password_change"),
    path("account/password/done/", password_views.PasswordChangeDone.as_view(), name="password_change_done"),
    path("account/reset/", password_views.PasswordReset.as_view(), name="password_reset"),
    path("account/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "account/reset/<uidb64>/<token>/",
        password_views.PasswordResetConfirm.as_view(),
        name="password_reset_confirm",
    ),
    path("account/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    *_tracks,
    path("admin/", admin.site.urls),
    path("corpus/", include("corpus.urls")),
    path("", include("accounts.urls")),
    path("", include("pooling.urls")),
    path("assess/", include("assess.urls")),
    path("scores/", include("scoring.urls")),
    path("api/", include("api.urls")),
]
