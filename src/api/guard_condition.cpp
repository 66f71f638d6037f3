#include "baton/api/guard_condition.hpp"

#include "baton/shm/futex.hpp"

namespace baton {

void GuardCondition::trigger() noexcept {
  // Sync point "guard-trigger": pairs with WaitSet's waiters increment + triggered check.
  triggered_.store(true, std::memory_order_seq_cst);
  if (waiters_.load(std::memory_order_seq_cst) != 0) {
    wake_seq_.fetch_add(1, std::memory_order_release);
    shm::futex_wake_all(&wake_seq_);
  }
}

}  // namespace baton
