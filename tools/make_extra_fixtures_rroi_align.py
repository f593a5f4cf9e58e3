"""Record MXNet 1.9.1's rotated ROIAlign (``_contrib_RROIAlign``, forward only: MXNet has
no gradient for it).

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_rroi_align.py

It writes ``tests/fixtures/extra/rroi_align`` (format: ``tools/mxcases.py``);
``tests/test_ops_rroi_align.py`` replays the cases imperatively, through ``bind`` and in a
hybridized block.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mxcases import Recorder  # noqa: E402

R = Recorder("rroi_align")
RNG = np.random.RandomState(12)


def U(*shape, dtype="float32"):
    return RNG.uniform(-1, 1, size=shape).astype(dtype)


def rotated_rois(n, batch, extent):
    """(n, 6) rois (batch, cx, cy, w, h, angle): some beyond the map's edges, all angles."""
    return np.stack([RNG.randint(0, batch, n), RNG.uniform(-2, extent + 2, n), RNG.uniform(-2, extent + 2, n),
                     RNG.uniform(0.5, extent, n), RNG.uniform(0.5, extent, n), RNG.uniform(-180, 180, n)],
                    1).astype("float32")


ROIS = rotated_rois(12, 2, 10)
R.case("rroi_default", "_contrib_RROIAlign", [("data", U(2, 3, 10, 11)), ("rois", ROIS)],
       dict(pooled_size=(2, 3), spatial_scale=1.0))
R.case("rroi_scaled", "_contrib_RROIAlign", [("data", U(2, 4, 6, 5)), ("rois", ROIS)],
       dict(pooled_size=(3, 3), spatial_scale=0.5))
R.case("rroi_sampling_ratio", "_contrib_RROIAlign", [("data", U(2, 2, 10, 11)), ("rois", ROIS)],
       dict(pooled_size=(4, 2), spatial_scale=1.0, sampling_ratio=2))
R.case("rroi_axis_aligned", "_contrib_RROIAlign",
       [("data", U(1, 2, 7, 7)), ("rois", np.float32([[0, 3, 3, 4, 2, 0], [0, 3, 3, 4, 2, 90], [0, 3.5, 2, 2, 5, 180],
                                                     [0, 6.5, 6.5, 0.2, 0.3, 45]]))],
       dict(pooled_size=(2, 2), spatial_scale=1.0))
R.case("rroi_float64", "_contrib_RROIAlign", [("data", U(2, 3, 8, 9, dtype="float64")),
                                             ("rois", rotated_rois(5, 2, 8).astype("float64"))],
       dict(pooled_size=(2, 2), spatial_scale=1.0, sampling_ratio=3))
R.case("rroi_bad_rois", "_contrib_RROIAlign", [("data", U(1, 2, 5, 5)), ("rois", U(3, 5))],
       dict(pooled_size=(2, 2), spatial_scale=1.0))
R.write()
