from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """People: users and their roles, teams, invitations and unlocking, with their pages and commands."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    label = "accounts"
