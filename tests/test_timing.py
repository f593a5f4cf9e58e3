"""The paired speed comparison behind the demo's speed-up figures (neogluon.cli.timing)."""
import random

import pytest

from neogluon.cli.timing import describe, paired_ratio, _median_interval


@pytest.mark.parametrize("n, expected", [(6, (0, 5)), (12, (2, 9)), (20, (5, 14)), (100, (39, 60))])
def test_median_interval_matches_the_binomial_tables(n, expected):
    # the distribution-free 95% interval of a median: order statistics (1-based) 1..6 for n=6,
    # 3..10 for n=12, 6..15 for n=20, 40..61 for n=100
    assert _median_interval(n) == expected


def test_steady_timings_give_the_ratio_and_a_verdict():
    rng = random.Random(0)
    imperative = [1.2 * (1 + 0.01 * rng.random()) for _ in range(200)]
    hybridized = [1.0 * (1 + 0.01 * rng.random()) for _ in range(200)]
    result = paired_ratio(imperative, hybridized)
    assert result.conclusive and 1.18 < result.low <= result.median <= result.high < 1.22
    text = describe(result, "speed-up")
    assert text.startswith("speed-up: 1.20x (faster; 95% interval") and "200 paired timings" in text


def test_no_difference_and_slower_are_said_as_such():
    same = paired_ratio([1.0 + 0.001 * (i % 3) for i in range(50)], [1.0 + 0.001 * (i % 2) for i in range(50)])
    assert "no measurable difference" in describe(same, "x")
    slower = paired_ratio([1.0] * 50, [1.25] * 50)
    assert "0.80x (slower" in describe(slower, "x")


def test_a_load_on_some_steps_does_not_move_the_median():
    rng = random.Random(2)
    # half of the steps of either run slowed 1.5x-3x: the paired median still finds 1.05
    def load():
        return 1.0 if rng.random() < 0.5 else rng.uniform(1.5, 3.0)
    result = paired_ratio([1.05 * load() for _ in range(200)], [1.0 * load() for _ in range(200)])
    assert result.median == pytest.approx(1.05)


def test_a_busy_machine_gives_no_number():
    rng = random.Random(1)
    # a competing process makes every step of either run take between 0.5x and 2x its time
    imperative = [1.05 * rng.lognormvariate(0, 0.35) for _ in range(100)]
    hybridized = [1.0 * rng.lognormvariate(0, 0.35) for _ in range(100)]
    result = paired_ratio(imperative, hybridized)
    assert not result.conclusive
    text = describe(result, "speed-up")
    assert "too busy to conclude" in text and "x (" not in text


def test_too_few_pairs_and_bad_input():
    assert "not measured" in describe(paired_ratio([1.0] * 5, [1.0] * 5), "x")
    with pytest.raises(ValueError, match="equal lengths"):
        paired_ratio([1.0], [1.0, 2.0])
