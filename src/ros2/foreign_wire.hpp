// Private to baton_ros2 and rmw_baton_cpp: the foreign-wire endpoint of a bridged topic endpoint,
// as small as the core (bridged_topic.hpp) needs it. DDS is the one wire behind it today
// (foreign_dds_wire.cpp: a DdsRawWriter / DdsRawReader); the core never sees a DDS call, so a
// second wire only has to provide these calls.
//
// "Foreign" is the exactly-once vocabulary: a peer reached through this process's shared-memory
// domain is *not* foreign (it got the sample through shared memory); every other peer on the wire
// is. The endpoint tells them apart (DDS: the baton tag in the peer's USER_DATA).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros2/wire_types.hpp"

namespace baton::ros2 {
class DdsRawReader;
class DdsRawWriter;
}  // namespace baton::ros2

namespace baton::ros2::detail {

class ForeignWriter {
 public:
  virtual ~ForeignWriter() = default;
  // Matched remote readers: all of them, and the foreign ones (those that need the wire copy).
  // foreign_readers() is on every publish: one atomic load while the matches stay the same.
  virtual uint32_t readers() const = 0;
  virtual uint32_t foreign_readers() = 0;
  // Sends one sample (CDR, encapsulation header included) to the wire's readers.
  virtual Status<std::string> write(std::span<const uint8_t> cdr) = 0;
  virtual Guid gid() const = 0;
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
  virtual Guid gid() const = 0;
  // `fn` runs on the wire's own thread when a sample arrives: short and non-blocking.
  virtual void on_data_available(std::function<void()> fn) = 0;
};

// The DDS wire behind the interfaces (built with CycloneDDS only).
std::unique_ptr<ForeignWriter> dds_foreign_writer(DdsRawWriter writer);
std::unique_ptr<ForeignReader> dds_foreign_reader(DdsRawReader reader);

}  // namespace baton::ros2::detail
