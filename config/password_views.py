"""Password change (every signed-in user) and reset (anyone, by e-mail): Django's own views with Assay's
templates. A reset link is also how an invited user sets a first password (accounts.people.invitation_link)."""

from django.contrib.auth import views as auth_views
from django.urls import reverse_lazy

from config.roles import ROLES, RoleRequiredMixin


class PasswordChange(RoleRequiredMixin, auth_views.PasswordChangeView):
    """Who: every signed-in user (any role). Change one's own password, giving the current one."""

    allowed_roles = ROLES
    success_url = reverse_lazy("password_change_done")


class PasswordChangeDone(RoleRequiredMixin, auth_views.PasswordChangeDoneView):
    """Who: every signed-in user (any role). Says the password was changed."""

    allowed_roles = ROLES


class PasswordReset(auth_views.PasswordResetView):
    """Who: anyone. Asks for an e-mail address and mails a one-time link to each active account with it; says
    the same whether or not an account has that address."""

    success_url = reverse_lazy("password_reset_done")


class PasswordResetConfirm(auth_views.PasswordResetConfirmView):
    """Who: anyone holding a valid link (reset, or an invitation). Sets a new password; the link then stops
    working."""

    success_url = reverse_lazy("password_reset_complete")
