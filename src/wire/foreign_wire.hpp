// Private to the layers above (ros2, rmw_baton_cpp, ros1): the foreign-wire endpoint of a bridged
// topic endpoint, as small as the core (bridged_topic.hpp) needs it. Two wires are behind it: DDS
// (src/ros2/foreign_dds_wire.cpp, a DdsRawWriter / DdsRawReader) and TCPROS
// (src/ros1/foreign_tcpros_wire.cpp, a TcprosPublication); the core never sees a DDS or TCPROS
// call, so another wire only has to provide these calls. The bytes are in the wire's own
// serialization (CDR for DDS, ROS 1 serialization for TCPROS): the core never looks inside them.
//
// "Foreign" is the exactly-once vocabulary: a peer reached through this process's shared-memory
// domain is *not* foreign (it got the sample through shared memory); every other peer on the wire
// is. The endpoint tells them apart (DDS: the baton tag in the peer's USER_DATA; TCPROS: the
// transport each subscriber connection negotiated, BATONSHM or TCPROS).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "baton/common/result.hpp"

namespace baton::wire {

// An endpoint's 16-byte identity on its wire: DDS's GUID (what rmw gids and ros_discovery_info
// carry, the same type as ros2::Guid); all zeros on a wire without one (TCPROS).
using EndpointGid = std::array<uint8_t, 16>;

// Writes a sample's bytes, already in the wire's serialization, into `room` (exactly its size);
// an error says why nothing usable was written. The same type as ros1::FillBytes.
using FillBytes = std::function<Result<Ok, std::string>(std::span<uint8_t> room)>;

class ForeignWriter {
 public:
  virtual ~ForeignWriter() = default;
  // Matched remote readers: all of them, and the foreign ones (those that need the wire copy).
  // foreign_readers() is on every publish: one atomic load while the matches stay the same.
  virtual uint32_t readers() const = 0;
  virtual uint32_t foreign_readers() = 0;
  // Sends one sample (its wire serialization: DDS's CDR with the encapsulation header, TCPROS's
  // ROS 1 bytes) to the wire's readers.
  virtual Status<std::string> write(std::span<const uint8_t> bytes) = 0;
  // The same for `size` bytes that `fill` writes in place into the wire's own buffer (a sample with
  // no shared-memory copy to send from: no copy at all). A failed fill is the error it returned.
  // By default into a buffer of its own, then write().
  virtual Status<std::string> write_filled(uint64_t size, const FillBytes& fill) {
    std::vector<uint8_t> bytes(size);
    if (auto filled = fill(bytes); !filled) return unexpected(filled.error());
    return write(bytes);
  }
  virtual EndpointGid gid() const = 0;
};

class ForeignReader {
 public:
  virtual ~ForeignReader() = default;
  // The next sample of a foreign writer (a same-domain writer's samples are skipped and counted:
  // they came through shared memory); nullopt when none waits.
  virtual std::optional<std::vector<uint8_t>> take() = 0;
  // True while a sample waits (skipped ones included: take() may still find none).
  virtual bool has_data() const = 0;
  virtual uint32_t writers() const = 0;
  virtual uint32_t foreign_writers() = 0;
  virtual uint64_t dropped_same_tag() const = 0;
  virtual EndpointGid gid() const = 0;
  // `fn` runs on the wire's own thread when a sample arrives: short and non-blocking.
  virtual void on_data_available(std::function<void()> fn) = 0;
};

}  // namespace baton::wire
