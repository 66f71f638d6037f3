// _baton.RecordTaker and _baton.create_record_subscription: the recorder's side of a topic.
//
// An executor wakes its thread and runs one Python callback per message. On the 2-vCPU guest
// these figures come from, the wake-up alone (futex, scheduler) cost the recorder's process ~20
// us of CPU per message whether Python or C++ woke, more than writing a 64 B message (~5 us). A
// RecordTaker waits on its subscriptions in C++ with the GIL released, takes messages in place
// and keeps their loans (the sample stays where the publisher wrote it: zero-copy), gives each
// message its log time (the publisher's source timestamp where it stamps one, else the time it
// is taken), and take_batch() returns them to Python together: once
// `max_count` are taken, `linger` seconds after the first, as soon as a subscription holds all
// the loans it may (MAX_LOANS_PER_SUBSCRIBER: Python then writes or copies them before the
// publisher's ring laps the subscription), or after `timeout` with none.
//
// While a batch lingers, the taker sleeps instead of waking per message wherever that is safe
// (and where the streams bring two messages or more per linger, it sleeps before the first one
// too, so a batch costs one wake-up):
// each subscription knows how many messages its ring holds (`capacity`: the least of its own
// depth and its publishers') and the rate they came at over the last RATE_WINDOW_NS (taken plus
// lost, so a lapped subscription counts as fast). It sleeps at most the time half a ring takes
// to fill at the fastest of them, then takes what came; a subscription whose rate is not known
// yet (the first window), or one so fast that half its ring fills within SLEEP_MIN_NS, is waited
// on (a wake-up per message) instead. Sleeping, an unstamped message's log time is when it was
// taken: at most that sleep, so at most `linger`, after it was published. Streams that together are
// not expected to bring a second message within `linger` (a 30 Hz camera) are not batched at all:
// each message goes to Python as it comes, its log time exact.
#include "py_record.hpp"

#include <nanobind/stl/shared_ptr.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "baton/baton.hpp"
#include "baton/shm/clock.hpp"
#include "py_sample.hpp"
#include "py_util.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace baton::py {
namespace {

// A recorded topic's subscription: taken by a RecordTaker, never by an executor (no callback).
class RecordSubscription : public SubscriptionBase {
 public:
  RecordSubscription(std::unique_ptr<topic::SubscriberPort> port, std::uint32_t topic_id,
                     std::uint32_t capacity)
      : topic_id_(topic_id), capacity_(std::max<std::uint32_t>(1, capacity)) {
    port_ = std::move(port);
  }
  bool has_data() override { return port_->has_data(); }
  bool has_callback() const override { return false; }
  bool execute_one() override { return false; }
  std::uint32_t topic_id() const { return topic_id_; }
  std::uint32_t capacity() const { return capacity_; }

  // The longest sleep after which at most half of the ring can have filled (-1: unknown).
  std::int64_t safe_sleep_ns() const {
    if (!rate_known_) return -1;
    if (rate_hz_ <= 0) return std::numeric_limits<std::int64_t>::max();
    return static_cast<std::int64_t>(capacity_ / 2.0 / rate_hz_ * 1e9);
  }
  // The messages taken (and lost) in a window of `window_ns`: the rate later batches plan
  // with (a quiet window does not lower it below half the previous one).
  void note_rate(std::int64_t window_ns) {
    const std::uint64_t lost = port_->lost();
    const std::uint64_t count = window_taken + (lost - lost_seen_);
    lost_seen_ = lost;
    window_taken = 0;
    const double rate = static_cast<double>(count) * 1e9 / static_cast<double>(window_ns);
    rate_hz_ = rate_known_ ? std::max(rate, rate_hz_ / 2) : rate;
    rate_known_ = true;
  }
  bool rate_known() const { return rate_known_; }
  double rate_hz() const { return rate_hz_; }
  std::uint64_t window_taken = 0;  // since the rate window began

 private:
  std::uint32_t topic_id_;
  std::uint32_t capacity_;
  double rate_hz_ = 0;
  bool rate_known_ = false;
  std::uint64_t lost_seen_ = 0;
};

class RecordTaker {
 public:
  RecordTaker() { (void)waits_.add_guard_condition(interrupt_); }

