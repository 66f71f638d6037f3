// Publishers: Publisher<T> for fixed-size message types, RawPublisher for sized byte loans.
//
// Ownership contract: a Loan *borrows* a chunk of shared memory from the publisher's pool.
// publish(std::move(loan)) *consumes* it; a loan destroyed unpublished goes back to the pool.
// A loan is valid until published or destroyed, and keeps its publisher's memory alive.
// A publisher is used by one thread at a time (loans may be filled on any thread).
#pragma once

#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "baton/api/endpoint_error.hpp"
#include "baton/api/message_traits.hpp"
#include "baton/api/qos.hpp"
#include "baton/shm/participant.hpp"
#include "baton/topic/publisher_port.hpp"

namespace baton {

namespace detail {
struct PublisherImpl {
  std::unique_ptr<topic::PublisherPort> port;
  QoS qos;
  std::shared_ptr<void> graph_handle;  // the graph registration; null without discovery
};
}  // namespace detail

using memory::ReserveError;
using topic::LoanError;
using topic::PublishError;

// A writable loan of `capacity` bytes.
class RawLoan {
 public:
  RawLoan() = default;
  RawLoan(RawLoan&& o) noexcept { *this = std::move(o); }
  RawLoan& operator=(RawLoan&& o) noexcept {
    if (this != &o) {
      reset();
      impl_ = std::move(o.impl_);
      chunk_ = o.chunk_;
      o.chunk_ = {};
    }
    return *this;
  }
  ~RawLoan() { reset(); }

  std::byte* data() const noexcept { return chunk_.data; }
  std::uint64_t capacity() const noexcept { return chunk_.capacity; }
  bool valid() const noexcept { return chunk_.data != nullptr; }

 private:
  friend class RawPublisher;
  template <Message T>
  friend class Loan;
  template <Message T>
  friend class Publisher;
  void reset() noexcept {
    if (impl_ && chunk_.data != nullptr) impl_->port->discard(chunk_);
    chunk_ = {};
    impl_.reset();
  }
  std::shared_ptr<detail::PublisherImpl> impl_;
  topic::ChunkLoan chunk_;
};

class RawPublisher {
 public:
  RawPublisher() = default;
  explicit RawPublisher(std::shared_ptr<detail::PublisherImpl> impl) : impl_(std::move(impl)) {}

  // Borrows at least `size` bytes (uninitialised).
  [[nodiscard]] Result<RawLoan, LoanError> loan(std::uint64_t size) noexcept {
    // The chunk is written straight into the loan inside the Result returned: no copy of it
    // out through the stack (see PublisherPort::try_loan; ~8 ns of a ~83 ns publish-and-take).
    Result<RawLoan, LoanError> out = unexpected(LoanError::OutOfMemory);
    RawLoan& l = out.emplace();
    LoanError error{};
    if (!impl_->port->try_loan(size, &l.chunk_, &error)) {
      out = unexpected(error);
      return out;
    }
    l.impl_ = impl_;
    return out;
  }
  // Publishes the first `size` bytes of the loan (or the `size` bytes from `offset` on: see
  // PublisherPort::publish); consumes it.
  [[nodiscard]] Status<PublishError> publish(RawLoan&& loan, std::uint64_t size,
                                             std::uint64_t offset = 0) noexcept {
    if (loan.impl_ != impl_) return unexpected(PublishError::InvalidLoan);
    auto r = impl_->port->publish(loan.chunk_, size, offset);
    // Consumed either way: a timed-out publish already returned the chunk; any other error
    // means it was never published, so it goes back to the pool here.
    if (!r && r.error() != PublishError::ReliableTimeout) impl_->port->discard(loan.chunk_);
    loan.chunk_ = {};
    loan.impl_.reset();
    return r;
  }
  // Convenience: one copy from `bytes` into a loan, then publish.
  [[nodiscard]] Status<PublishError> publish_copy(const void* bytes, std::uint64_t size) noexcept {
    auto l = loan(size);
    if (!l) return unexpected(PublishError::InvalidLoan);
    std::memcpy(l->data(), bytes, size);
    return publish(std::move(*l), size);
  }

