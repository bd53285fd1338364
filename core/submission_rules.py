"""Submission rules: what a campaign accepts from a team, declared per track (Track.submission_rules).

Plain data and functions over it, no Django import: pooling.campaign_rules gathers the facts (the team's runs already
stored, its ID, the submission window) and calls `breaches`, so the upload page, `check_run`, `load_runs` and any
later caller (an API) refuse the same runs for the same named rule. An organizer may override a breach with a
recorded reason (pooling.runs, `override_reason`); a format problem is never overridable.
"""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

# Rule names, as a refused run names them.
RUNS_PER_TEAM = "runs per team"
PRIORITIES = "priorities"
ONE_PER_PRIORITY = "one run per priority"
FIRST_AUTOMATIC = "first-priority run automatic"
AUTOMATIC_ONLY = "automatic runs only"
RUN_TAG = "run tag"
MANUAL_DESCRIPTION = "manual runs described"
REPLACEMENT_SLOT = "a replaced run keeps its priority"
WINDOW = "submission window"
FROZEN = "runs frozen once judging starts"
PAIRS = "initial/final pairs"
# The rules about a run itself; a file that is not a run (a ciQA URL file) is held to the others only (the window
# and whatever else pooling.campaign_rules.rule_breaches checks of every submission).
RUN_RULES = frozenset(
    {RUNS_PER_TEAM, PRIORITIES, ONE_PER_PRIORITY, FIRST_AUTOMATIC, AUTOMATIC_ONLY, RUN_TAG, MANUAL_DESCRIPTION}
    | {REPLACEMENT_SLOT, PAIRS}
)

TAG_TEAM_PREFIX = "team_prefix"  # the tag starts with the team ID
TAG_TEAM_PRIORITY = "team_priority"  # the tag is the team ID followed by the priority (TAC: NISTAssessor1)


@dataclass(frozen=True)
class SubmissionRules:
    """A track's rules; every default accepts anything, so a track declares only what its seed asks."""

    max_runs_per_team: int | None = None
    priorities: tuple[int, ...] = ()  # the priorities a run may have; () any
    unique_priorities: bool = False  # at most one run per priority and team
    first_automatic: bool = False  # the priority-1 run must be fully automatic
    automatic_only: bool = False  # no manual runs at all
    tag_rule: str = ""  # "", TAG_TEAM_PREFIX or TAG_TEAM_PRIORITY
    # A regular expression with a group "team": a team's ID taken from its first accepted run's tag when the
    # organizer recorded none (pooling.models.Participation.ident).
    team_id_from_tag: str = ""
    manual_description: bool = False  # a manual run needs a description of its manual processing
    ask_whole_collection: bool = False  # the form asks whether the whole collection was searched
    # The run is due this many days after the team's first download of the test data (QA4MRE: 5).
    days_after_first_download: int | None = None
    initial_final_pairs: bool = False  # ciQA: the form asks initial or final run, and a final run's initial run
    # Subtasks (a run's data["subtask"], or the kind it is sent as) whose runs come after the judging of the others
    # has started, so they are accepted while the evaluation is being judged (BOLT's groupings of the assessed
    # citations, seed 004; ciQA's final runs, sent after the interaction sessions, seed 001 3.2.2).
    judging_subtasks: tuple[str, ...] = ()
    source: str = ""  # the seed passage the rules come from

    def describe(self):
        """The rules in words, for the submission page and the docs."""
        said = []
        if self.max_runs_per_team:
            said.append(f"at most {self.max_runs_per_team} runs per team")
        if self.priorities:
            said.append(f"priorities {', '.join(str(p) for p in self.priorities)}")
        if self.unique_priorities:
            said.append("one run per priority")
        if self.automatic_only:
            said.append("automatic runs only")
        elif self.first_automatic:
            said.append("the first-priority run fully automatic")
        if self.tag_rule == TAG_TEAM_PRIORITY:
            said.append("run tag = team ID + priority")
        elif self.tag_rule == TAG_TEAM_PREFIX:
            said.append("run tag starts with the team ID")
        if self.manual_description:
            said.append("a manual run describes its manual processing")
        if self.days_after_first_download:
            said.append(f"runs due within {self.days_after_first_download} days of the team's first test-set download")
        if self.initial_final_pairs:
            said.append("each final run names its initial run")
        if self.judging_subtasks:
            said.append(f"{', '.join(self.judging_subtasks)} runs accepted while the other runs are judged")
        return said


@dataclass(frozen=True)
class TeamRun:
    """A run the team already has (stored, or accepted earlier in the same batch)."""

    tag: str
    priority: int | None
    manual: bool = False
    kind: str = ""  # "initial" / "final" where the track pairs runs


@dataclass(frozen=True)
class Candidate:
    tag: str
    priority: int | None
    manual: bool = False
    description: str = ""
    team_id: str = ""  # the team's ID for the evaluation ("" unknown)
    kind: str = ""
    initial_tag: str = ""


