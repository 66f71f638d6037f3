"""Exhaustive model check of the wake-up protocol of include/baton/shm/sleeper_word.hpp.

One sleeper and two notifiers under sequential consistency (every step of the C++ code is a
seq_cst load or RMW, or a futex call); every interleaving is explored. A lost wake-up is a state
where the notifiers are done, the sleeper sleeps in the kernel, and there is data it has not seen.

The model is of the protocol, not of the compiled code: it shows that the order announce_sleeper
uses (load the futex word, then count, then arm) loses no wake-up, and that the order it used
before (count, arm, then load the futex word) does, which the C++ racing test
(SleeperWord.racing_notifiers_never_lose_a_wake) had caught as a rare failure.
"""

from collections import deque
from typing import NamedTuple

import pytest


class State(NamedTuple):
    data: int  # messages stored by the notifiers
    count: int  # sleeper count in the waiters word
    armed: bool  # ARMED bit of the waiters word
    wake: int  # the futex word
    pc: object  # sleeper's next step (0..6 or "done")
    seen: int  # messages the sleeper has taken
    observed: int  # futex word value the sleeper will sleep on
    queued: bool  # sleeper is in the kernel's futex queue
    notifiers: tuple  # per notifier: (next step, messages sent)


def sleeper_steps(s, total, load_first):
    # announce_sleeper as three steps, in either order of the futex-word load.
    announce = ["load", "count", "arm"] if load_first else ["count", "arm", "load"]
    if s.pc == "done":
        return []
    if s.pc == 0 and s.seen == total:
        return [s._replace(pc="done")]
    if s.pc in (0, 1, 2):
        step = announce[s.pc]
        if step == "load":
            return [s._replace(pc=s.pc + 1, observed=s.wake)]
        if step == "count":
            return [s._replace(pc=s.pc + 1, count=s.count + 1)]
        return [s._replace(pc=s.pc + 1, armed=True)]
    if s.pc == 3:  # re-check, then futex_wait(wake, observed)
        if s.data != s.seen or s.wake != s.observed:
            return [s._replace(pc=5)]
        return [s._replace(pc=4, queued=True)]
    if s.pc == 4:  # asleep until a futex_wake dequeues it
        return [] if s.queued else [s._replace(pc=5)]
    if s.pc == 5:  # retract_sleeper
        return [s._replace(pc=6, count=s.count - 1)]
    return [s._replace(pc=0, seen=s.data)]  # pc 6: take what arrived


def notifier_steps(s, n, per_notifier):
    step, sent = s.notifiers[n]

    def go(next_step, sent_now=sent, **changes):
        notifiers = list(s.notifiers)
        notifiers[n] = (next_step, sent_now)
        return s._replace(notifiers=tuple(notifiers), **changes)

    if step == "done":
        return []
    if step == 0:  # store the data
        return [go("done")] if sent == per_notifier else [go(1, data=s.data + 1)]
    if step == 1:  # wake_armed_sleepers: load the waiters word
        return [go(0, sent + 1)] if s.count == 0 or not s.armed else [go(2)]
    if step == 2:  # consume ARMED
        return [go(0, sent + 1)] if not s.armed else [go(3, armed=False)]
    if step == 3:  # bump the futex word
        return [go(4, wake=s.wake + 1)]
    return [go(0, sent + 1, queued=False)]  # futex_wake_all


def lost_wake_exists(per_notifier, load_first):
    start = State(0, 0, False, 0, 0, 0, 0, False, ((0, 0), (0, 0)))
    seen_states = {start}
    todo = deque([start])
    while todo:
        state = todo.popleft()
        successors = sleeper_steps(state, 2 * per_notifier, load_first)
        for n in range(2):
            successors += notifier_steps(state, n, per_notifier)
        if not successors and state.pc != "done":
            return True  # stuck: the sleeper sleeps with nobody left to wake it
        for s in successors:
            if s not in seen_states:
                seen_states.add(s)
                todo.append(s)
    return False


@pytest.mark.parametrize("per_notifier", [1, 2, 3])
def test_loading_the_futex_word_before_arming_loses_no_wake(per_notifier):
    assert not lost_wake_exists(per_notifier, load_first=True)


def test_loading_the_futex_word_after_arming_loses_a_wake():
    # The model can fail: the order used before the fix is caught.
    assert lost_wake_exists(1, load_first=False)
