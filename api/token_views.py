"""The user's own API token page: create (the key is shown this once) and revoke."""

from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from api.models import ApiToken
from api.tokens import create_token, revoke_token
from config.roles import ROLES, role_required


@require_http_methods(["GET", "POST"])
@role_required(*ROLES)
def token_page(request):
    """Who: any signed-in user (organizer, assessor, participant), for their own token only. Create a token
    (replacing the old one) or revoke it; the API then acts with the user's own role."""
    key = None
    if request.method == "POST":
        if request.POST.get("action") == "revoke":
            revoke_token(request.user)
        else:
            key = create_token(request.user)
    token = ApiToken.objects.filter(user=request.user).first()
    return render(request, "api/token.html", {"token": token, "key": key})
