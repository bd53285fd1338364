"""Users and teams (organizers), as `manage.py add_user` makes them (accounts.people, which logs each change)."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from accounts import people
from accounts.models import Team
from api import serializers as s
from api.common import RoleAPIView
from api.tokens import revoke_token
from config.roles import remember_roles, roles_of


def user_data(user):
    return {
        "username": user.username,
        "roles": sorted(roles_of(user)),
        "teams": sorted(t.name for t in user.teams.all()),
        "active": user.is_active,
        "has_token": hasattr(user, "api_token"),
    }


class Users(RoleAPIView):
    """Who: organizers. The users with their roles and teams; POST creates one (or adds a role and a team to an
    existing one; a new user needs a password that passes the password rules)."""

    def get(self, request):
        users = get_user_model().objects.prefetch_related("teams", "groups").select_related("api_token")
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(users.order_by("username"), request, view=self)
        for u in page:  # the roles from the prefetched groups, not a query per user
            remember_roles(u, [g.name for g in u.groups.all()])
        return paginator.get_paginated_response([user_data(u) for u in page])

    @extend_schema(request=s.UserCreate)
    def post(self, request):
        body = s.UserCreate(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        try:
            user = people.add_user(d["username"], d["role"], d["password"], d["team"] or None, by=request.user)
        except DjangoValidationError as e:
            raise ValidationError({"password": e.messages}) from None
        return Response(user_data(user), status=status.HTTP_201_CREATED)


class UserToken(RoleAPIView):
    """Who: organizers. Revoke a user's API token (DELETE); the user makes a new one on their token page."""

    def delete(self, request, username):
        user = get_object_or_404(get_user_model(), username=username)
        revoke_token(user, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class Teams(RoleAPIView):
    """Who: organizers. The teams and their members; POST creates a team (or adds members to one)."""

    def get(self, request):
        teams = Team.objects.prefetch_related("members").order_by("name")
        return Response([{"name": t.name, "members": sorted(m.username for m in t.members.all())} for t in teams])

    @extend_schema(request=s.TeamCreate)
    def post(self, request):
        body = s.TeamCreate(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        users = list(get_user_model().objects.filter(username__in=d["members"]))
        missing = sorted(set(d["members"]) - {u.username for u in users})
        if missing:
            raise ValidationError({"members": [f"no user {name!r}" for name in missing]})
        team, created = people.add_team_members(d["name"], users, by=request.user)
        return Response(
            {"name": team.name, "members": sorted(m.username for m in team.members.all())},
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )
