// baton-floor-handoff: what the shape of a zero-copy hand-off costs on this machine, with
// nothing else of a middleware around it (issue 20: busy-poll one-way within 2x the cache-line
// floor). Parent and forked child ping-pong through one MAP_SHARED mapping holding, per
// direction, a ring of 16-byte rows (sequence number, chunk index), K chunks (a control line and
// a payload line each) and the subscriber's own line. Each side publishes into the next chunk and
// takes what the other published, busy-polling; one-way latency = RTT / 2.
//
//   --shape row       the row only: the floor of a ring whose rows are 16 bytes (4 per line)
//   --shape payload   row, then the payload line it names: any design with a separate payload
//   --shape refs      baton's take today: the subscriber pins the chunk with an RMW on its control
//                     line (which the publisher wrote: sequence number, size) and drops it on
//                     release; the publisher takes its own reference at the loan and drops it at
//                     eviction, and the subscriber stores its cursor (seq_cst) per take
//   --shape hazard    publisher-side reference accounting: the publisher writes size and sequence
//                     number into the row, the subscriber announces the chunk it holds and its
//                     cursor in its own line (one seq_cst store), re-reads the row to confirm,
//                     reads the payload and clears the announcement on release; the publisher
//                     reads the subscriber's line only when it reuses a chunk, after publishing
//
// Sizes play no part (one payload line is written and read): reported at 64 B like the floors.
#include <atomic>
#include <cstdint>
#include <string>

#include "bench/floors/pingpong_harness.hpp"

namespace pp = baton::bench::pp;

namespace {

constexpr std::uint32_t kRing = 16;    // rows per direction
constexpr std::uint32_t kChunks = 18;  // ring + 2, as a reserving baton publisher
constexpr std::uint64_t kPub = 1;      // the publisher's reference bit
constexpr std::uint64_t kSub = 2;      // the subscriber's
constexpr std::uint32_t kNone = ~0u;

struct Row {
  std::atomic<std::uint64_t> seq;
  std::atomic<std::uint32_t> chunk;
  std::atomic<std::uint32_t> size;  // hazard shape: the metadata travels in the row
};
static_assert(sizeof(Row) == 16);

struct alignas(64) Control {
  std::atomic<std::uint64_t> refs;
  std::atomic<std::uint64_t> seq;
  std::atomic<std::uint64_t> size;
};

struct alignas(64) Payload {
  std::atomic<std::uint64_t> word[8];
};

// The subscriber's own line: its cursor, and (hazard shape) the chunk it holds.
struct alignas(64) SubscriberLine {
  std::atomic<std::uint64_t> cursor;
  std::atomic<std::uint32_t> held;
};

struct Direction {
  alignas(64) Row rows[kRing];
  Control control[kChunks];
  Payload payload[kChunks];
  SubscriberLine sub;
};

struct Shared {
  Direction ping;  // parent -> child
  Direction pong;  // child -> parent
};

inline void cpu_relax() { __builtin_ia32_pause(); }

enum class Shape { Row, Payload, Refs, Hazard };

Shape parse_shape(const std::string& s) {
  if (s == "row") return Shape::Row;
  if (s == "payload") return Shape::Payload;
  if (s == "refs") return Shape::Refs;
  if (s == "hazard") return Shape::Hazard;
  pp::die("--shape: row, payload, refs or hazard, not '" + s + "'");
}

// One side's private state as the publisher of `out` and the subscriber of `in`.
class Side {
 public:
  Side(Shape shape, Direction* out, Direction* in) : shape_(shape), out_(out), in_(in) {
    in_->sub.held.store(kNone, std::memory_order_relaxed);
  }

