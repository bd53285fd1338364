from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.cache import cache_control, never_cache

from config import roles
from config.celery import app as celery_app
from config.health import health

HOME_OF_ROLE = {
    roles.ORGANIZER: "pooling:evaluation_list",
    roles.ASSESSOR: "assess:my_assignments",
    roles.PARTICIPANT: "pooling:my_runs",
}


@never_cache
def home(request):
    """Who: anyone signed in. Sends each user to their role's home page."""
    if not request.user.is_authenticated:
        return redirect("login")
    role = roles.primary_role(request.user)
    if role is None:
        return render(request, "no_role.html", status=403)
    return redirect(HOME_OF_ROLE[role])


@never_cache
def healthz(request):
    """Who: anyone, including load balancers and compose health checks (no secrets are shown)."""
    report, healthy = health(celery_app)
    return JsonResponse(report, status=200 if healthy else 503)


@cache_control(max_age=86400, public=True)
def favicon(request):
    """Who: anyone (browsers ask for /favicon.ico by themselves on pages without base.html's inline icon)."""
    return HttpResponse(render_to_string("favicon.svg"), content_type="image/svg+xml")  # no request: no session read
