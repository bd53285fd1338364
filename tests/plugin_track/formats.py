"""The plug-in test track's file formats (pure, no Django): a topic per line `ident<TAB>text`, a run line per answer
`topic<TAB>docid<TAB>run tag`."""

from pooling.formats.base import CheckContext, ParsedEntry, ParsedRun, ParsedTopic, Problem

FILE_SHAPE = "text"
POOL_USES_DATA = False  # pool_key reads the docid only


def parse_topics(data: bytes, filename: str) -> tuple[list[Problem], list[ParsedTopic]]:
    problems, topics = [], []
    for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        if not line.strip():
            continue
        ident, _, text = line.partition("\t")
        if not ident.strip() or not text.strip():
            problems.append(Problem(n, "expected: ident<TAB>text"))
            continue
        topics.append(ParsedTopic(ident=ident.strip(), kind="TOPIC", text=text.strip(), line=n))
    return problems, topics


def check_run(data: bytes, filename: str, context: CheckContext) -> tuple[list[Problem], ParsedRun | None]:
    problems, entries, tags = [], [], set()
    for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        fields = line.split("\t")
        if len(fields) != 3:
            problems.append(Problem(n, "expected: topic<TAB>docid<TAB>run tag"))
            continue
        topic, docid, tag = (f.strip() for f in fields)
        if topic not in context.topics:
            problems.append(Problem(n, f"unknown topic {topic!r}"))
        tags.add(tag)
        entries.append(ParsedEntry(topic=topic, line=n, docid=docid))
    if len(tags) > 1:
        problems.append(Problem(None, f"one run tag per file, not {sorted(tags)}"))
    if not entries:
        problems.append(Problem(None, "no run lines"))
    return problems, None if problems else ParsedRun(tag=tags.pop(), entries=entries)


def pool_key(entry: ParsedEntry) -> str | None:
    return entry.docid or None
