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

import pytest


def sleeper_steps(state, total, load_first):
    data, count, armed, wake, pc, seen, observed, queued, notifiers = state

    def go(next_pc, **changes):
        fields = dict(
            data=data,
            count=count,
            armed=armed,
            wake=wake,
            seen=seen,
            observed=observed,
            queued=queued,
        )
        fields.update(changes)
        return (
            fields["data"],
            fields["count"],
            fields["armed"],
            fields["wake"],
            next_pc,
            fields["seen"],
            fields["observed"],
            fields["queued"],
            notifiers,
        )

    # announce_sleeper as three steps, in either order of the futex-word load.
    announce = ["load", "count", "arm"] if load_first else ["count", "arm", "load"]
    if pc == "done":
        return []
    if pc == 0 and seen == total:
        return [go("done")]
    if pc in (0, 1, 2):
        step = announce[pc]
        if step == "load":
            return [go(pc + 1, observed=wake)]
        if step == "count":
            return [go(pc + 1, count=count + 1)]
        return [go(pc + 1, armed=True)]
    if pc == 3:  # re-check, then futex_wait(wake, observed)
        if data != seen or wake != observed:
            return [go(5)]
        return [go(4, queued=True)]
    if pc == 4:  # asleep until a futex_wake dequeues it
        return [] if queued else [go(5)]
    if pc == 5:  # retract_sleeper
        return [go(6, count=count - 1)]
    return [go(0, seen=data)]  # pc 6: take what arrived


def notifier_steps(state, n, per_notifier):
    data, count, armed, wake, pc, seen, observed, queued, notifiers = state
    step, sent = notifiers[n]

    def go(next_step, sent_now=sent, **changes):
        fields = dict(data=data, count=count, armed=armed, wake=wake, queued=queued)
        fields.update(changes)
        others = list(notifiers)
        others[n] = (next_step, sent_now)
        return (
            fields["data"],
            fields["count"],
            fields["armed"],
            fields["wake"],
            pc,
            seen,
            observed,
            fields["queued"],
            tuple(others),
        )

    if step == "done":
        return []
    if step == 0:  # store the data
        return [go("done")] if sent == per_notifier else [go(1, data=data + 1)]
    if step == 1:  # wake_armed_sleepers: load the waiters word
        return [go(0, sent + 1)] if count == 0 or not armed else [go(2)]
    if step == 2:  # consume ARMED
        return [go(0, sent + 1)] if not armed else [go(3, armed=False)]
    if step == 3:  # bump the futex word
        return [go(4, wake=wake + 1)]
    return [go(0, sent + 1, queued=False)]  # futex_wake_all


def lost_wake_exists(per_notifier, load_first):
    start = (0, 0, False, 0, 0, 0, 0, False, ((0, 0), (0, 0)))
    seen_states = {start}
    todo = deque([start])
    while todo:
        state = todo.popleft()
        successors = sleeper_steps(state, 2 * per_notifier, load_first)
        for n in range(2):
            successors += notifier_steps(state, n, per_notifier)
        if not successors and state[4] != "done":
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
