"""TREC 2007 complex interactive QA (ciQA, seed 001 section 3), built on the QA track's nugget workflow."""