  void add(std::shared_ptr<RecordSubscription> s) {
    nb::gil_scoped_release release;
    interrupt_->trigger();  // a take_batch waiting on another thread lets go of the wait set
    std::lock_guard<std::mutex> lock(mutex_);
    (void)interrupt_->take_trigger();  // no take_batch waits now: the next one need not return
    if (auto r = waits_.add_subscription(s); !r) {
      nb::gil_scoped_acquire gil;
      raise_error("WaitSet", "a recorder takes at most " +
                                 std::to_string(WaitSet::MAX_ENTITIES - 1) + " topics");
    }
    subs_.push_back(std::move(s));
  }
  bool remove(const RecordSubscription& s) {
    nb::gil_scoped_release release;
    interrupt_->trigger();
    std::lock_guard<std::mutex> lock(mutex_);
    (void)interrupt_->take_trigger();
    std::erase_if(subs_, [&s](const auto& p) { return p.get() == &s; });
    return waits_.remove_subscription(s);
  }
  // Makes a take_batch waiting now (or else the next one) return at once.
  void interrupt() { interrupt_->trigger(); }

  // [(topic_id, log_time_ns, baton.Sample), ...] in the order taken; [] after `timeout` s.
  nb::list take_batch(double timeout_s, double linger_s, std::size_t max_count) {
    std::vector<Taken> batch;
    {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      fill(to_ns(timeout_s), to_ns(std::max(0.0, linger_s)), std::max<std::size_t>(1, max_count));
      batch.swap(taken_);
    }
    nb::list out;
    for (Taken& t : batch) {
      nb::object sample =
          nb::cast(new PySample(std::move(t.sample), true), nb::rv_policy::take_ownership);
      out.append(nb::make_tuple(t.topic_id, t.log_time, sample));
    }
    return out;
  }

 private:
  struct Taken {
    std::uint32_t topic_id;
    std::uint64_t log_time;
    topic::TakenSample sample;
  };

  static std::int64_t to_ns(double s) { return s < 0 ? -1 : static_cast<std::int64_t>(s * 1e9); }

  // Under mutex_, GIL released.
  void fill(std::int64_t timeout_ns, std::int64_t linger_ns, std::size_t max_count) {
    const std::int64_t start = shm::monotonic_ns();
    std::int64_t until = timeout_ns < 0 ? -1 : start + timeout_ns;
    std::int64_t wait_ns = timeout_ns;
    bool full = false;
    // Streams fast enough to bring a batch within the linger: sleep first, then take, with no
    // wake-up for the first message either (one wake-up per batch). Not after a batch that
    // ended full: messages wait already (the writer is behind, holding loans), take them now.
    const std::int64_t safe = safe_sleep_ns();
    const bool behind = last_full_;
    last_full_ = false;
    if (!behind && expected_within(linger_ns) >= 2.0 && safe >= SLEEP_MIN_NS &&
        (timeout_ns < 0 || linger_ns <= timeout_ns)) {
      first_ = start;
      std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(safe, linger_ns)));
      for (auto& sub : subs_) full = take_all(*sub, max_count) || full;
      last_full_ = full || taken_.size() >= max_count;
      if (!taken_.empty()) return end_batch();
      wait_ns = until < 0 ? -1 : std::max<std::int64_t>(0, until - shm::monotonic_ns());
    }
    while (true) {  // waiting: for the first message, or per message where sleeping is unsafe
      waits_.wait(std::chrono::nanoseconds(wait_ns), result_);
      if (!result_.guard_conditions.empty()) return;  // interrupt()
      const bool was_empty = taken_.empty();
      for (SubscriptionBase* s : result_.subscriptions) {
        full = take_all(*static_cast<RecordSubscription*>(s), max_count) || full;
      }
      if (full || taken_.size() >= max_count) {
        last_full_ = true;
        break;
      }
      std::int64_t now = shm::monotonic_ns();
      if (was_empty && !taken_.empty()) {
        first_ = now;
        // Streams too slow to bring another message within the linger: no batch to wait for
        const std::int64_t linger = expected_within(linger_ns) < 1.0 ? 0 : linger_ns;
        until = until < 0 ? now + linger : std::min(until, now + linger);
      }
      if (until >= 0 && now >= until) break;
      const std::int64_t sleep_ns = safe_sleep_ns();
      if (!taken_.empty() && sleep_ns >= SLEEP_MIN_NS) {  // lingering: sleep, then take
        while (!full && taken_.size() < max_count && now < until) {
          std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(sleep_ns, until - now)));
          for (auto& sub : subs_) full = take_all(*sub, max_count) || full;
          now = shm::monotonic_ns();
        }
        last_full_ = full || taken_.size() >= max_count;
        break;
      }
      wait_ns = until < 0 ? -1 : until - now;
    }
    end_batch();
  }

  // Counts the batch into the rate window; closes the window once it is long enough.
  void end_batch() {
    const std::int64_t end = shm::monotonic_ns();
    if (window_start_ == 0) {
      if (taken_.empty()) return;
      window_start_ = first_;
    }
    if (end - window_start_ >= RATE_WINDOW_NS) {
      for (auto& sub : subs_) sub->note_rate(end - window_start_);
      window_start_ = end;
    }
  }

  // Messages all subscriptions are expected to bring within `ns` (infinite while a rate is not
  // known yet).
  double expected_within(std::int64_t ns) const {
    double rate = 0;
    for (const auto& sub : subs_) {
      if (!sub->rate_known()) return std::numeric_limits<double>::infinity();
      rate += sub->rate_hz();
    }
    return rate * static_cast<double>(ns) / 1e9;
  }

  // The longest every subscription's ring allows (-1: one's rate is not known yet).
  std::int64_t safe_sleep_ns() const {
    std::int64_t out = std::numeric_limits<std::int64_t>::max();
    for (const auto& sub : subs_) {
      const std::int64_t s = sub->safe_sleep_ns();
      if (s < 0) return -1;
      out = std::min(out, s);
    }
    return out;
  }

  // Takes what `s` has; true if it holds all the loans it may (the batch must go now).
  bool take_all(RecordSubscription& s, std::size_t max_count) {
    while (taken_.size() < max_count) {
      auto r = s.port().take();
      if (!r) return r.error() == TakeError::TooManyLoans;
      const std::uint64_t log_time = log_time_of(*r);
      taken_.push_back(Taken{s.topic_id(), log_time, std::move(*r)});
      ++s.window_taken;
    }
    return false;
  }

  // The publisher's stamp (PublisherOptions::source_timestamps: the system clock at publish,
  // the clock of realtime_ns() here) where it stamped, so a batched message's log time is when
  // it was published, not when the taker came by; else the take time. A stamp later than the
  // take is not a publish time (shared memory is not trusted): the take time then.
  static std::uint64_t log_time_of(const topic::TakenSample& sample) {
    const std::uint64_t now = realtime_ns();
    const std::int64_t stamp = sample.source_timestamp_ns();
    return stamp > 0 && static_cast<std::uint64_t>(stamp) <= now ? static_cast<std::uint64_t>(stamp)
                                                                 : now;
  }

  // Below this a sleep saves too few wake-ups to be worth a late log time.
  static constexpr std::int64_t SLEEP_MIN_NS = 1'000'000;
  // Rates are counted over at least this long (over one batch they jump: a message that waited
  // while Python wrote the previous batch looks like a 1 kHz stream).
  static constexpr std::int64_t RATE_WINDOW_NS = 200'000'000;

  std::mutex mutex_;  // the wait set: take_batch's thread vs add / remove on another
  std::shared_ptr<GuardCondition> interrupt_ = std::make_shared<GuardCondition>();
  WaitSet waits_;
  WaitResult result_;
  std::vector<std::shared_ptr<RecordSubscription>> subs_;
  std::vector<Taken> taken_;
  std::int64_t window_start_ = 0;  // monotonic start of the rate window (0: no message yet)
  std::int64_t first_ = 0;         // when this batch's first message was taken
  bool last_full_ = false;         // the previous batch ended at the loan limit or max_count
};

