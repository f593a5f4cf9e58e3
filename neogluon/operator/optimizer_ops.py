"""Optimizer update operators: sgd_update, adam_update, ..."""
