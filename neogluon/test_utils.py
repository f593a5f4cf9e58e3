"""``mx.test_utils`` (in progress)."""
