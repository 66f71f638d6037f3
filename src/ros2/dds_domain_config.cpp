// CycloneDDS settings of the DDS wire (see dds_domain_config.hpp). Measured with a 4K Image
// (24.9 MB) stream at 10 Hz between rclpy on rmw_baton_cpp and rclpy on rmw_fastrtps_cpp on one
// 2-vCPU host (bench/ros2, BENCHMARKS.md "DDS wire stream"); Cyclone 0.10's defaults are made
// for small samples on a LAN and lose such a stream almost entirely.
#include "dds_domain_config.hpp"

namespace baton::ros2 {

std::string cyclone_domain_config(bool localhost_only, const std::string& trace_file,
                                  const std::string& user_uri) {
  std::string xml = "<CycloneDDS><Domain id=\"any\"><General>";
  if (localhost_only) xml += "<AllowMulticast>false</AllowMulticast>";
  // Fragments of 64 000 B in datagrams of up to 65 500 B, first transmissions and retransmits
  // alike (Fast DDS's own size). With Cyclone's 1 344 B, a 24.9 MB image is 18 515 fragments: a
  // NACKFRAG (256 fragments at most) then repairs only 344 KB, and a stream that lost part of
  // one image at the receiver's socket needed seconds to repair it, while newer images replaced
  // it in the writer's history (the 4K stream delivered 3 of 50 to Fast DDS). At 64 000 B one
  // NACKFRAG covers a whole 4K image and each datagram costs the receiver 47x fewer wake-ups.
  xml +=
      "<MaxMessageSize>65500B</MaxMessageSize><MaxRexmitMessageSize>65500B"
      "</MaxRexmitMessageSize><FragmentSize>64000B</FragmentSize></General>";
  xml += "<Internal>";
  // Answer a writer's heartbeat that shows missing data at once (Cyclone's default waits
  // 100 ms): Fast DDS sends one after each large sample, so each repair round cost 100 ms.
  // Fast DDS -> baton, 4K at 10 Hz: 15 of 50 images arrived with the default, 49 of 50 with 0.
  xml += "<NackDelay>0ms</NackDelay>";
  // While a reader still misses data, heartbeat it every 5 ms (default 100 ms, at least 5 ms
  // apart): the next repair round starts as soon as the reader can answer (Fast DDS answers a
  // heartbeat after 5 ms). Without unacknowledged data no heartbeat is sent at all.
  xml += "<HeartbeatInterval min=\"1ms\" minsched=\"1ms\" max=\"100ms\">5ms</HeartbeatInterval>";
  // Delivery stays on the socket's receive thread (Cyclone's default, SynchronousDelivery-
  // PriorityThreshold 0), the 64 MiB socket buffer below holds what arrives meanwhile. Cyclone
  // 0.10's delivery thread delivers a queued sample to every reader in sync with its writer *when
  // it runs*: a reliable volatile reader that matched a Cyclone writer (rmw_cyclonedds_cpp, baton
  // in another namespace) starts out of sync, and when it turned in sync between the enqueue and
  // the delivery it got that sample twice and out of order (q1 q0 q1: 5 of 20 runs of
  // NativeServiceWire.rclpy_on_baton_in_another_namespace_calls_native_service_over_dds).
  // Ask for a large socket receive buffer and take what the kernel grants (net.core.rmem_max).
  xml += "<SocketReceiveBufferSize min=\"default\" max=\"" +
         std::to_string(kWireSocketReceiveBuffer) + "B\"/>";
  xml += "</Internal>";
  // Receive buffers below 128 KiB (Cyclone's default: 1 MiB rbufs of 128 KiB chunks). The
  // socket's receive thread reads each datagram into an rbuf, and a fragment waiting for the rest
  // of its 24.9 MB sample keeps its rbuf allocated. An allocator that does not reuse 1 MiB blocks
  // (every sanitizer's: above 128 KiB each block is a fresh mmap; 352 page faults per 1 MiB
  // block under ASan, 4.6 per 120 KiB one) made the receive thread page-fault every rbuf in:
  // under ASan 4x its CPU time (perf), the socket overflowed (~5 600 datagrams dropped per
  // 30-image run, `ss -uam`), repairs came late and Fast DDS's keep-last-10 writer replaced
  // images before this reader had them whole: 1-9 images of 30 lost mid-stream in 11 runs of 11,
  // none in 16 runs with rbufs under 128 KiB. A chunk holds the largest UDP datagram (64 KiB) plus
  // Cyclone's per-submessage bookkeeping; a 120 KiB rbuf still packs many small datagrams.
  xml +=
      "<Sizing><ReceiveBufferSize>120KiB</ReceiveBufferSize><ReceiveBufferChunkSize>80KiB"
      "</ReceiveBufferChunkSize></Sizing>";
  if (localhost_only) {
    // No multicast; unicast discovery to the RTPS ports of participant indices 0..32 on
    // 127.0.0.1: what Fast DDS does for ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST. The interface
    // stays Cyclone's default: Fast DDS (Kilted) sends SPDP to 127.0.0.1 but advertises its
    // host address (e.g. 192.0.2.2) as unicast locator, which a lo-only Cyclone cannot reach
    // ("SPDP ... no unicast address" in a Cyclone trace).
    xml +=
        "<Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>32"
        "</MaxAutoParticipantIndex><Peers><Peer address=\"127.0.0.1\"/></Peers></Discovery>";
  }
  if (!trace_file.empty())
    xml += "<Tracing><Verbosity>finest</Verbosity><OutputFile>" + trace_file +
           "</OutputFile></Tracing>";
  xml += "</Domain></CycloneDDS>";
  // Cyclone reads a comma-separated list of configuration fragments, later ones overriding.
  if (!user_uri.empty()) xml += "," + user_uri;
  return xml;
}

}  // namespace baton::ros2
