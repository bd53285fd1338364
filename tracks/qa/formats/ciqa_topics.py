"""TREC 2007 ciQA topic files: relationship questions of five templates, each with a narrative. No Django import.

Written from the seed's description and example (001, 3.2 and Figure 2); one topic per block:

    Topic Number: 56
    Template: What evidence is there for transport of [drugs] from [Mexico] to [the U.S.]?
    Narrative: The analyst would like to know of efforts to curtail the transport of drugs from Mexico
    to the U.S. ...

A line starting with a field name ("Topic Number:", "Template:", "Narrative:", any case) starts that field; other
non-blank lines continue the field before them (narratives run over several lines). Lines starting with # are
comments. The template must be one of the five ciQA templates with its slots in [brackets]; the second template's
relationship is one of four. A topic whose number names it a throw-away/training topic (e.g. "oQA2007throwaway")
is the training topic: interaction sessions start with it, runs do not answer it and it is not scored.
"""

import re
from dataclasses import dataclass

from pooling.formats.base import ParsedTopic, Problem

KIND = "CIQA"
TRAINING_KIND = "CIQA-TRAINING"
# The topic upload's label; NIST gave teams each topic's top 100 documents too (seed 001, ciQA).
FILE_LABEL = "Topics (ciQA topic file: number, template, narrative)"
TOP_DOCS = True
RELATIONSHIPS = ("financial relationships", "organizational ties", "familial ties", "common interests")
_SLOT = r"\[([^\[\]]+)\]"


@dataclass(frozen=True)
class Template:
    number: int
    name: str  # the template as the seed writes it
    pattern: re.Pattern
    slots: tuple[str, ...]  # what each bracketed slot holds


TEMPLATES = (
    Template(
        1,
        "What evidence is there for transport of [goods] from [entity] to [entity]?",
        re.compile(rf"what evidence is there for (?:the )?transport of {_SLOT} from {_SLOT} to {_SLOT}\??", re.I),
        ("goods", "entity", "entity"),
    ),
    Template(
        2,
        "What [relationship] exist between [entity] and [entity]?",
        re.compile(rf"what {_SLOT} exists? between {_SLOT} and {_SLOT}\??", re.I),
        ("relationship", "entity", "entity"),
    ),
    Template(
        3,
        "What influence/effect do(es) [entity] have on/in [entity]?",
        re.compile(
            rf"what (?:influence|effect)s?(?:/(?:influence|effect)s?)? do(?:es)? {_SLOT} have (?:on|in) {_SLOT}\??",
            re.I,
        ),
        ("entity", "entity"),
    ),
    Template(
        4,
        "What is the position of [entity] with respect to [issue]?",
        re.compile(rf"what is the position of {_SLOT} with respect to {_SLOT}\??", re.I),
        ("entity", "issue"),
    ),
    Template(
        5,
        "Is there evidence to support the involvement of [entity] in [event/entity]?",
        re.compile(rf"is there evidence to support the involvement of {_SLOT} in {_SLOT}\??", re.I),
        ("entity", "event/entity"),
    ),
)
FIELDS = {"topic number": "number", "template": "template", "narrative": "narrative"}
_FIELD_LINE = re.compile(r"^\s*(topic number|template|narrative)\s*:\s?(.*)$", re.I)
_IDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,49}$")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")  # not text, whatever the encoding said
_TRAINING = re.compile(r"throw-?away|training", re.I)


def is_training_ident(ident: str) -> bool:
    return bool(_TRAINING.search(ident))


def match_template(text: str) -> tuple[Template, list[str]] | None:
    """(template, slot fillers) of a template text, or None when it is none of the five."""
    collapsed = " ".join(text.split())
    for template in TEMPLATES:
        found = template.pattern.fullmatch(collapsed)
        if found:
            return template, [" ".join(g.split()) for g in found.groups()]
    return None


def _decode(data: bytes) -> tuple[list[Problem], str]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return [], data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return [Problem(line, f"bad encoding: not valid UTF-8 (byte 0x{data[exc.start]:02x})")], ""


def parse_topics(data: bytes, filename: str) -> tuple[list[Problem], list[ParsedTopic]]:
    """(problems, topics): every topic of a ciQA topic file, in file order (the training topic among them)."""
    problems, text = _decode(data)
    if problems:
        return problems, []
    blocks: list[dict] = []  # {"line": n, "number": (line, text), "template": ..., "narrative": ...}
    current_field = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        bad = _CONTROL.search(line)
        if bad:
            problems.append(Problem(number, f"bad encoding: control character U+{ord(bad.group()):04X}"))
            continue
        found = _FIELD_LINE.match(line)
        if found:
            field = FIELDS[found.group(1).lower()]
            value = found.group(2).strip()
            if field == "number":
                blocks.append({"line": number})
            elif not blocks:
                problems.append(Problem(number, f"'{found.group(1)}:' before the first 'Topic Number:' line"))
                current_field = None
                continue
            block = blocks[-1]
            if field in block:
                problems.append(Problem(number, f"second '{found.group(1)}:' in the topic of line {block['line']}"))
            block[field] = [number, value]
            current_field = field
        elif not blocks or current_field is None:
            problems.append(Problem(number, "text outside a topic: expected 'Topic Number:'"))
        elif current_field == "number":
            problems.append(Problem(number, "the topic number is one line; expected 'Template:' next"))
        else:
            field = blocks[-1][current_field]
            field[1] = f"{field[1]} {line.strip()}".strip()

    topics: list[ParsedTopic] = []
    seen: dict[str, int] = {}
    training_line = None
    for block in blocks:
        line = block["line"]
        ident = block["number"][1]
        if not _IDENT.match(ident):
            problems.append(Problem(line, f"topic number {ident!r} is not a single word of letters, digits, . _ -"))
            continue
        if ident in seen:
            problems.append(Problem(line, f"duplicate topic number {ident!r}; first used on line {seen[ident]}"))
            continue
        seen[ident] = line
        training = is_training_ident(ident)
        if training:
            if training_line is not None:
                problems.append(Problem(line, f"a second training topic; the first is on line {training_line}"))
                continue
            training_line = line
        if "template" not in block or not block["template"][1]:
            problems.append(Problem(line, f"topic {ident} has no 'Template:'"))
            continue
        if "narrative" not in block or not block["narrative"][1]:
            problems.append(Problem(line, f"topic {ident} has no 'Narrative:'"))
            continue
        template_line, template_text = block["template"]
        template_text = " ".join(template_text.split())
        matched = match_template(template_text)
        if matched is None:
            problems.append(
                Problem(
                    template_line,
                    f"topic {ident}: the template matches none of the five ciQA templates "
                    f"({'; '.join(t.name for t in TEMPLATES)})",
                )
            )
            continue
        template, slots = matched
        if template.number == 2 and slots[0].lower() not in RELATIONSHIPS:
            problems.append(
                Problem(
                    template_line,
                    f"topic {ident}: relationship {slots[0]!r} is not one of {', '.join(RELATIONSHIPS)}",
                )
            )
            continue
        topics.append(
            ParsedTopic(
                ident=ident,
                kind=TRAINING_KIND if training else KIND,
                text=template_text,
                line=line,
                data={
                    "template": template.number,
                    "template_name": template.name,
                    "slots": slots,
                    "slot_names": list(template.slots),
                    "narrative": " ".join(block["narrative"][1].split()),
                    "training": training,
                },
            )
        )
    if not blocks and not problems:
        problems.append(Problem(None, "no 'Topic Number:' line: not a ciQA topic file"))
    return problems, topics
