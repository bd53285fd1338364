"""The organizers' user pages: invite, change roles and teams, deactivate, unlock; and the audit log. The work is
in accounts.people and core.audit (commands: invite_user, update_user, unlock_user, audit_log)."""

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts import forms, people
from config import params
from config.roles import organizer_required
from core import audit

AUDIT_PAGE = 200


@organizer_required
def users(request):
    """Who: organizers. Every account with its roles, teams, whether it may log in or is locked; POST invites a
    new user (the one-time link is mailed and shown here once)."""
    form = forms.InviteForm(request.POST or None)
    link = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user, link = people.invite_user(
                data["username"],
                data["email"],
                data["roles"],
                data["teams"],
                by=request.user,
                base_url=request.build_absolute_uri("/"),
            )
        except ValidationError as exc:
            form.add_error("username", exc.messages[0])
        else:
            mailed = " (e-mail sent)" if user.invitation_mailed else " (not mailed: pass the link on)"
            messages.success(request, f"{user.username} invited{mailed}.")
            form = forms.InviteForm()
    locked = people.locked_usernames()
    rows = [
        {"user": u, "state": people.state_of(u), "locked": u.username in locked}
        for u in User.objects.order_by("username").prefetch_related("groups", "teams")
    ]
    return render(
        request,
        "accounts/users.html",
        {"rows": rows, "form": form, "link": link},
        status=400 if request.method == "POST" and form.errors else 200,
    )


@organizer_required
def user_detail(request, pk):
    """Who: organizers. One account: change its roles, teams, e-mail, whether it may log in; unlock it; give it
    a new one-time link to set its password."""
    user = get_object_or_404(User, pk=pk)
    state = people.state_of(user)
    initial = {
        "email": state["email"],
        "roles": state["roles"],
        "teams": ", ".join(state["teams"]),
        "active": state["active"],
    }
    form = forms.UserForm(request.POST or None, initial=initial)
    link = None
    if request.method == "POST" and request.POST.get("action") == "link":
        link = people.invitation_link(user, request.build_absolute_uri("/"))
        form = forms.UserForm(initial=initial)
    elif request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if user == request.user and (not data["active"] or "organizer" not in data["roles"]):
            form.add_error(None, "you cannot take your own organizer role or log-in away")
        else:
            people.update_user(
                user,
                roles=data["roles"],
                teams=data["teams"],
                active=data["active"],
                email=data["email"],
                by=request.user,
            )
            messages.success(request, f"{user.username} saved.")
            return redirect("accounts:user_detail", user.pk)
    return render(
        request,
        "accounts/user_detail.html",
        {"account": user, "form": form, "link": link, "locks": people.locks(user.username)},
        status=400 if request.method == "POST" and form.errors else 200,
    )


@organizer_required
@require_POST
def user_unlock(request, pk):
    """Who: organizers. Lift the lock that failed logins put on the account."""
    user = get_object_or_404(User, pk=pk)
    people.unlock(user.username, by=request.user)
    messages.success(request, f"{user.username} unlocked.")
    return redirect("accounts:user_detail", user.pk)


@organizer_required
def audit_log(request):
    """Who: organizers. The organizers' actions, newest first (?action=, ?target= filter); ?format=csv: all of
    them as CSV."""
    action = params.text(request.GET.get("action"), "action")
    target = params.text(request.GET.get("target"), "target")
    rows = audit.entries(action, target)
    if request.GET.get("format") == "csv":
        response = HttpResponse(audit.as_csv(rows), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="assay-audit-log.csv"'
        return response
    actions = audit.entries().values_list("action", flat=True).distinct().order_by("action")
    return render(
        request,
        "accounts/audit_log.html",
        {"rows": rows[:AUDIT_PAGE], "total": rows.count(), "actions": actions, "action": action, "target": target},
    )
