"""``mx.random``: seeding and sampling (in progress)."""
