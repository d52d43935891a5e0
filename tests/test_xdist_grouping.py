"""The main lane's two xdist workers keep each ``xdist_group`` on one worker (scripts/test.sh runs
``--dist loadgroup``). If they did not, every expensive module fixture marked with a group (a real
model run) would run once per worker: pytest 9.2 with pytest-xdist 3.8 did exactly that, silently."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.xdist_group("grouping_probe")


def test_a_grouped_test_carries_its_group_to_the_scheduler(request):
    if not os.environ.get("PYTEST_XDIST_WORKER") or not getattr(request.config.option, "loadgroup", False):
        pytest.skip("only meaningful on xdist workers with --dist loadgroup")
    # xdist's loadgroup scheduler reads the group from this suffix; without it the test is dealt out alone.
    assert request.node.nodeid.endswith("@grouping_probe"), request.node.nodeid
