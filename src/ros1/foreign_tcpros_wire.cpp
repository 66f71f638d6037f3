// TCPROS behind the core's ForeignWriter (foreign_tcpros_wire.hpp): each call one forward to the
// TcprosPublication, whose frames every connection shares (one serialization, or one copy of
// bytes already serialized into a BATONSHM loan).
#include "foreign_tcpros_wire.hpp"

namespace baton::ros1::detail {

namespace {

// The core counts the readers itself (foreign_readers() before the write); an error keeps its
// text (Publication tells a failed fill from a closed publication, see publication.cpp).
Status<std::string> status_of(const Result<size_t, Error<WireError>>& r) {
  if (!r)
    return unexpected(r.error().code == WireError::Closed ? "TCPROS: the publication is closed"
                                                          : "TCPROS: " + r.error().detail);
  return Ok{};
}

class TcprosForeignWriter final : public wire::ForeignWriter {
 public:
  explicit TcprosForeignWriter(std::shared_ptr<TcprosPublication> p) : p_(std::move(p)) {}
  uint32_t readers() const override { return static_cast<uint32_t>(p_->reader_count()); }
  uint32_t foreign_readers() override { return static_cast<uint32_t>(p_->reader_count()); }
  Status<std::string> write(std::span<const uint8_t> bytes) override {
    return status_of(p_->write_serialized(bytes));
  }
  Status<std::string> write_filled(uint64_t size, const wire::FillBytes& fill) override {
    return status_of(p_->write_filled(size, fill));
  }
  wire::EndpointGid gid() const override { return {}; }  // TCPROS has no endpoint GUID

 private:
  std::shared_ptr<TcprosPublication> p_;
};

}  // namespace

std::unique_ptr<wire::ForeignWriter> tcpros_foreign_writer(
    std::shared_ptr<TcprosPublication> publication) {
  return std::make_unique<TcprosForeignWriter>(std::move(publication));
}

}  // namespace baton::ros1::detail
