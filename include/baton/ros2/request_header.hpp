// How a service request / reply names its client on the DDS wire (`rq/<service>Request`,
// `rr/<service>Reply`): rmw_cyclonedds_cpp's convention, the one baton speaks.
//
//   [CDR encapsulation 4 B][client guid uint64 LE][sequence int64 LE][the message's CDR body]
//
// The header is part of the CDR stream (two 8-byte fields right after the encapsulation), so the
// body keeps the alignment it has in a plain message (16 is a multiple of 8). A service echoes the
// header in its reply; a client keeps the replies whose guid is its own. rmw_cyclonedds_cpp puts
// its request writer's instance handle in `guid`, and so does baton.
//
// Why not rmw_fastrtps_cpp's convention (the RTPS sample identity of the request, echoed as the
// reply's PID_RELATED_SAMPLE_IDENTITY inline QoS): CycloneDDS 0.10's API can neither read the
// writer sequence number of a received sample nor add that inline QoS to a write (README,
// "Services on the wire").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "baton/common/result.hpp"

namespace baton::ros2 {

struct RequestHeader {
  uint64_t guid = 0;
  int64_t sequence = 0;
  bool operator==(const RequestHeader&) const = default;
};

constexpr size_t REQUEST_HEADER_BYTES = 16;

// `cdr`: a plain message's CDR (encapsulation included) -> the framed sample. Error: `cdr` is
// shorter than an encapsulation or is not little-endian CDR.
Result<std::vector<uint8_t>, std::string> frame_request(const RequestHeader& header,
                                                        std::span<const uint8_t> cdr);

struct UnframedRequest {
  RequestHeader header;
  std::span<const uint8_t> cdr;  // the plain message's CDR, encapsulation included
};

// The inverse, in place: `sample` is rewritten so that the returned `cdr` (a view into it) is the
// plain message. Untrusted input: an error names what is wrong (too short, not little-endian CDR).
Result<UnframedRequest, std::string> unframe_request(std::vector<uint8_t>& sample);

}  // namespace baton::ros2
