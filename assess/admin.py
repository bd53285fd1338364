from django.contrib import admin

from assess.models import Assignment


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["topic", "assessor", "role", "evaluation"]
    list_filter = ["evaluation", "role"]
