// The loans an rmw_baton_cpp endpoint has handed out and not had back yet, found by the message
// pointer rcl returns. Guarded by the endpoint's mutex. A pointer that is not in the table
// (returned twice, or never ours) is refused with an error, never dereferenced.
#pragma once

#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "baton/api/publisher.hpp"
#include "baton/api/subscription.hpp"

namespace baton::ros2::rmw {

// rmw_borrow_loaned_message: chunks on loan, the C struct at LOAN_STRUCT_OFFSET in each.
struct PublisherLoans {
  std::vector<baton::RawLoan> outstanding;
};

// rmw_take_loaned_message: either a sample held in place (`sample` valid, `message` points into
// its chunk) or an aligned private copy (`copy`), for a sample that does not sit 8-aligned (a
// raw baton publisher may put it at offset 0) or came from DDS. For a viewable type
// (loan_layout.hpp) `decoded` owns the private C struct, whose primitive sequences may point
// into `sample`'s chunk.
struct SubscriptionLoans {
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  struct Held {
    void* message = nullptr;
    baton::RawSample sample;
    std::unique_ptr<void, FreeDeleter> copy;
    // Empties the borrowed sequences, finalises and frees the struct (declared last: destroyed
    // before `sample` gives the chunk back).
    std::unique_ptr<void, std::function<void(void*)>> decoded;
  };
  std::vector<Held> outstanding;
  uint64_t in_place = 0;  // loans served in shared memory
  uint64_t copies = 0;    // loans served from an aligned copy
  uint64_t viewed = 0;    // loans of a viewable type (borrowed sequences or not)
};

}  // namespace baton::ros2::rmw
