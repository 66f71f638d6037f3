#include "baton/api/guard_condition.hpp"

#include "baton/shm/sleeper_word.hpp"

namespace baton {

void GuardCondition::trigger() noexcept {
  // Sync point "guard-trigger": pairs with WaitSet's waiters increment + triggered check.
  triggered_.store(true, std::memory_order_seq_cst);
  shm::wake_armed_sleepers(&waiters_, &wake_seq_);
}

}  // namespace baton
