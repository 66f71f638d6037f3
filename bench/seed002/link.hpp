// What a graph node needs from a middleware (baton-bench-graph): named outputs it loans and
// publishes, named inputs it takes in order. Each node is one process and runs in lock step
// with the graph (the source starts step k + 1 only when every sink finished step k), so an
// input never holds more than one unread message.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace seed002 {

// A message taken from an input; valid while `hold` lives (its destruction returns the loan).
struct Input {
  const std::byte* host = nullptr;  // readable bytes, or null if only `device` is set
  std::size_t size = 0;
  cl_mem device = nullptr;  // the message in the device domain, when the middleware did that
  std::shared_ptr<void> hold;
};

// Where a node writes its next message for an output.
struct Output {
  std::byte* host = nullptr;  // writable bytes, or null if only `device` is set
  cl_mem device = nullptr;    // a device buffer holding the message, when the middleware did that
  std::size_t size = 0;
};

class Link {
 public:
  virtual ~Link() = default;
  // `device`: the node works on the device; a device-aware middleware delivers / loans there.
  virtual int add_output(const std::string& topic, std::size_t size, bool device) = 0;
  virtual int add_input(const std::string& topic, bool device) = 0;
  // Blocks until output o has `readers[o]` subscribers and every input is connected.
  virtual void connect(const std::vector<std::uint32_t>& readers) = 0;
  virtual Output loan(int output) = 0;
  virtual void publish(int output) = 0;  // publishes the output's outstanding loan
  virtual Input take(int input) = 0;     // blocks until the input's next message
};

std::unique_ptr<Link> make_baton_link(const std::string& node);
std::unique_ptr<Link> make_dds_link(int domain);
std::unique_ptr<Link> make_iceoryx_link(const std::string& node, const std::string& run);
// rcl C++ nodes on `rmw` (rcl_link.cpp). Weak: only baton-bench-graph-rcl, built against the ROS 2
// wheels, has it; baton-bench-graph starts without the wheels' libraries.
[[gnu::weak]] std::unique_ptr<Link> make_rcl_link(const std::string& node, const std::string& rmw);

}  // namespace seed002
