#include "baton/topic/domain_publisher.hpp"

#include "baton/memory/domain/domain_registry.hpp"
#include "baton/topic/domain_subscriber.hpp"

namespace baton::topic {

DeviceLoan& DeviceLoan::operator=(DeviceLoan&& o) noexcept {
  if (this != &o) {
    reset();
    owner_ = o.owner_;
    chunk_ = o.chunk_;
    view_ = o.view_;
    pin_ = std::move(o.pin_);
    has_pin_ = o.has_pin_;
    host_written_ = o.host_written_;
    capacity_ = o.capacity_;
    payload_offset_ = o.payload_offset_;
    o.owner_ = nullptr;
    o.view_ = {};
    o.has_pin_ = false;
  }
  return *this;
}

void DeviceLoan::reset() noexcept {
  if (owner_ != nullptr) owner_->discard(*this);
  owner_ = nullptr;
}

void DomainPublisher::discard(DeviceLoan& loan) noexcept {
  backend_->release_view(loan.view_);
  if (loan.has_pin_) table_->discard_unpublished(loan.pin_);
  loan.has_pin_ = false;
  port_->discard(loan.chunk_);
  loan.chunk_ = {};
}

Result<std::unique_ptr<DomainPublisher>, Error<PublisherCreateError>> DomainPublisher::create(
    std::shared_ptr<Topic> topic, const PublisherOptions& options,
    const memory::domain::DomainSpec& domain) {
  using E = Error<PublisherCreateError>;
  auto backend = memory::domain::open_domain(domain);
  if (!backend) {
    return unexpected(E{PublisherCreateError::SegmentFailure,
                        domain.str() + " unavailable: " + backend.error().detail});
  }
  auto port = PublisherPort::create(topic, options);
  if (!port) return unexpected(port.error());
  std::unique_ptr<DomainPublisher> p(new DomainPublisher());
  p->port_ = std::move(*port);
  p->backend_ = std::move(*backend);
  const std::uint32_t slot = p->port_->slot();
  // The port's topic, not `topic`: the port may have reopened it (Topic::claim_publisher_slot).
  const Topic& attached = p->port_->topic();
  const std::uint32_t gen =
      attached.publisher_slot(slot)->generation.load(std::memory_order_acquire);
  auto table = memory::domain::DomainTable::open_or_create(domain_table_name(attached, slot, gen),
                                                           options.depth);
  if (!table) return unexpected(E{PublisherCreateError::SegmentFailure, table.error().detail});
  p->table_ = std::move(*table);
  auto index = p->table_->register_domain(p->backend_);
  if (!index) return unexpected(E{PublisherCreateError::SegmentFailure, index.error().detail});
  p->domain_ = *index;
  return p;
}

DomainPublisher::~DomainPublisher() {
  if (table_) memory::domain::DomainTable::unlink(table_->name());
}

Result<DeviceLoan, LoanError> DomainPublisher::loan(std::uint64_t size,
                                                    std::uint64_t payload_offset) noexcept {
  if (payload_offset > UINT64_MAX / 2 || size > UINT64_MAX / 2)
    return unexpected(LoanError::TooLarge);
  // The loan covers the chunk from its start: the domain copy has the host chunk's layout.
  const std::uint64_t total = payload_offset + size;
  auto chunk = port_->loan(total);
  if (!chunk) return unexpected(chunk.error());
  DeviceLoan l;
  l.owner_ = this;
  l.chunk_ = *chunk;
  l.capacity_ = size;
  l.payload_offset_ = payload_offset;
  if (backend_->zero_copy_from_host()) {
    auto v = backend_->wrap_host(chunk->data, total);   // the chunk is the device memory
    if (!v) return unexpected(LoanError::OutOfMemory);  // ~DeviceLoan returns the chunk
    l.view_ = *v;
    return l;
  }
  auto pin = table_->allocate_for_publish(domain_, total);
  if (!pin) return unexpected(LoanError::OutOfMemory);
  l.pin_ = *pin;
  l.has_pin_ = true;
  auto v = backend_->view(pin->pool, pin->offset, total);
  if (!v) return unexpected(LoanError::OutOfMemory);
  l.view_ = *v;
  return l;
}

bool DomainPublisher::upload(DeviceLoan& loan, std::uint64_t offset, std::uint64_t n) noexcept {
  if (loan.owner_ != this) return false;
  const std::uint64_t total = loan.payload_offset_ + loan.capacity_;
  if (offset > total || n > total - offset) return false;
  if (!loan.has_pin_ || n == 0) return true;  // host memory is the domain's: nothing to copy
  return backend_
      ->copy_from_host(loan.pin_.pool, loan.pin_.offset + offset, loan.chunk_.data + offset, n)
      .has_value();
}

bool DomainPublisher::write_host(DeviceLoan& loan, std::uint64_t size) noexcept {
  if (loan.owner_ != this || size > loan.capacity_) return false;
  if (!loan.has_pin_ || loan.host_written_) return true;  // chunk is the domain memory / written
  const std::uint64_t total = loan.payload_offset_ + size;
  if (!backend_->copy_to_host(loan.chunk_.data, loan.pin_.pool, loan.pin_.offset, total))
    return false;
  table_->count_copy(0, total);
  loan.host_written_ = true;
  return true;
}

Status<PublishError> DomainPublisher::publish(DeviceLoan&& loan, std::uint64_t size) noexcept {
  if (loan.owner_ != this) return unexpected(PublishError::InvalidLoan);
  if (size > loan.capacity_) return unexpected(PublishError::SizeTooLarge);
  backend_->release_view(loan.view_);
  const std::uint64_t seq = port_->sequence();
  const std::uint64_t total = loan.payload_offset_ + size;  // what copies move (from the start)
  if (loan.has_pin_) {
    loan.pin_.size = total;
    // Write the host chunk now for subscribers that know nothing of domains (they read it
    // directly), and for domain readers in other processes when this domain's copies are per
    // process: they could not reach this copy to bring the host bytes up to date later.
    const std::uint64_t readers = table_->reader_mask();
    bool plain_reader = false;  // an active subscriber that is not a domain reader
    port_->topic().for_each_active_subscriber([&](std::uint32_t k) {
      if (k >= 64 || (readers & (1ull << k)) == 0) plain_reader = true;
    });
    const bool eager = loan.host_written_ || plain_reader ||
                       (!backend_->can_export() && table_->readers_elsewhere());
    if (eager && !write_host(loan, size)) {
      return unexpected(PublishError::InvalidLoan);  // ~DeviceLoan returns both
    }
    if (!table_->attach_published(loan.pin_, seq, !eager)) {
      return unexpected(PublishError::InvalidLoan);
    }
    loan.has_pin_ = false;  // the row holds it now
  }
  auto r = port_->publish(loan.chunk_, size, loan.payload_offset_);
  if (!r) {
    table_->detach(seq);
    if (r.error() != PublishError::ReliableTimeout) port_->discard(loan.chunk_);
  }
  loan.chunk_ = {};
  loan.owner_ = nullptr;
  return r;
}

}  // namespace baton::topic
