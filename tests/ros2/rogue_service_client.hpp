// A rogue GetParameters client on plain CycloneDDS, for the services-on-the-wire tests
// (RmwBatonServiceWire.*, NativeServiceWire.*): it carries clientid= in its USER_DATA, so a baton
// service reads its requests, and writes whatever bytes the test gives it on rq/<service>Request;
// its reader on rr/<service>Reply sees the replies. MALFORMED_REQUESTS are 8 samples a server must
// drop; GOOD_REQUEST is names ["rogue"] framed byte by byte as rmw_cyclonedds_cpp frames it
// (guid 0xfeed, sequence 77).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../../src/ros2/dds_wire.hpp"
#include "baton/ros2/request_header.hpp"

namespace baton::ros2::test {

struct RogueReply {
  RequestHeader header;
  std::vector<uint8_t> cdr;  // the plain response's CDR
};

inline std::vector<std::vector<uint8_t>> malformed_requests() {
  const std::vector<uint8_t> header = {0, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0};
  auto framed = [&](std::vector<uint8_t> body) {
    std::vector<uint8_t> s = header;
    s.insert(s.end(), body.begin(), body.end());
    return s;
  };
  std::vector<uint8_t> big_endian = framed({0, 0, 0, 1, 0, 0, 0, 2, 'a', 0});
  big_endian[1] = 0x00;
  return {
      {0, 1, 0, 0},                                       // no header at all
      {0, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8},               // half a header
      big_endian,                                         // big-endian CDR (unsupported)
      framed({}),                                         // header, no body
      framed({0xff, 0xff, 0xff, 0xff}),                   // 2^32 - 1 names
      framed({1, 0, 0, 0, 100, 0, 0, 0, 'a', 'b', 'c'}),  // truncated string
      framed({1, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'}),    // no NUL where the length says
      framed({2, 0, 0, 0, 2, 0, 0, 0, 'a', 0}),           // 2 names, only one there
  };
}

inline const std::vector<uint8_t> GOOD_REQUEST = {
    0, 1, 0, 0, 0xed, 0xfe, 0, 0, 0,   0,   0,   0,   77,  0, 0, 0, 0, 0, 0, 0,  // header
    1, 0, 0, 0, 6,    0,    0, 0, 'r', 'o', 'g', 'u', 'e', 0};                   // names ["rogue"]

class RogueServiceClient {
 public:
  // Creates the endpoints on `domain_id` and waits (30 s at most) until both matched the server
  // of `service`. Test failure otherwise. The server's side of discovery is the caller's to wait
  // for (see svc_call in the peer): a request reaching a reader that has not matched it is lost.
  void open(uint32_t domain_id, const std::string& service) {
    using namespace std::chrono_literals;
    auto part = DdsParticipant::create(domain_id, /*localhost_only=*/true);
    ASSERT_TRUE(part.has_value()) << part.error().detail;
    part_ = std::move(*part);
    WireQos q;
    q.user_data = "clientid=rogue;";
    auto w = part_->create_writer(dds_topic_name(service, "rq") + "Request",
                                  "rcl_interfaces::srv::dds_::GetParameters_Request_", q);
    ASSERT_TRUE(w.has_value()) << w.error().detail;
    writer_ = std::move(*w);
    auto r = part_->create_reader(dds_topic_name(service, "rr") + "Reply",
                                  "rcl_interfaces::srv::dds_::GetParameters_Response_", q);
    ASSERT_TRUE(r.has_value()) << r.error().detail;
    replies_ = std::move(*r);
    for (int i = 0;
         i < 600 && (writer_->matched_readers() == 0 || replies_->matched_writers() == 0); ++i)
      std::this_thread::sleep_for(50ms);
    ASSERT_GT(writer_->matched_readers(), 0u);
    ASSERT_GT(replies_->matched_writers(), 0u);
  }
  bool write(const std::vector<uint8_t>& sample) { return writer_->write(sample).has_value(); }
  // The next reply, unframed (30 s at most); nullopt if none came.
  std::optional<RogueReply> reply() {
    for (int i = 0; i < 600; ++i) {
      auto s = replies_->take(std::chrono::milliseconds(50));
      if (!s) continue;
      auto u = unframe_request(*s);
      if (!u) {
        ADD_FAILURE() << u.error();
        return std::nullopt;
      }
      return RogueReply{u->header, std::vector<uint8_t>(u->cdr.begin(), u->cdr.end())};
    }
    return std::nullopt;
  }

 private:
  std::optional<DdsParticipant> part_;
  std::optional<DdsRawWriter> writer_;
  std::optional<DdsRawReader> replies_;
};

}  // namespace baton::ros2::test