@dataclass(frozen=True)
class Breach:
    rule: str
    message: str

    def format(self, filename):
        return f"{filename}:0: rule '{self.rule}': {self.message}"


def learn_team_id(rules, tag):
    """The team ID a tag implies under the track's rule, or "" when the rule cannot tell."""
    if not rules.team_id_from_tag:
        return ""
    match = re.match(rules.team_id_from_tag, tag or "")
    return match["team"] if match else ""


def breaches(rules, candidate, team_runs, replaced=None):
    """Every rule `candidate` breaks given the team's other runs (`team_runs`, the replaced run left out) and the
    run it replaces (same tag), if any."""
    found = []
    priority = candidate.priority
    if replaced is not None and replaced.priority is not None and priority != replaced.priority:
        found.append(
            Breach(
                REPLACEMENT_SLOT,
                f"run {candidate.tag!r} replaces the stored run of priority {replaced.priority}; "
                f"it cannot take priority {priority} (give priority {replaced.priority}, or ask an organizer)",
            )
        )
    if rules.max_runs_per_team and replaced is None and len(team_runs) >= rules.max_runs_per_team:
        found.append(
            Breach(
                RUNS_PER_TEAM,
                f"the team already has {len(team_runs)} runs ({', '.join(r.tag for r in team_runs)}); "
                f"at most {rules.max_runs_per_team} runs per team",
            )
        )
    if rules.priorities and priority not in rules.priorities:
        found.append(
            Breach(PRIORITIES, f"priority {priority} is not one of {', '.join(str(p) for p in rules.priorities)}")
        )
    if rules.unique_priorities and priority is not None:
        same = [r.tag for r in team_runs if r.priority == priority]
        if same:
            found.append(Breach(ONE_PER_PRIORITY, f"run {same[0]!r} of the team already has priority {priority}"))
    if rules.automatic_only and candidate.manual:
        found.append(Breach(AUTOMATIC_ONLY, "the track accepts fully automatic runs only"))
    elif rules.first_automatic and candidate.manual and priority == 1:
        found.append(Breach(FIRST_AUTOMATIC, "the first-priority run must be fully automatic"))
    if rules.manual_description and candidate.manual and not candidate.description.strip():
        found.append(Breach(MANUAL_DESCRIPTION, "a manual run needs a description of its manual processing"))
    found += _tag_breaches(rules, candidate)
    if rules.initial_final_pairs:
        found += _pair_breaches(rules, candidate, team_runs)
    return found


def _tag_breaches(rules, candidate):
    team_id = candidate.team_id
    if not rules.tag_rule or not team_id:
        return []
    if rules.tag_rule == TAG_TEAM_PRIORITY:
        expected = f"{team_id}{candidate.priority}"
        if candidate.tag != expected:
            return [Breach(RUN_TAG, f"run tag {candidate.tag!r} must be the team ID and the priority: {expected!r}")]
    elif not candidate.tag.startswith(team_id):
        return [Breach(RUN_TAG, f"run tag {candidate.tag!r} must start with the team ID {team_id!r}")]
    return []


def _pair_breaches(rules, candidate, team_runs):
    # Only the form's question: the pairing itself and the per-kind limits are the track's (ciQA checks them as
    # the run is stored and when it is checked: tracks.qa.ciqa.rules, through the run format's hooks).
    if candidate.kind not in ("initial", "final"):
        return [Breach(PAIRS, "say whether the run is an initial or a final run")]
    return []


def deadline(closes, first_download, days):
    """When the team's runs are due: the evaluation's closing time, brought forward to `days` after the team's
    first test-set download when the track says so (QA4MRE: within 5 days, and not later than June 15)."""
    due = [t for t in (closes, first_download + timedelta(days=days) if first_download and days else None) if t]
    return min(due) if due else None


def frozen_breach(state, title, replacing_pooled=False, judging_subtask=False):
    """A Breach when the evaluation takes no runs in `state` ("open", "judging", "released"; issue 26): runs are
    frozen once judging starts, since a run replaced or added then changes what was pooled, judged or released.
    While open, a run whose lines are already in a pool (the organizer reopened it) is frozen too.
    `judging_subtask`: the run is of a subtask that comes during judging (SubmissionRules.judging_subtasks)."""
    if replacing_pooled and state != "released":
        return Breach(FROZEN, "this run is in the pools built for judging: it cannot be replaced (ask an organizer)")
    if state == "judging" and not judging_subtask:
        return Breach(FROZEN, f"{title} is being judged: runs are frozen once judging starts (ask an organizer)")
    if state == "released":
        return Breach(FROZEN, f"the scores of {title} are released: runs are frozen (ask an organizer)")
    return None


def window_breach(now: datetime, opens, due):
    """A Breach when `now` is outside [opens, due] (either may be None: no bound)."""
    if opens and now < opens:
        return Breach(WINDOW, f"submissions open at {opens:%Y-%m-%d %H:%M %Z}")
    if due and now > due:
        return Breach(WINDOW, f"submissions closed at {due:%Y-%m-%d %H:%M %Z}")
    return None
