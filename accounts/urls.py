from django.urls import path

from accounts import views
from config import converters  # noqa: F401  (registers <id:>)

app_name = "accounts"
urlpatterns = [
    path("users/", views.users, name="users"),
    path("users/<id:pk>/", views.user_detail, name="user_detail"),
    path("users/<id:pk>/unlock/", views.user_unlock, name="user_unlock"),
    path("audit/", views.audit_log, name="audit_log"),
]