  // Makes room now for `count` messages of up to `max_message_size` bytes, so the next `count`
  // loans of any size up to that never grow the pool or run into max_pool_bytes, and their
  // first writes take no page faults. Messages under 1 MiB are committed in /dev/shm now; of
  // larger ones the first, the rest as loans first need them (after a publish, off the next
  // loan's path), so a stream whose readers keep up uses one chunk's memory, not `count`
  // (ChunkPool::reserve). Without it a publisher grows on demand, one chunk at a time. For a
  // ring of depth d a fixed-size stream needs d + 2 (the ring, the loan being filled, a sample
  // a reader holds); more if readers keep samples. Returns the chunks added. Cold path: call it
  // at start-up (or use the builder's reserve()). Errors name the limit (max_message_size,
  // max_pool_bytes) or /dev/shm; a /dev/shm that fills up later is a loan's OutOfMemory.
  Result<std::uint32_t, Error<ReserveError>> reserve(std::uint64_t max_message_size,
                                                     std::uint32_t count) {
    return impl_->port->reserve(max_message_size, count);
  }

  std::uint32_t subscription_count() const { return impl_->port->subscriber_count(); }
  const std::string& topic_name() const { return impl_->port->topic().name(); }
  const QoS& qos() const { return impl_->qos; }
  topic::PublisherPort& port() { return *impl_->port; }

 protected:
  std::shared_ptr<detail::PublisherImpl> impl_;
};

// A loan holding a T constructed in shared memory.
template <Message T>
class Loan {
 public:
  Loan() = default;
  explicit Loan(RawLoan raw) : raw_(std::move(raw)) {}
  T* get() const noexcept { return reinterpret_cast<T*>(raw_.data()); }
  T* operator->() const noexcept { return get(); }
  T& operator*() const noexcept { return *get(); }
  bool valid() const noexcept { return raw_.valid(); }

 private:
  template <Message U>
  friend class Publisher;
  RawLoan raw_;
};

template <Message T>
class Publisher : public RawPublisher {
 public:
  Publisher() = default;
  explicit Publisher(std::shared_ptr<detail::PublisherImpl> impl) : RawPublisher(std::move(impl)) {}

  // Pays for `count` messages of T now (see RawPublisher::reserve).
  using RawPublisher::reserve;
  Result<std::uint32_t, Error<ReserveError>> reserve(std::uint32_t count) {
    return RawPublisher::reserve(sizeof(T), count);
  }

  // A loan with a value-initialised T.
  [[nodiscard]] Result<Loan<T>, LoanError> loan() noexcept {
    auto l = loan_uninit();
    if (l) new (l->get()) T{};
    return l;
  }
  // A loan whose bytes are whatever the chunk held: write every field before publishing.
  [[nodiscard]] Result<Loan<T>, LoanError> loan_uninit() noexcept {
    auto raw = RawPublisher::loan(sizeof(T));
    if (!raw) return unexpected(raw.error());
    return Loan<T>(std::move(*raw));
  }
  [[nodiscard]] Status<PublishError> publish(Loan<T>&& loan) noexcept {
    return RawPublisher::publish(std::move(loan.raw_), sizeof(T));
  }
  // One copy of `msg` into shared memory.
  [[nodiscard]] Status<PublishError> publish(const T& msg) noexcept {
    return publish_copy(&msg, sizeof(T));
  }
  // Unique ownership (intra-process): see topic/intra_process.hpp.
  [[nodiscard]] Status<PublishError> publish(std::unique_ptr<T> msg) {
    const topic::Topic& t = impl_->port->topic();
    auto queues = t.intra().template live<T>();
    if (!queues.empty() && t.all_subscribers_in_this_process(queues.size())) {
      for (std::size_t i = 0; i + 1 < queues.size(); ++i) {
        queues[i]->push(std::make_unique<T>(*msg));
      }
      queues.back()->push(std::move(msg));
      return Ok{};
    }
    return publish(*msg);
  }
};

}  // namespace baton
