"""A stop request is raised at once, after the current database write, or not at all."""

from __future__ import annotations

import pytest

from arena.tournaments.stopping import Stopped, request_stop, shielded, stoppable


def test_a_stop_while_playing_is_raised_at_once():
    with pytest.raises(Stopped), stoppable():
        request_stop()
        pytest.fail("not stopped")


def test_a_stop_during_a_write_waits_for_its_end():
    steps = []
    with pytest.raises(Stopped), stoppable():
        with shielded():
            request_stop()
            steps.append("write finished")
        steps.append("after the write")
    assert steps == ["write finished"]


def test_nested_writes_raise_once_at_the_outermost_end():
    steps = []
    with pytest.raises(Stopped), stoppable(), shielded():
        with shielded():
            request_stop()
        steps.append("outer write finished")
    assert steps == ["outer write finished"]


def test_no_stop_outside_a_match_and_none_left_over():
    request_stop()  # not playing: ignored
    with shielded():
        request_stop()
    with stoppable(), shielded():  # a fresh match starts with no stop pending
        pass
