// Replaces libddsc's TypeLookup reply handler (why: cyclone_type_lookup_guard.hpp).
#include "cyclone_type_lookup_guard.hpp"

#include <atomic>

namespace baton::ros2 {
namespace {
std::atomic<uint64_t> replies_dropped{0};
}  // namespace

uint64_t type_lookup_replies_dropped() { return replies_dropped.load(std::memory_order_relaxed); }

}  // namespace baton::ros2

struct ddsi_domaingv;
struct ddsi_serdata;

// The signature of dds/ddsi/ddsi_typelookup.h (CycloneDDS 0.10). The caller, Cyclone's builtin
// delivery queue, keeps its reference to the sample and releases it after this returns.
extern "C" __attribute__((visibility("default"))) void ddsi_tl_handle_reply(ddsi_domaingv*,
                                                                            ddsi_serdata*) {
  baton::ros2::replies_dropped.fetch_add(1, std::memory_order_relaxed);
}
