// baton-peer-roscpp-stream: one role of bench/suite's open-loop scenarios (A, B, D, seed 004's
// chain over TCPROS as the paper ran it, the subscriber sweep) over ROS 1 roscpp. Protocol and
// options: bench/stream/stream_roles.hpp; transport: roscpp_transport.hpp. Needs a rosmaster at
// $ROS_MASTER_URI (bench/suite/stream.py starts one per run on a private port). Queues are
// unbounded (queue_size 0): ROS 1's only way to deliver every message.
#include "bench/peers/roscpp/roscpp_transport.hpp"

namespace st = baton::bench::stream;

int main(int argc, char** argv) {
  st::Options o = st::parse_options(argc, argv, "baton-peer-roscpp-stream", "ROS 1 roscpp");
  st::setup_process(o);
  baton::bench::roscpp::init_node("baton_stream_" + o.name);
  baton::bench::roscpp::RoscppTransport t(0, o.mode == "busy-poll");
  return st::Roles(o, t).run();
}
