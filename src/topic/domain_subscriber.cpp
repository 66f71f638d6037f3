#include "baton/topic/domain_subscriber.hpp"

#include <algorithm>

#include "baton/memory/domain/domain_registry.hpp"

namespace baton::topic {

using memory::domain::CopyPin;
using memory::domain::DeviceView;
using memory::domain::DomainError;
using memory::domain::DomainTable;

namespace detail {
// A subscriber slot's registration as a reader of one publisher's table; shared by the samples,
// so the registration (which keeps sweepers off our reference bits) outlives every sample.
struct ReaderRegistration {
  std::shared_ptr<DomainTable> table;
  std::uint32_t reader = 0;
  ~ReaderRegistration() {
    if (table) table->unregister_reader(reader);
  }
};
}  // namespace detail

std::string domain_table_name(const Topic& topic, std::uint32_t slot, std::uint32_t generation) {
  return topic.pool_name(slot, generation) + ".dt";
}

DomainSample& DomainSample::operator=(DomainSample&& o) noexcept {
  if (this != &o) {
    release();
    host_ = std::move(o.host_);
    view_ = o.view_;
    backend_ = std::move(o.backend_);
    reader_ = std::move(o.reader_);
    pin_ = std::move(o.pin_);
    pinned_ = o.pinned_;
    path_ = o.path_;
    o.view_ = {};
    o.pinned_ = false;
  }
  return *this;
}

void DomainSample::release() noexcept {
  if (backend_) backend_->release_view(view_);
  if (pinned_ && reader_) reader_->table->release(pin_, reader_->reader);
  pinned_ = false;
  pin_ = {};
  view_ = {};
  host_.release();  // the host chunk last: the copy may have been made from it
  reader_.reset();
  backend_.reset();
}

Result<std::unique_ptr<DomainSubscriber>, Error<DomainSubscriberCreateError>>
DomainSubscriber::create(std::shared_ptr<Topic> topic, const SubscriberOptions& options,
                         const memory::domain::DomainSpec& domain) {
  using E = Error<DomainSubscriberCreateError>;
  auto backend = memory::domain::open_domain(domain);
  if (!backend) {
    return unexpected(E{DomainSubscriberCreateError::DomainUnavailable,
                        domain.str() + ": " + backend.error().detail});
  }
  auto port = SubscriberPort::create(topic, options);
  if (!port) {
    const auto code = port.error().code;
    return unexpected(E{code == SubscriberCreateError::InvalidQos
                            ? DomainSubscriberCreateError::InvalidQos
                            : (code == SubscriberCreateError::NoFreeSlot
                                   ? DomainSubscriberCreateError::NoFreeSlot
                                   : DomainSubscriberCreateError::SegmentFailure),
                        port.error().detail});
  }
  // A domain table has one reader bit per subscriber slot for the first MAX_TABLE_READERS slots
  // only (domain_table_layout.hpp); slots are claimed lowest first, so this happens only when
  // that many subscribers of the topic are attached already.
  if ((*port)->slot() >= memory::domain::MAX_TABLE_READERS) {
    return unexpected(E{DomainSubscriberCreateError::NoFreeSlot,
                        "topic '" + topic->name() +
                            "': a domain subscriber needs one of "
                            "subscriber slots 0.." +
                            std::to_string(memory::domain::MAX_TABLE_READERS - 1) +
                            " (the domain table's reader bits); the first free slot is " +
                            std::to_string((*port)->slot())});
  }
  std::unique_ptr<DomainSubscriber> s(new DomainSubscriber());
  s->topic_ = (*port)->shared_topic();  // the port may have reopened `topic`
  s->port_ = std::move(*port);
  s->backend_ = std::move(*backend);
  // Register with the publishers present now, so they know this subscriber reads through their
  // domain tables (a device-published message then reaches host memory only if someone needs it).
  for (std::uint32_t p = 0, limit = s->topic_->publisher_slot_limit(); p < limit; ++p) {
    PublisherSlot* ps = s->topic_->publisher_slot(p);
    if (slot_state(ps->state.load(std::memory_order_acquire)) == SlotState::Active) {
      s->table_for(p, ps->generation.load(std::memory_order_acquire));
    }
  }
  return s;
}

DomainSubscriber::~DomainSubscriber() {
  // A table whose publisher is gone is removed by whoever notices (mappings stay valid).
  for (std::uint32_t p = 0; p < MAX_PUBLISHERS; ++p) {
    if (!tables_[p].reader) continue;
    PublisherSlot* ps = topic_->publisher_slot(p);
    const bool same = slot_state(ps->state.load(std::memory_order_acquire)) == SlotState::Active &&
                      ps->generation.load(std::memory_order_acquire) == tables_[p].generation;
    if (!same) DomainTable::unlink(tables_[p].reader->table->name());
  }
}

DomainSubscriber::TableRef* DomainSubscriber::table_for(std::uint32_t slot,
                                                        std::uint32_t generation) {
  if (slot >= MAX_PUBLISHERS) return nullptr;
  TableRef& t = tables_[slot];
  if (t.reader && t.generation == generation) return &t;
  if (t.reader) DomainTable::unlink(t.reader->table->name());  // that publisher is gone
  t = {};
  const std::uint32_t depth =
      std::clamp<std::uint32_t>(topic_->publisher_slot(slot)->depth, 1, MAX_RING_CAPACITY);
  auto table = DomainTable::open_or_create(domain_table_name(*topic_, slot, generation), depth);
  if (!table) return nullptr;
  auto index = (*table)->register_domain(backend_);
  if (!index) return nullptr;
  (*table)->register_reader(port_->slot());
  auto reg = std::make_shared<detail::ReaderRegistration>();
  reg->table = *table;
  reg->reader = port_->slot();
  t.generation = generation;
  t.reader = std::move(reg);
  t.domain = *index;
  return &t;
}

std::uint64_t DomainSubscriber::domain_copies(std::uint32_t p) const noexcept {
  if (p >= MAX_PUBLISHERS || !tables_[p].reader) return 0;
  return tables_[p].reader->table->copies(tables_[p].domain);
}

int DomainSubscriber::domain_index(std::uint32_t p) const noexcept {
  if (p >= MAX_PUBLISHERS || !tables_[p].reader) return -1;
  return static_cast<int>(tables_[p].domain);
}

Result<DomainSample, DomainTakeError> DomainSubscriber::take() noexcept {
  auto taken = port_->take();
  if (!taken) {
    return unexpected(taken.error() == TakeError::NoData ? DomainTakeError::NoData
                                                         : DomainTakeError::TooManyLoans);
  }
  DomainSample s;
  s.host_ = std::move(*taken);
  s.backend_ = backend_;
  TableRef* t = table_for(s.host_.publisher_slot(), s.host_.publisher_generation());
  if (t == nullptr) return unexpected(DomainTakeError::CopyFailed);
  s.reader_ = t->reader;
  DomainTable& table = *t->reader->table;
  // The chunk is mapped writable; a message published in a device domain is copied back into it
  // on the first host read (ensure_host). Copies and views cover the chunk from its start up to
  // the message's end (the publisher's layout; offset + size was checked against the chunk).
  auto* host = const_cast<std::byte*>(s.host_.data()) - s.host_.payload_offset();
  const std::uint64_t size = s.host_.payload_offset() + s.host_.size();
  const std::uint64_t seq = s.host_.sequence();
  if (backend_->zero_copy_from_host()) {
    if (auto st = table.ensure_host(seq, host, size); !st) {
      return unexpected(st.error() == DomainError::Busy ? DomainTakeError::Busy
                                                        : DomainTakeError::CopyFailed);
    }
    auto v = backend_->wrap_host(host, size);
    if (!v) return unexpected(DomainTakeError::CopyFailed);
    s.view_ = *v;
    s.path_ = DomainPath::ZeroCopy;
    return s;
  }
  // A copying domain: share the domain's copy, or make it from the host bytes.
  if (!table.has_copy(t->domain, seq)) {
    if (auto st = table.ensure_host(seq, host, size); !st) {
      return unexpected(st.error() == DomainError::Busy ? DomainTakeError::Busy
                                                        : DomainTakeError::CopyFailed);
    }
  }
  auto pin = table.acquire(t->domain, port_->slot(), seq, host, size);
  if (!pin) {
    return unexpected(pin.error().code == DomainError::Busy ? DomainTakeError::Busy
                                                            : DomainTakeError::CopyFailed);
  }
  s.pin_ = *pin;
  s.pinned_ = true;
  s.path_ = pin->made_copy ? DomainPath::MadeCopy : DomainPath::SharedCopy;
  auto v = backend_->view(pin->pool, pin->offset, size);
  if (!v) {
    return unexpected(DomainTakeError::CopyFailed);  // the sample's destructor unpins
  }
  s.view_ = *v;
  return s;
}

}  // namespace baton::topic
