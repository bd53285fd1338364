"""The ciQA submission rules (seed 001, 3.2.2), over plain data. No Django import.

'Each participant was allowed to submit a maximum of 2 initial runs, 2 URL files, and 2 final runs. Manual runs
were accepted, but had to be marked as such [...] For each final run, participants were asked to supply the run tag
of its corresponding initial run.' The limits are evaluation settings (max_initial_runs, max_final_runs,
max_url_files; 2 each). Several final runs may name one initial run (TREC 2007's MSU pairs did).
"""

from dataclasses import dataclass

INITIAL = "initial"
FINAL = "final"
URLS = "urls"
STAGES = (INITIAL, FINAL)
LIMIT_SETTINGS = {INITIAL: "max_initial_runs", FINAL: "max_final_runs", URLS: "max_url_files"}
DEFAULT_LIMIT = 2
NAMES = {INITIAL: "initial runs", FINAL: "final runs", URLS: "URL files"}


@dataclass(frozen=True)
class Submission:
    tag: str
    team: str
    stage: str  # "initial", "final" or "urls"
    initial: str = ""  # a final run: the tag of its initial run


def limit(stage: str, settings: dict | None) -> int:
    value = (settings or {}).get(LIMIT_SETTINGS[stage])
    return DEFAULT_LIMIT if value in (None, "") else int(value)


def check_submission(new: Submission, existing: list[Submission], settings: dict | None = None) -> list[str]:
    """Every rule `new` breaks, given what the evaluation holds already (a submission with new's tag and stage
    family is replaced by it, so it does not count against the limit)."""
    problems = []
    is_run = new.stage in STAGES
    if new.stage not in STAGES + (URLS,):
        return [f"unknown submission stage {new.stage!r}; expected initial or final"]
    # runs and URL files have tags of their own (a URL file may share its run's tag)
    others = [s for s in existing if s.tag != new.tag or (s.stage in STAGES) != is_run]
    replaced = next((s for s in existing if s.tag == new.tag and (s.stage in STAGES) == is_run), None)
    if replaced is not None and replaced.team != new.team:
        problems.append(f"tag {new.tag!r} already belongs to team {replaced.team!r}")
    if new.stage == INITIAL and new.initial:
        problems.append(f"an initial run names no initial run (got {new.initial!r})")
    if new.stage == FINAL:
        if not new.initial:
            problems.append("a final run must name the run tag of its initial run")
        elif new.initial == new.tag:
            problems.append("a final run cannot be its own initial run")
        else:
            initial = next((s for s in others if s.tag == new.initial and s.stage in STAGES), None)
            if initial is None:
                problems.append(f"initial run {new.initial!r} has not been submitted")
            elif initial.stage != INITIAL:
                problems.append(f"run {new.initial!r} is a final run, not an initial run")
            elif initial.team != new.team:
                problems.append(f"initial run {new.initial!r} is team {initial.team}'s, not {new.team}'s")
    if replaced is not None and replaced.stage == INITIAL and new.stage != INITIAL:
        finals = sorted(s.tag for s in others if s.stage == FINAL and s.initial == new.tag)
        if finals:
            problems.append(f"run {new.tag!r} is the initial run of {', '.join(finals)}; it stays an initial run")
    mine = [s for s in others if s.team == new.team and s.stage == new.stage]
    most = limit(new.stage, settings)
    if len(mine) + 1 > most:
        problems.append(
            f"team {new.team} already has {len(mine)} {NAMES[new.stage]} "
            f"({', '.join(sorted(s.tag for s in mine))}); at most {most} per team"
        )
    return problems


def pairs(submissions: list[Submission]) -> list[tuple[str, str]]:
    """(initial tag, final tag) of every final run whose initial run is there, in the order given."""
    initials = {s.tag for s in submissions if s.stage == INITIAL}
    return [(s.initial, s.tag) for s in submissions if s.stage == FINAL and s.initial in initials]
