// The TCPROS endpoints of a ros1::Publisher / Subscription as their users see them
// (Publisher::wire(), Subscription::wire()): connection counts, counters, and the samples a
// subscription's sink gets. Inside the library a publication composes the bridged-endpoint core
// (a baton port + a foreign wire + exactly-once, docs/design/wire.md), which reaches TCPROS through
// a private adapter over the same endpoint; a subscription composes the core's push form, into
// which each TCPROS connection and the shared-memory port push what they read.
//
// A WireWriter serializes a message at most once however many remote readers it has and does
// not serialize at all when it has none (reader_count() == 0). A WireReader hands each message
// to its sink once, in the order its remote writer sent it, with the writer's identity.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "baton/common/result.hpp"
#include "baton/ros2/dynamic_value.hpp"

namespace baton::ros1 {

enum class WireError : uint8_t {
  // The Value does not have the shape of the endpoint's type (detail names the field).
  TypeMismatch,
  // The endpoint was shut down (its node is gone).
  Closed,
};

constexpr std::string_view to_string(WireError e) noexcept {
  switch (e) {
    case WireError::TypeMismatch:
      return "TypeMismatch";
    case WireError::Closed:
      return "Closed";
  }
  return "?";
}

// Counters of one endpoint since it was created (all connections together).
struct WireStats {
  uint64_t serialized = 0;  // messages serialized by the endpoint (writer)
  uint64_t sent = 0;        // message copies handed to connections (writer)
  uint64_t dropped = 0;     // copies dropped: a connection's queue was full (writer)
  uint64_t received = 0;    // messages delivered to the sink (reader)
  uint64_t refused = 0;     // connections refused or dropped for bad input (both)
  uint64_t bytes = 0;       // message bytes written to (writer) or read from (reader) the wire
};

// One received message, as the wire carried it.
struct WireSample {
  std::span<const uint8_t> bytes;  // the serialized message; valid during the sink call only
  std::string_view source;         // the remote writer's identity on this wire (ROS 1: callerid)
  uint64_t connection_id = 0;      // distinct for each connection the reader ever had
  uint64_t sequence = 0;           // 0, 1, 2, ... within the connection
  // The transport it came by: "TCPROS", or "BATONSHM" (bytes read in place in shared memory).
  std::string_view transport;
};

// Writes a message's bytes, already in the wire's serialization, into `room` (exactly its size):
// a message converted straight into the buffer it is sent from (bridge::Ros1Mirror). An error
// says why nothing usable was written.
using FillBytes = std::function<Result<Ok, std::string>(std::span<uint8_t> room)>;

class WireWriter {
 public:
  virtual ~WireWriter() = default;
  virtual std::string_view wire() const noexcept = 0;  // "TCPROS"
  // Remote readers connected now.
  virtual size_t reader_count() const = 0;
  // Serializes `message` once and queues it to every reader; returns how many it was queued to
  // (0 without serializing when there is none). Called by one thread at a time.
  virtual Result<size_t, Error<WireError>> write(const ros2::Value& message) = 0;
  // The same for bytes already in this wire's serialization (not checked against the type).
  virtual Result<size_t, Error<WireError>> write_serialized(std::span<const uint8_t> bytes) = 0;
  virtual WireStats stats() const = 0;
};

class WireReader {
 public:
  // Called from the reader's connection threads, one call at a time per reader.
  using Sink = std::function<void(const WireSample&)>;
  virtual ~WireReader() = default;
  virtual std::string_view wire() const noexcept = 0;
  // Remote writers connected now.
  virtual size_t writer_count() const = 0;
  virtual WireStats stats() const = 0;
};

}  // namespace baton::ros1
