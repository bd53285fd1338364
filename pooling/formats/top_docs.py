"""NIST's per-target top-documents lists (PRISE rankings given to participants). No Django import.

One line per retrieved document: `qnum rank docid rsv` (white space between columns), where qnum is the target
(series) number, rank 1 is the most similar document and rsv the retrieval status value (larger is better). This is
the guidelines' shape (seed 000, "Document lists"). Document rankings are as often exchanged in TREC's run format,
`qnum Q0 docid rank rsv tag` (trec_eval's input), so a six-column line whose second column is Q0 is read the same.
"""

from typing import Any

from pooling.formats.base import Problem


def parse_top_docs(data: bytes, filename: str) -> tuple[list[Problem], dict[str, list[list[Any]]]]:
    """(problems, {qnum: [[rank, docid, rsv], ...] sorted by rank})."""
    lists: dict[str, list[list[Any]]]  # qnum -> [[rank, docid, rsv], ...]
    rank: str | int  # each column is read as text, then converted
    rsv: str | float
    problems, lists, seen = [], {}, set()
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError as exc:
            problems.append(Problem(number, f"not valid UTF-8 (byte {exc.start + 1} of the line)"))
            continue
        if not line:
            continue
        cols = line.split()
        if len(cols) == 6 and cols[1].upper() == "Q0":
            cols = [cols[0], cols[3], cols[2], cols[4]]
        elif len(cols) != 4:
            problems.append(
                Problem(
                    number,
                    f"expected 4 columns 'qnum rank docid rsv' (or 'qnum Q0 docid rank rsv tag'), found {len(cols)}",
                )
            )
            continue
        qnum, rank, docid, rsv = cols
        try:
            rank = int(rank)
            if rank < 1:
                raise ValueError
        except ValueError:
            problems.append(Problem(number, f"rank {cols[1]!r} is not a positive whole number"))
            continue
        try:
            rsv = float(rsv)
        except ValueError:
            problems.append(Problem(number, f"rsv {cols[3]!r} is not a number"))
            continue
        if (qnum, docid) in seen:
            problems.append(Problem(number, f"document {docid} listed twice for target {qnum}"))
            continue
        seen.add((qnum, docid))
        lists.setdefault(qnum, []).append([rank, docid, rsv])
    for ranking in lists.values():
        ranking.sort(key=lambda row: row[0])
    return problems, lists
