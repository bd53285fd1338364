from django.contrib import admin

from accounts.models import Team


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name"]
    filter_horizontal = ["members"]
    search_fields = ["name"]
