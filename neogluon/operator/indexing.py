"""Indexing operators: take, pick, one_hot, gather_nd, Embedding, Sequence*, ..."""
