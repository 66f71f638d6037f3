// Private to the topic layer: the mappings a publisher that left cleanly leaves behind for the
// subscribers of its own process that had not read all it published.
//
// Why: a departing publisher unlinks its segments' names, and a reader can open a segment only
// by name. A subscriber in another process maps what it needs while the publisher waits for it
// (PublisherPort's departure); one in this process may run on the very thread that destroys the
// publisher, so nobody can wait for it. Instead the publisher parks its mappings here (the same
// objects every port of the process shares, Segment::share), and such a subscriber picks them
// up when it next looks at the topic. An entry lives while a subscriber it was parked for has
// neither picked it up nor left: memory only (the names are gone from /dev/shm already).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "baton/shm/segment.hpp"
#include "baton/topic/topic_layout.hpp"

namespace baton::topic::detail {

struct DepartedMappings {
  std::shared_ptr<shm::Segment> segment;            // the publisher segment
  std::vector<std::shared_ptr<shm::Segment>> data;  // the pool's data segments, by index
};

// What a subscriber picks up: publisher slot `slot`, claim `generation`, and its mappings.
struct ParkedPublisher {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
  std::shared_ptr<const DepartedMappings> mappings;
};

class DepartedPublishers {
 public:
  // The process's one registry (never destroyed: subscribers may leave from atexit paths).
  static DepartedPublishers& instance() {
    static auto* registry = new DepartedPublishers();
    return *registry;
  }

  // Parks the mappings of publisher (`slot`, `generation`) of `topic` for the subscriber slots
  // set in `waiting`.
  void park(const std::string& topic, std::uint32_t slot, std::uint32_t generation,
            const std::array<std::uint64_t, SUB_MASK_WORDS>& waiting,
            std::shared_ptr<const DepartedMappings> mappings) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_[{topic, slot, generation}] = Entry{waiting, std::move(mappings)};
    count_.store(entries_.size(), std::memory_order_release);
  }

  // Everything parked on `topic` for subscriber slot `k`; k's claims on them end here. Cheap
  // (one atomic load) while nothing is parked: subscribers ask on every refresh.
  std::vector<ParkedPublisher> pick_up(const std::string& topic, std::uint32_t k) {
    std::vector<ParkedPublisher> out;
    if (count_.load(std::memory_order_acquire) == 0) return out;
    std::lock_guard<std::mutex> lock(mutex_);
    for_each_claim(topic, k, [&](const Key& key, const Entry& e) {
      out.push_back({std::get<1>(key), std::get<2>(key), e.mappings});
    });
    return out;
  }

  // Subscriber slot `k` of `topic` leaves: it picks up nothing more.
  void forget(const std::string& topic, std::uint32_t k) {
    if (count_.load(std::memory_order_acquire) == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    for_each_claim(topic, k, [](const Key&, const Entry&) {});
  }

 private:
  using Key = std::tuple<std::string, std::uint32_t, std::uint32_t>;  // topic, slot, generation
  struct Entry {
    std::array<std::uint64_t, SUB_MASK_WORDS> waiting{};
    std::shared_ptr<const DepartedMappings> mappings;
  };

  // Calls f on each entry of `topic` that subscriber slot k claims, then ends the claim; an entry
  // whose last claim ended is dropped (its mappings go with the last holder).
  template <typename F>
  void for_each_claim(const std::string& topic, std::uint32_t k, F&& f) {
    if (k >= MAX_SUBSCRIBERS) return;
    for (auto it = entries_.lower_bound({topic, 0, 0});
         it != entries_.end() && std::get<0>(it->first) == topic;) {
      auto& waiting = it->second.waiting;
      if ((waiting[sub_mask_word(k)] & sub_mask_bit(k)) == 0) {
        ++it;
        continue;
      }
      f(it->first, it->second);
      waiting[sub_mask_word(k)] &= ~sub_mask_bit(k);
      bool claimed = false;
      for (const auto w : waiting) claimed = claimed || w != 0;
      it = claimed ? std::next(it) : entries_.erase(it);
    }
    count_.store(entries_.size(), std::memory_order_release);
  }

  std::mutex mutex_;
  std::map<Key, Entry> entries_;
  std::atomic<std::size_t> count_{0};
};

}  // namespace baton::topic::detail
