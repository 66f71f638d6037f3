// Private to the layers above (ros2, rmw_baton_cpp, ros1): the bridged-endpoint core of a topic,
// written once for every front-end (ros2::Publisher / Subscription, rmw_baton_cpp's publisher /
// subscription, ros1's Publication). A bridged endpoint is a baton port + a foreign-wire endpoint
// (foreign_wire.hpp: DDS or TCPROS) + the exactly-once policy, which lives here and nowhere else:
//
//   writer: every sample goes to shared memory; the wire gets one copy only while a foreign reader
//           is matched (a same-domain reader got the loan), or always when the wire's history
//           serves late joiners (DDS transient local, a latched ROS 1 topic; same-domain readers
//           drop those samples). The wire copy is taken before the shared-memory publish consumes
//           the loan. A sample the front-end does not put in shared memory (ROS 1 with no BATONSHM
//           subscriber: nobody would read it there) goes to the wire alone, filled in place.
//   reader: shared memory first, then the wire, whose reader already skipped the samples of
//           same-domain writers (they came through shared memory). So no sample arrives twice.
//
// The writer core does not own the baton port: the ports differ (a host RawPublisher, a memory
// domain's DomainPublisher, rmw's loans at an aligned offset, ROS 1's port of ROS 1 bytes), so
// the front-end hands the shared-memory step to publish(). The reader core owns its port (a
// RawSubscription). Either core keeps its endpoint listed in ros_discovery_info while it lives
// (keep_listed) and unlists it before the wire endpoint goes, and keeps what the wire endpoint
// needs (rmw: its context's participant) until after it is gone. Both are type-erased
// (shared_ptr<void>) so the core builds without CycloneDDS too (rmw_baton_cpp then bridges to no
// wire). Neither core is thread-safe: the front-end serializes (rmw: its mutex).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>

#include "baton/api/guard_condition.hpp"
#include "baton/api/subscription.hpp"
#include "baton/common/result.hpp"
#include "foreign_wire.hpp"

namespace baton::wire {

// What publish() did: each half's error, empty when it went well (or was not needed), and the
// foreign readers the wire copy was written for (0: no copy).
struct BridgedPublish {
  std::string shm_error, wire_error;
  uint32_t wire_readers = 0;
  bool ok() const noexcept { return shm_error.empty() && wire_error.empty(); }
};

class BridgedWriter {
 public:
  // `always`: the wire's history serves late joiners (write every sample to it, see above).
  BridgedWriter(std::unique_ptr<ForeignWriter> wire, bool always,
                std::shared_ptr<void> keep_alive = {})
      : keep_alive_(std::move(keep_alive)), wire_(std::move(wire)), always_(always) {}
  ~BridgedWriter() {
    listing_.reset();
    wire_.reset();
  }
  BridgedWriter(const BridgedWriter&) = delete;
  BridgedWriter& operator=(const BridgedWriter&) = delete;

  // Publishes one sample exactly once per reader. `host_bytes()` returns the sample's wire bytes
  // readable on the host (an optional span; nullopt: they could not be had, a failed wire copy),
  // called only when the wire needs the copy; `publish_shm()` then consumes the loan and returns
  // "" or why the shared-memory publish failed. The wire copy never stops the shared-memory one.
  template <typename HostBytes, typename PublishShm>
  BridgedPublish publish(HostBytes host_bytes, PublishShm publish_shm) {
    BridgedPublish out;
    if (const auto d = decide(); d.write) {
      auto bytes = host_bytes();
      if (!bytes) {
        out.wire_error = "the sample could not be brought to host memory for the wire";
      } else {
        wrote(wire_->write(*bytes), d, out);
      }
    }
    out.shm_error = publish_shm();
    return out;
  }

  // A sample with no shared-memory side (no reader there, see above): `size` bytes that `fill`
  // writes straight into the wire's buffer, only when the wire needs the copy.
  BridgedPublish publish_wire(uint64_t size, const FillBytes& fill) {
    BridgedPublish out;
    if (const auto d = decide(); d.write) wrote(wire_->write_filled(size, fill), d, out);
    return out;
  }
  // The same for a sample whose wire bytes are in hand (the wire copies them).
  BridgedPublish publish_wire(std::span<const uint8_t> bytes) {
    BridgedPublish out;
    if (const auto d = decide(); d.write) wrote(wire_->write(bytes), d, out);
    return out;
  }

  // Keeps the endpoint listed under its node in ros_discovery_info (a DiscoveryListing) while the
  // core lives.
  void keep_listed(std::shared_ptr<void> listing) { listing_ = std::move(listing); }

