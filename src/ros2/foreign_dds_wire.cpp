// The DDS wire behind the core's ForeignWriter / ForeignReader (foreign_dds_wire.hpp): a
// DdsRawWriter / DdsRawReader, each call one forward (the same-tag bookkeeping is DdsRawWriter's /
// DdsRawReader's own, dds_wire.cpp). Built with CycloneDDS only, as dds_wire.cpp (CMakeLists.txt
// leaves out every *dds_wire.cpp without it).
#include "foreign_dds_wire.hpp"

#include "dds_wire.hpp"

namespace baton::ros2::detail {

namespace {

class DdsForeignWriter final : public wire::ForeignWriter {
 public:
  explicit DdsForeignWriter(DdsRawWriter w) : w_(std::move(w)) {}
  uint32_t readers() const override { return w_.matched_readers(); }
  uint32_t foreign_readers() override { return w_.matched_foreign_readers(); }
  Status<std::string> write(std::span<const uint8_t> cdr) override {
    if (auto s = w_.write(cdr); !s) return unexpected("DDS write: " + s.error().detail);
    return Ok{};
  }
  wire::EndpointGid gid() const override { return w_.guid(); }

 private:
  DdsRawWriter w_;
};

class DdsForeignReader final : public wire::ForeignReader {
 public:
  explicit DdsForeignReader(DdsRawReader r) : r_(std::move(r)) {}
  std::optional<std::vector<uint8_t>> take() override {
    return r_.take(std::chrono::milliseconds(0));
  }
  bool has_data() const override { return r_.has_data(); }
  uint32_t writers() const override { return r_.matched_writers(); }
  uint32_t foreign_writers() override { return r_.matched_foreign_writers(); }
  uint64_t dropped_same_tag() const override { return r_.dropped_same_tag(); }
  wire::EndpointGid gid() const override { return r_.guid(); }
  void on_data_available(std::function<void()> fn) override { r_.on_data_available(std::move(fn)); }

 private:
  DdsRawReader r_;
};

}  // namespace

std::unique_ptr<wire::ForeignWriter> dds_foreign_writer(DdsRawWriter writer) {
  return std::make_unique<DdsForeignWriter>(std::move(writer));
}

std::unique_ptr<wire::ForeignReader> dds_foreign_reader(DdsRawReader reader) {
  return std::make_unique<DdsForeignReader>(std::move(reader));
}

}  // namespace baton::ros2::detail