std::shared_ptr<RecordSubscription> create_record_subscription(
    Node& node, const std::string& topic_name, const std::string& type_name,
    const std::string& hash_hex, const QoS& qos, std::uint32_t topic_id, std::uint32_t capacity) {
  return open_subscription<RecordSubscription>(node, topic_name, type_name, "", hash_hex, qos,
                                               WaitMode::Blocking, topic_id, capacity);
}

}  // namespace

void bind_record(nb::module_& m) {
  nb::class_<RecordSubscription, SubscriptionBase>(m, "RecordSubscription")
      .def_prop_ro("topic_id", &RecordSubscription::topic_id)
      .def_prop_ro("capacity", &RecordSubscription::capacity)
      .def_prop_ro("lost", [](RecordSubscription& s) { return s.port().lost(); })
      .def_prop_ro("publisher_count",
                   [](RecordSubscription& s) { return s.port().publisher_count(); })
      .def_prop_ro("topic_name", [](RecordSubscription& s) { return s.port().topic().name(); });

  nb::class_<RecordTaker>(m, "RecordTaker")
      .def(nb::init<>())
      .def("add", &RecordTaker::add, "subscription"_a)
      .def("remove", &RecordTaker::remove, "subscription"_a)
      .def("interrupt", &RecordTaker::interrupt)
      .def("take_batch", &RecordTaker::take_batch, "timeout"_a, "linger"_a = 0.0,
           "max_count"_a = 256,
           nb::sig("def take_batch(self, timeout: float, linger: float = 0.0, max_count: int = 256)"
                   " -> list[tuple[int, int, Sample]]"));

  m.def("create_record_subscription", &create_record_subscription, "node"_a, "topic"_a,
        "type_name"_a, "type_hash"_a, "qos"_a, "topic_id"_a, "capacity"_a,
        "A best-effort, raw subscription for a RecordTaker (the recorder's; no callback).");
}

}  // namespace baton::py
