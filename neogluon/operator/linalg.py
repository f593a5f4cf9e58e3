"""Linear algebra: dot, batch_dot, khatri_rao and the _linalg_* family."""