  ForeignWriter& wire() noexcept { return *wire_; }
  const ForeignWriter& wire() const noexcept { return *wire_; }
  uint64_t wire_samples() const noexcept { return wire_samples_; }

 private:
  // The exactly-once decision for the next sample: how many foreign readers need its wire copy,
  // and whether it is written (some do, or always).
  struct Decision {
    uint32_t foreign = 0;
    bool write = false;
  };
  Decision decide() {
    const uint32_t foreign = wire_->foreign_readers();
    return {foreign, always_ || foreign > 0};
  }
  void wrote(const Status<std::string>& w, const Decision& d, BridgedPublish& out) {
    if (!w) {
      out.wire_error = w.error();
      return;
    }
    ++wire_samples_;
    out.wire_readers = d.foreign;
  }

  std::shared_ptr<void> keep_alive_;  // released after the wire endpoint
  std::unique_ptr<ForeignWriter> wire_;
  bool always_;
  uint64_t wire_samples_ = 0;
  std::shared_ptr<void> listing_;  // unlisted before the wire endpoint goes
};

// Matched readers on the wire that need its copy (0 without a wire).
inline uint32_t foreign_readers(BridgedWriter* bridge) {
  return bridge != nullptr ? bridge->wire().foreign_readers() : 0;
}

// Publishes through `bridge`, or on shared memory alone when the endpoint has no wire (null).
template <typename HostBytes, typename PublishShm>
BridgedPublish publish_bridged(BridgedWriter* bridge, HostBytes host_bytes,
                               PublishShm publish_shm) {
  if (bridge != nullptr) return bridge->publish(host_bytes, publish_shm);
  return BridgedPublish{publish_shm(), {}};
}

class BridgedReader {
 public:
  // `wire` null: shared memory only.
  BridgedReader(std::shared_ptr<RawSubscription> port, std::unique_ptr<ForeignReader> wire,
                std::shared_ptr<void> keep_alive = {})
      : keep_alive_(std::move(keep_alive)), port_(std::move(port)), wire_(std::move(wire)) {
    // The listener holds its own reference to the guard: it may fire until the reader is gone.
    if (wire_) wire_->on_data_available([g = wire_ready_] { g->trigger(); });
  }
  ~BridgedReader() {
    listing_.reset();
    wire_.reset();
  }
  BridgedReader(const BridgedReader&) = delete;
  BridgedReader& operator=(const BridgedReader&) = delete;

  // Takes until a sample is accepted, shared memory first, then the wire: `use_shm(RawSample&&)` /
  // `use_wire(std::vector<uint8_t>&&)` return true when they keep the sample, false to drop it and
  // look at the next. A shared-memory take error other than NoData goes to `shm_error(e)`: true
  // stops the take (returns false), false goes on to the wire. False: nothing (accepted) waits.
  template <typename UseShm, typename UseWire, typename ShmError>
  bool next(UseShm use_shm, UseWire use_wire, ShmError shm_error) {
    while (true) {
      auto sample = port_->take();
      if (sample) {
        if (use_shm(std::move(*sample))) return true;
        continue;
      }
      if (sample.error() != TakeError::NoData && shm_error(sample.error())) return false;
      break;
    }
    if (!wire_) return false;
    while (auto bytes = wire_->take()) {
      if (use_wire(std::move(*bytes))) return true;
    }
    return false;
  }

  // True while either path may have a sample; wire_has_data(): the wire alone.
  bool has_data() const { return port_->has_data() || wire_has_data(); }
  bool wire_has_data() const { return wire_ && wire_->has_data(); }
  // Matched writers on the wire that are not served through shared memory (0 without a wire).
  uint32_t foreign_writers() const { return wire_ ? wire_->foreign_writers() : 0; }
  // Raised when a wire sample arrives, and here when samples still wait from before (a trigger is
  // consumed by the wait that reports it; one arrival may leave several). Null without a wire.
  std::shared_ptr<GuardCondition> wire_guard() {
    if (!wire_) return nullptr;
    if (wire_->has_data()) wire_ready_->trigger();
    return wire_ready_;
  }

  void keep_listed(std::shared_ptr<void> listing) { listing_ = std::move(listing); }

  const std::shared_ptr<RawSubscription>& port() const noexcept { return port_; }
  ForeignReader* wire() const noexcept { return wire_.get(); }

 private:
  std::shared_ptr<void> keep_alive_;  // released after the wire endpoint
  std::shared_ptr<RawSubscription> port_;
  std::shared_ptr<GuardCondition> wire_ready_ = std::make_shared<GuardCondition>();
  std::unique_ptr<ForeignReader> wire_;
  std::shared_ptr<void> listing_;
};

}  // namespace baton::wire
