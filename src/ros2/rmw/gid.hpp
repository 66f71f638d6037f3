// rmw gids (16 bytes) of baton endpoints. A publisher is named for good by its topic and its
// (slot, generation) on that topic, which both the publisher and every sample it sends carry, so
// rmw_get_gid_for_publisher and rmw_take_with_info's publisher_gid agree without any extra bytes
// in shared memory:
//   publisher:    [0..8) FNV-1a of the topic name, [8..12) slot, [12..16) slot generation
//   subscription: the same with bit 31 of the slot set (subscriber slots, never a publisher's)
//   client:       [0..8) baton client id (pid << 32 | counter), [8..16) "bat-clnt"
// The client gid is also the writer_guid of its requests (rmw_request_id_t). Each endpoint also
// stores its gid in its graph registry entry, so graph queries report these very gids.
#pragma once

#include <rmw/types.h>

#include <cstdint>
#include <cstring>
#include <string_view>

namespace baton::ros2::rmw {

inline uint64_t topic_key(std::string_view topic) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : topic) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

inline void publisher_gid(uint64_t key, uint32_t slot, uint32_t generation, uint8_t* out) {
  std::memcpy(out, &key, 8);
  std::memcpy(out + 8, &slot, 4);
  std::memcpy(out + 12, &generation, 4);
}

inline void subscription_gid(uint64_t key, uint32_t slot, uint32_t generation, uint8_t* out) {
  publisher_gid(key, slot | 0x80000000u, generation, out);
}

inline void client_gid(uint64_t client_id, uint8_t* out) {
  std::memcpy(out, &client_id, 8);
  std::memcpy(out + 8, "bat-clnt", 8);
}

inline uint64_t client_id_of(const uint8_t* gid) {
  uint64_t id = 0;
  std::memcpy(&id, gid, 8);
  return id;
}

}  // namespace baton::ros2::rmw
