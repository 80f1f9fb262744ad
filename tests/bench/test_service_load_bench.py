"""bench/service_load.py measures its rate over the time students send: a student whose next think time would end
after the deadline stops at once (it used to sleep it out, so the crowd's last idle seconds — up to ten with 200
students at a 1.5 s mean — were counted in the window and the rate read about a quarter low)."""

from __future__ import annotations

import asyncio
import random
import time

from bench.service_load import Tally, student


def test_a_student_stops_when_the_next_think_time_would_end_after_the_deadline():
    tally = Tally()
    deadline = time.monotonic() + 0.2
    # think time averaging 1000 s: the old loop slept it out before looking at the clock; no client is ever used
    asyncio.run(asyncio.wait_for(student("s1", [], ["学费多少"], tally, deadline, 1000.0, random.Random(7)), timeout=30))
    assert tally.new_messages == 0 and not tally.errors and not tally.latencies
