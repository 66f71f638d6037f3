// Private to the layers above (ros1 today): the push form of the reader core. BridgedReader
// (bridged_topic.hpp) pulls: a wait wakes the front-end, which takes from the port, then from the
// wire. A wire that pushes (TCPROS: each publisher connection's thread reads a message and hands it
// on) would pay a queue and a second thread's wake-up per message to be pulled, so this form takes
// each message on the thread that pushes it and calls the sink there:
//
//   port:  the shared-memory port's reader thread pushes every sample it takes (push_shm);
//   wire:  each wire connection's thread pushes every message it reads (push_wire).
//
// The exactly-once policy is the reader core's: every writer is read on one path, shared memory for
// a writer of this domain that granted it, the wire for every other, and a sample that arrives on
// a path its writer is not read on is dropped. The front-end decides the path per writer (ROS 1:
// per connection, in requestTopic) and admits it here; this core keeps the decision and applies it
// to every sample:
//   - a port sample is delivered only when its port writer (slot, generation) is admitted on
//     shared memory: the port also carries the samples of writers this reader gets over the wire,
//     and of writers on other graphs of the same domain (counted as ignored);
//   - a writer is admitted on one path, through one connection, at a time: admitting it again (its
//     source, ROS 1's callerid, on either path) supersedes the earlier admission, whose samples
//     are dropped from then on (counted as superseded), so a writer reached both ways (listed
//     twice, re-connected, or switched between shared memory and the wire) is delivered once;
//   - the sink is called one call at a time, on the pushing thread, with the writer's source,
//     connection and per-connection sequence (the delivery accounting: received and bytes per
//     path, counted before the call so whoever the sink wakes sees it counted).
// A sample being delivered when its writer is revoked or superseded finishes.
#pragma once

