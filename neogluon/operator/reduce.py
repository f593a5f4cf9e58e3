"""Reductions, sorting and arg-functions: sum, mean, max, norm, argmax, topk, sort, ..."""
