from django import forms

from accounts.models import Team


class UserForm(forms.Form):
    """An organizer's view of one account: roles, teams (comma-separated; new names create teams), e-mail."""

    email = forms.EmailField(required=False)
    roles = forms.MultipleChoiceField(
        choices=[(r, r) for r in ("organizer", "assessor", "participant")],
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    teams = forms.CharField(required=False, max_length=1000, help_text="team names, separated by commas")
    active = forms.BooleanField(required=False, initial=True, label="May log in")

    def clean_teams(self):
        names = [n.strip() for n in self.cleaned_data["teams"].split(",") if n.strip()]
        longest = Team._meta.get_field("name").max_length
        if any(len(n) > longest for n in names):
            raise forms.ValidationError(f"a team name has at most {longest} characters")
        return names


class InviteForm(UserForm):
    username = forms.CharField(max_length=150)
    field_order = ["username", "email", "roles", "teams"]
