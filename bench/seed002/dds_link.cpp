// CycloneDDS as a graph node's middleware (the ROS 2 default path): a writer per output, a
// reader per input, reliable keep-last 1 on loopback. publish() serialises the node's buffer; a
// taken message is Cyclone's deserialised sample, held on loan until the node lets it go. No
// device awareness: a device node copies its inputs to the device and its output back.
#include "bench/common/dds_link.hpp"

#include <memory>
#include <vector>

#include "bench/seed002/link.hpp"

namespace seed002 {
namespace {

namespace dds = baton::bench::dds;

class DdsLink : public Link {
 public:
  explicit DdsLink(int domain) : part_(domain) {}

  int add_output(const std::string& topic, std::size_t size, bool) override {
    writers_.push_back(std::make_unique<dds::Writer>(part_, topic));
    buffers_.emplace_back(size);
    return static_cast<int>(writers_.size()) - 1;
  }
  int add_input(const std::string& topic, bool) override {
    readers_.push_back(std::make_shared<dds::Reader>(part_, topic));
    return static_cast<int>(readers_.size()) - 1;
  }
  void connect(const std::vector<std::uint32_t>& readers) override {
    dds::wait_until(
        [&] {
          for (std::size_t i = 0; i < writers_.size(); ++i)
            if (writers_[i]->matched() < readers[i]) return false;
          for (auto& r : readers_)
            if (r->matched() == 0) return false;
          return true;
        },
        "graph topics");
  }
  Output loan(int i) override {
    auto& b = buffers_[static_cast<std::size_t>(i)];
    return {reinterpret_cast<std::byte*>(b.data()), nullptr, b.size()};
  }
  void publish(int i) override {
    auto& b = buffers_[static_cast<std::size_t>(i)];
    writers_[static_cast<std::size_t>(i)]->write(0, b.data(), b.size());
  }
  Input take(int i) override {
    auto reader = readers_[static_cast<std::size_t>(i)];
    const auto h = reader->take_held();
    Input in;
    in.host = reinterpret_cast<const std::byte*>(h.bytes);
    in.size = h.size;
    in.hold = std::shared_ptr<void>(static_cast<void*>(nullptr),
                                    [reader, h](void*) { reader->return_loan(h); });
    return in;
  }

 private:
  dds::Participant part_;
  std::vector<std::unique_ptr<dds::Writer>> writers_;
  std::vector<std::vector<std::uint8_t>> buffers_;
  std::vector<std::shared_ptr<dds::Reader>> readers_;
};

}  // namespace

std::unique_ptr<Link> make_dds_link(int domain) { return std::make_unique<DdsLink>(domain); }

}  // namespace seed002
