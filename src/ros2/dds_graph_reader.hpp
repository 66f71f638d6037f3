// Private to the ros2 layer (the DDS wire's internals are not public API).
// Keeps a DdsGraphCache of one participant's DDS domain up to date: readers on the DDS built-in
// topics (DCPSParticipant, DCPSPublication, DCPSSubscription) and on ros_discovery_info.
//
//   auto graph = DdsGraphReader::create(*participant);
//   if ((*graph)->refresh()) ...;                  // something changed since the last refresh
//   DdsGraph g = (*graph)->snapshot(shm::domain_tag());
//
// Pull, not push: refresh() takes what discovery delivered on the caller's thread, so no code
// runs on CycloneDDS's threads (rmw_baton_cpp's graph watcher calls it every 100 ms, and each
// graph query before it answers). Thread-safe. A ros_discovery_info sample that does not decode
// is dropped, counted and logged on stderr (the first 10, then every power of two); the
// participant keeps its previous nodes.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "baton/common/result.hpp"
#include "baton/ros2/dds_graph_cache.hpp"
#include "baton/ros2/ros2_participant.hpp"
#include "dds_wire.hpp"

namespace baton::ros2 {

class DdsGraphReader {
 public:
  // `p` must outlive the reader. Error: a reader could not be created (detail names it).
  static Result<std::unique_ptr<DdsGraphReader>, Error<WireError>> create(Participant& p);
  ~DdsGraphReader();
  DdsGraphReader(const DdsGraphReader&) = delete;
  DdsGraphReader& operator=(const DdsGraphReader&) = delete;

  // Takes every pending discovery sample into the cache; true when the graph changed.
  bool refresh();
  // Counts the refreshes that changed the graph (whoever called them): a watcher compares it
  // with what it saw last, so a change taken by a query's refresh still wakes it.
  uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }
  // refresh(), then the graph outside the shm domain `local_tag`.
  DdsGraph snapshot(std::string_view local_tag);
  // ros_discovery_info samples dropped because they did not decode.
  uint64_t malformed() const noexcept { return malformed_.load(std::memory_order_relaxed); }

 private:
  DdsGraphReader(const MessageDescription& type, DdsRawReader discovery_info)
      : type_(&type), discovery_info_(std::move(discovery_info)) {}
  bool take_participants();
  bool take_endpoints(int32_t reader, bool writers);
  bool take_discovery_info();

  const MessageDescription* type_;  // ParticipantEntitiesInfo, borrowed from the participant
  std::mutex mu_;                   // guards everything below
  DdsRawReader discovery_info_;
  int32_t participants_ = 0, publications_ = 0, subscriptions_ = 0;  // built-in topic readers
  // Instance handle -> GUID of what the built-in readers reported alive: a disposal names the
  // instance, not necessarily the key.
  std::unordered_map<uint64_t, Guid> guid_of_instance_;
  DdsGraphCache cache_;
  std::atomic<uint64_t> malformed_{0};
  std::atomic<uint64_t> generation_{0};
};

}  // namespace baton::ros2
