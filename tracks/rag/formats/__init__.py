"""The TREC RAG track's pure formats: topics, runs (answers and retrieval) and the MS MARCO V2.1 segmented
collection (segments, a corpus collection format registered by the track)."""
