from django.contrib import admin

from assess.models import (
    AnswerClass,
    Assignment,
    Invitation,
    Judgment,
    JudgmentChange,
    Nugget,
    StructureChange,
    TopicClosure,
)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["topic", "assessor", "role", "evaluation"]
    list_filter = ["evaluation", "role"]


@admin.register(AnswerClass)
class AnswerClassAdmin(admin.ModelAdmin):
    list_display = ["label", "topic", "created_by"]


@admin.register(Nugget)
class NuggetAdmin(admin.ModelAdmin):
    list_display = ["text", "topic", "position"]
    list_filter = ["topic__evaluation"]


class JudgmentChangeInline(admin.TabularInline):
    model = JudgmentChange
    extra = 0
    can_delete = False
    readonly_fields = ["changed_by", "changed_at", "version", "before", "after"]


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    """Read-only here: judgments change only through the judging pages, which keep their history."""

    list_display = ["kind", "topic", "item", "nugget", "assessor", "role", "version", "updated_at"]
    list_filter = ["evaluation", "kind", "role"]
    inlines = [JudgmentChangeInline]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(TopicClosure)
class TopicClosureAdmin(admin.ModelAdmin):
    list_display = ["topic", "closed_by", "closed_at"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["kind", "user", "evaluation", "topic", "invited_by", "created_at"]
    list_filter = ["evaluation", "kind"]


@admin.register(StructureChange)
class StructureChangeAdmin(admin.ModelAdmin):
    """Append-only: shown, never edited."""

    list_display = ["at", "actor", "topic", "action"]
    list_filter = ["action"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