  void publish(std::uint64_t seq) {
    const std::uint32_t c = static_cast<std::uint32_t>(seq % kChunks);
    Row& row = out_->rows[seq % kRing];
    if (shape_ == Shape::Refs) {
      Control& ctl = out_->control[c];
      ctl.refs.store(kPub, std::memory_order_relaxed);  // the loan: free chunks have refs == 0
      ctl.size.store(64, std::memory_order_relaxed);
      ctl.seq.store(seq, std::memory_order_relaxed);
    }
    if (shape_ != Shape::Row) out_->payload[c].word[0].store(seq, std::memory_order_relaxed);
    row.chunk.store(c, std::memory_order_relaxed);
    row.size.store(64, std::memory_order_relaxed);
    row.seq.store(seq, std::memory_order_release);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // baton's wake check (sleeper-dekker)
    // Bookkeeping after the message is visible, off the subscriber's critical path.
    if (shape_ == Shape::Refs && seq > kRing) {  // sequence numbers start at 1
      const std::uint32_t evicted = static_cast<std::uint32_t>((seq - kRing) % kChunks);
      if (out_->control[evicted].refs.fetch_and(~kPub, std::memory_order_acq_rel) != kPub) {
        pp::die("refs: the subscriber still held an evicted chunk");  // not in a ping-pong
      }
    }
    if (shape_ == Shape::Hazard) {
      // The next loan's chunk may be reused only if the subscriber does not announce it.
      const std::uint32_t next = static_cast<std::uint32_t>((seq + 1) % kChunks);
      if (out_->sub.held.load(std::memory_order_seq_cst) == next) pp::die("hazard: next held");
    }
  }

  std::uint64_t take(std::uint64_t seq) {
    Row& row = in_->rows[seq % kRing];
    while (row.seq.load(std::memory_order_acquire) != seq) cpu_relax();
    const std::uint32_t c = row.chunk.load(std::memory_order_relaxed);
    if (c >= kChunks) pp::die("row names no chunk");
    std::uint64_t got = seq;
    switch (shape_) {
      case Shape::Row:
        break;
      case Shape::Payload:
        got = in_->payload[c].word[0].load(std::memory_order_relaxed);
        break;
      case Shape::Refs: {
        Control& ctl = in_->control[c];
        ctl.refs.fetch_or(kSub, std::memory_order_acq_rel);  // pin
        if (ctl.seq.load(std::memory_order_acquire) != seq) pp::die("refs: chunk moved");
        got = in_->payload[c].word[0].load(std::memory_order_relaxed);
        in_->sub.cursor.store(seq + 1, std::memory_order_seq_cst);
        ctl.refs.fetch_and(~kSub, std::memory_order_acq_rel);  // release
        break;
      }
      case Shape::Hazard: {
        in_->sub.held.store(c, std::memory_order_relaxed);
        in_->sub.cursor.store(seq + 1, std::memory_order_seq_cst);  // one fence for both
        if (row.seq.load(std::memory_order_acquire) != seq) pp::die("hazard: chunk moved");
        got = in_->payload[c].word[0].load(std::memory_order_relaxed);
        in_->sub.held.store(kNone, std::memory_order_release);  // release
        break;
      }
    }
    return got;
  }

 private:
  Shape shape_;
  Direction* out_;
  Direction* in_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string shape_name = "hazard";
  pp::ProgramInfo info;
  info.program = "baton-floor-handoff";
  info.system = "floor-handoff";
  info.description =
      "Busy-polling zero-copy hand-off shapes between a process and its forked child, with no\n"
      "middleware around them: row only, row + payload, baton's reference bits, hazard-style\n"
      "publisher-side accounting (see the source's header).";
  info.modes = {"busy-poll"};
  info.size_independent = true;
  info.uses_payload_work = false;
  info.extra = {{"shape", "S", "row | payload | refs | hazard (default hazard)", &shape_name}};
  return pp::run_floor<Shared>(
      info, argc, argv, 120,
      [&](Shared* sh, std::uint64_t total) {
        Side side(parse_shape(shape_name), &sh->pong, &sh->ping);
        for (std::uint64_t i = 1; i <= total; ++i) side.publish(side.take(i));
        return 0;
      },
      [&](Shared* sh, std::uint64_t i) {
        static Side side(parse_shape(shape_name), &sh->ping, &sh->pong);
        side.publish(i);
        if (side.take(i) != i) pp::die("echo answered another number");
        pp::echo_alive();
      });
}
