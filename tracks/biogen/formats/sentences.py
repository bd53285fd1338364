"""Answer text into sentences and their citations, as seed 002 "Answer Processing" states. Pure (spaCy, no Django).

Seed 002: "Text in the answer entry will be sentence-tokenized using the SpaCy sentence tokenizer. Any text within
square brackets will be treated as a citation list ... a comma-delimited list of PMID citations ... only the first
three entries in each citation list will be considered ... each citation will be assumed to be 'assigned' to its
enclosing sentence. Square-bracket runs that take place after sentence-final punctuation (i.e., outside of a
sentence), will be discarded. Square-bracket runs that occur at the beginning of the document ... will be
discarded."

How: the bracket runs are cut out of the text first (with the white space before them), spaCy splits what is
left, and each kept run goes to the sentence holding the character just before it. A run preceded by nothing
(after other runs are ignored) is before the first sentence: discarded with a warning. The sentence split, not the
character before the bracket, decides what is "after sentence-final punctuation": a run is discarded only where its
sentence ends right before it and ends in ". ! ?" (closing quotes or parentheses allowed). A period that does not
end a sentence ("in the U.S. [1] and", "e.g. [2] metformin") keeps its run in that sentence.
"""

import re
from dataclasses import dataclass, field
from functools import cache

BRACKETS = re.compile(r"\s*\[([^\[\]]*)\]")
FINAL = re.compile(r"[.!?][\"'”’)\]]*$")
PMID = re.compile(r"^[0-9]{1,9}$")
MAX_PER_LIST = 3  # seed 002: "only the first three entries in each citation list will be considered"
TRAINED = ("en_core_sci_sm", "en_core_web_sm")  # used when installed (never downloaded at run time)


@dataclass
class Sentence:
    text: str
    pmids: list[str] = field(default_factory=list)  # cited, in order, each once


@dataclass
class Split:
    sentences: list[Sentence]
    warnings: list[str]  # discarded brackets and dropped citations, with the sentence they are in or after
    errors: list[str]  # citation list entries that are not PMIDs


@cache
def _pipeline():
    import spacy
    import spacy.util

    for name in TRAINED:
        if spacy.util.is_package(name):
            return spacy.load(name, exclude=["ner", "lemmatizer"]), f"spaCy trained pipeline {name}"
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp, "spaCy blank English pipeline with the rule-based sentencizer (no trained pipeline installed)"


def splitter_name() -> str:
    """Which splitter runs (the check report says it)."""
    return _pipeline()[1]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """[(start, end)] of spaCy's sentences of `text`, white space trimmed, empty ones left out."""
    doc = _pipeline()[0](text)
    spans = []
    for sent in doc.sents:
        start, end = sent.start_char, sent.end_char
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            spans.append((start, end))
    return spans


def split_answer(answer: str) -> Split:
    """The answer's sentences with their citations, the warnings and the errors of its citation lists."""
    warnings: list[str] = []
    errors: list[str] = []
    pieces, runs, last = [], [], 0  # runs: (position in the cleaned text, [entries], bracket text)
    length = 0
    for m in BRACKETS.finditer(answer):
        piece = answer[last : m.start()]
        pieces.append(piece)
        length += len(piece)
        runs.append((length, m.group(1), m.group(0).strip()))
        last = m.end()
    pieces.append(answer[last:])
    clean = "".join(pieces)
    spans = sentence_spans(clean)
    sentences = [Sentence(clean[s:e]) for s, e in spans]
    for position, inner, shown in runs:
        before = clean[:position].rstrip()
        if not before.strip():
            warnings.append(f"citation list {shown} comes before the first sentence: discarded")
            continue
        index = _sentence_of(spans, len(before) - 1)
        if index is None or (spans[index][1] == len(before) and FINAL.search(before)):
            where = f"after sentence {index + 1}" if index is not None else "outside any sentence"
            warnings.append(f"citation list {shown} comes {where}, past its final punctuation: discarded")
            continue
        entries = [e.strip() for e in inner.split(",")]
        if entries == [""]:
            errors.append(f"sentence {index + 1}: empty citation list []")
            continue
        if len(entries) > MAX_PER_LIST:
            dropped = ", ".join(entries[MAX_PER_LIST:])
            warnings.append(
                f"sentence {index + 1}: citation list {shown} has {len(entries)} entries; only the first "
                f"{MAX_PER_LIST} count, {dropped} dropped"
            )
            entries = entries[:MAX_PER_LIST]
        for entry in entries:
            if not PMID.match(entry):
                errors.append(f"sentence {index + 1}: citation {entry!r} in {shown} is not a PMID")
            elif entry not in sentences[index].pmids:
                sentences[index].pmids.append(entry)
    return Split(sentences, warnings, errors)


def _sentence_of(spans: list[tuple[int, int]], char: int) -> int | None:
    for i, (start, end) in enumerate(spans):
        if start <= char < end:
            return i
    return None


WORD = re.compile(r"\w")


def word_count(text: str) -> int:
    """Words of a text without its citations and punctuation: white-space separated tokens holding a letter or
    digit (the official validator's count: "citations and punctuation not counted")."""
    return sum(1 for token in BRACKETS.sub(" ", text).split() if WORD.search(token))
