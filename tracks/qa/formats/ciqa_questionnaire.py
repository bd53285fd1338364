"""The ciQA exit questionnaire the organizer defines. No Django import.

Seed 001, 3.2.3 and Figure 2: after their interactions, assessors rate each interaction on 5-point scales with
labelled ends ('1. How easy was it to understand how to interact with this system? easy ... difficult'), may
comment on it ('Other Comments'), and end with four open-ended questions about the whole experience. A definition:

    [interaction]
    scale understand | How easy was it to understand how to interact with this system? | easy | difficult
    text comments | Other comments
    [overall]
    text favourite | Of all interactions, which was your favorite and why?

`scale ID | QUESTION | LEFT | RIGHT` is a 5-point scale, 1 at the left label, 5 at the right; `text ID | QUESTION`
a free-text answer. Ids are unique within the questionnaire.
"""

import re

from pooling.formats.base import Problem

SECTIONS = ("interaction", "overall")
POINTS = 5
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")

DEFAULT_TEXT = """\
# The TREC 2007 ciQA exit questionnaire (seed 001, Figure 2 and 3.2.3).
[interaction]
scale understand | How easy was it to understand how to interact with this system? | easy | difficult
scale coherent | How coherent was the interaction? | coherent | incoherent
scale stimulating | How stimulating was the interaction? | stimulating | dull
scale new-ways | How much did the interaction help you think about your topic in new ways? | a lot | not much
scale learn | How much did you learn about your topic during this interaction? | a lot | not much
scale quality | Overall, how would you rate the quality of the interaction? | poor | excellent
text comments | Other comments
[overall]
text favourite | Of all interactions, which was your favorite and why?
text annoyed | What annoyed you about the interactions and why?
text different | How different did you find the various interactions from one another and why?
text else | Anything else?
"""


def parse_questionnaire(text: str, filename: str = "questionnaire") -> tuple[list[Problem], dict]:
    """(problems, {"interaction": [question], "overall": [question]}); a question is a dict with id, kind
    ("scale" or "text"), text, and for a scale its left and right labels."""
    problems: list[Problem] = []
    out: dict[str, list[dict]] = {s: [] for s in SECTIONS}
    section = None
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1].strip().lower()
            if name not in SECTIONS:
                problems.append(Problem(number, f"unknown section [{name}]; expected [interaction] or [overall]"))
            section = name if name in SECTIONS else None
            continue
        if section is None:
            problems.append(Problem(number, "a question before [interaction] or [overall]"))
            continue
        kind, _, rest = line.partition(" ")
        parts = [p.strip() for p in rest.split("|")]
        kind = kind.lower()
        if kind not in ("scale", "text"):
            problems.append(Problem(number, f"unknown question kind {kind!r}; expected scale or text"))
            continue
        expected = 4 if kind == "scale" else 2
        if len(parts) != expected or not all(parts):
            shape = "scale ID | QUESTION | LEFT | RIGHT" if kind == "scale" else "text ID | QUESTION"
            problems.append(Problem(number, f"expected '{shape}'"))
            continue
        ident = parts[0]
        if not _ID.match(ident):
            problems.append(Problem(number, f"question id {ident!r}: lower-case letters, digits, - and _ only"))
            continue
        if ident in seen:
            problems.append(Problem(number, f"duplicate question id {ident!r}; first on line {seen[ident]}"))
            continue
        seen[ident] = number
        question = {"id": ident, "kind": kind, "text": parts[1]}
        if kind == "scale":
            question |= {"left": parts[2], "right": parts[3]}
        out[section].append(question)
    if not out["interaction"] and not problems:
        problems.append(Problem(None, "no [interaction] questions"))
    return problems, out


def default_questionnaire() -> dict:
    return parse_questionnaire(DEFAULT_TEXT)[1]


def as_text(questionnaire: dict) -> str:
    """The definition back as text (the organizer's form shows it for editing)."""
    lines = []
    for section in SECTIONS:
        lines.append(f"[{section}]")
        for q in questionnaire.get(section, []):
            extra = f" | {q['left']} | {q['right']}" if q["kind"] == "scale" else ""
            lines.append(f"{q['kind']} {q['id']} | {q['text']}{extra}")
    return "\n".join(lines) + "\n"


def check_answer(question: dict, value: str) -> str | None:
    """Why `value` is no answer to `question`, or None ("" is no answer yet, which is allowed)."""
    if question["kind"] == "scale" and value != "" and value not in {str(i) for i in range(1, POINTS + 1)}:
        return f"{question['id']}: a rating from 1 to {POINTS}, not {value[:20]!r}"
    if len(value) > 10000:
        return f"{question['id']}: at most 10000 characters"
    return None
