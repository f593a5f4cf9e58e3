"""MXNet 1.9.1's rotated ROIAlign (``_contrib_RROIAlign``, recorded by
tools/make_extra_fixtures_rroi_align.py): imperatively, through ``bind`` and hybridized;
MXNet's error for ROIs that are not (R, 6)."""
from opcases import make_tests

test_imperative, test_graph, test_hybridized, test_error = make_tests("rroi_align")
