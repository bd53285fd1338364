"""The IR ecosystem's file formats (issue 28): qrels, TREC run files and result files. Pure Python, no Django."""