#include <atomic>
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace baton::wire {

// The path a writer's samples are read on.
enum class ReadPath : uint8_t { Shm, Wire };

// A publisher on the port's baton topic: its slot and that slot's generation (RawSample's
// publisher_slot() / publisher_generation()).
struct PortWriter {
  uint32_t slot = 0, generation = 0;
  auto operator<=>(const PortWriter&) const = default;
};

// One delivered sample, in the wire's serialization.
struct PushedSample {
  std::span<const uint8_t> bytes;  // valid during the sink call only (Shm: in shared memory)
  std::string_view source;         // the writer's identity on the wire (ROS 1: its callerid)
  uint64_t connection = 0;         // the admission it came through (distinct per reader)
  uint64_t sequence = 0;           // 0, 1, 2, ... within the connection
  ReadPath path = ReadPath::Wire;
};

class PushedReader {
 public:
  using Sink = std::function<void(const PushedSample&)>;
  // One writer's admission on one path; a wire admission is held by the thread that pushes it.
  class Writer {
   public:
    Writer(uint64_t connection, std::string source, ReadPath path)
        : connection_(connection), source_(std::move(source)), path_(path) {}
    uint64_t connection() const noexcept { return connection_; }
    bool current() const noexcept { return current_.load(std::memory_order_acquire); }

   private:
    friend class PushedReader;
    const uint64_t connection_;
    const std::string source_;
    const ReadPath path_;
    PortWriter port_{};                // Shm: the port writer it is
    uint64_t sequence_ = 0;            // Shm: under mutex_; Wire: its pushing thread's alone
    std::atomic<bool> current_{true};  // false once revoked or superseded
  };
  struct Stats {
    uint64_t received = 0, bytes = 0;
  };

  explicit PushedReader(Sink sink) : sink_(std::move(sink)) {}
  PushedReader(const PushedReader&) = delete;
  PushedReader& operator=(const PushedReader&) = delete;

  // Writer `source` (its identity whichever path reads it, ROS 1: its callerid) is read through
  // shared memory from now on, as connection `connection`: the port's samples from `port` are its.
  void admit_shm(uint64_t connection, std::string source, PortWriter port) {
    auto w = std::make_shared<Writer>(connection, std::move(source), ReadPath::Shm);
    w->port_ = port;
    std::lock_guard lock(mutex_);
    supersede(w->source_);
    by_port_[port] = w;
    by_source_[w->source_] = std::move(w);
  }
  // Writer `source` is read over the wire from now on, as connection `connection`: the handle its
  // pushing thread passes to push_wire.
  std::shared_ptr<Writer> admit_wire(uint64_t connection, std::string source) {
    auto w = std::make_shared<Writer>(connection, std::move(source), ReadPath::Wire);
    std::lock_guard lock(mutex_);
    supersede(w->source_);
    by_source_[w->source_] = w;
    return w;
  }
  // Connection `connection` is no longer read (its writer is gone, or the reader stops); nothing
  // when it is not admitted (any more).
  void revoke(uint64_t connection) {
    std::lock_guard lock(mutex_);
    for (auto it = by_source_.begin(); it != by_source_.end(); ++it) {
      if (it->second->connection_ != connection) continue;
      drop(*it->second);
      by_source_.erase(it);
      return;
    }
  }

  // A sample the port took from `from`: delivered when that writer is read through shared memory,
  // after `check(source)` accepts it (false: the front-end refused it, and counts and logs that).
  // True when the sink got it.
  template <typename Check>
  bool push_shm(PortWriter from, std::span<const uint8_t> bytes, Check check) {
    std::shared_ptr<Writer> w;
    uint64_t sequence = 0;
    {
      std::lock_guard lock(mutex_);
      if (auto it = by_port_.find(from); it != by_port_.end()) {
        w = it->second;
        sequence = w->sequence_++;
      }
    }
    if (!w) {
      ignored_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    if (!check(std::string_view(w->source_))) return false;
    return deliver(*w, bytes, sequence, shm_);
  }
  // A message `writer`'s connection read: delivered while that admission is current.
  bool push_wire(Writer& writer, std::span<const uint8_t> bytes) {
    return deliver(writer, bytes, writer.sequence_++, wire_);
  }

  Stats stats(ReadPath path) const {
    const Counters& c = path == ReadPath::Shm ? shm_ : wire_;
    return {c.received.load(), c.bytes.load()};
  }
  // Port samples of writers not read through shared memory (the wire's, other graphs').
  uint64_t ignored() const noexcept { return ignored_.load(); }
  // Samples of an admission revoked or superseded while they were on their way.
  uint64_t superseded() const noexcept { return superseded_.load(); }

 private:
  struct Counters {
    std::atomic<uint64_t> received{0}, bytes{0};
  };
  // With mutex_ held.
  void supersede(const std::string& source) {
    if (auto it = by_source_.find(source); it != by_source_.end()) {
      drop(*it->second);
      by_source_.erase(it);
    }
  }
  void drop(Writer& w) {
    w.current_.store(false, std::memory_order_release);
    if (w.path_ != ReadPath::Shm) return;
    if (auto it = by_port_.find(w.port_); it != by_port_.end() && it->second.get() == &w)
      by_port_.erase(it);
  }
  bool deliver(const Writer& w, std::span<const uint8_t> bytes, uint64_t sequence, Counters& c) {
    std::lock_guard lock(sink_mutex_);
    if (!w.current()) {
      superseded_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    c.received.fetch_add(1, std::memory_order_relaxed);
    c.bytes.fetch_add(bytes.size(), std::memory_order_relaxed);
    sink_(PushedSample{bytes, w.source_, w.connection_, sequence, w.path_});
    return true;
  }

  const Sink sink_;
  std::mutex mutex_;  // guards by_source_, by_port_, the Shm writers' sequences
  std::map<std::string, std::shared_ptr<Writer>> by_source_;
  std::map<PortWriter, std::shared_ptr<Writer>> by_port_;
  std::mutex sink_mutex_;  // one sink call at a time
  Counters shm_, wire_;
  std::atomic<uint64_t> ignored_{0}, superseded_{0};
};

}  // namespace baton::wire
