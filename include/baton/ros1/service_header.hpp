// What a service client's TCPROS connection header asks of a provider: the service, the md5sum it
// expects ("*" from probes: any), and whether the connection is persistent or a probe (rosservice
// learns a service's type with a probe: the provider answers its header and closes). Decoded from
// network bytes by decode_connection_header first; this only reads the fields.
#pragma once

#include <string>

#include "baton/common/result.hpp"
#include "baton/ros1/connection_header.hpp"

namespace baton::ros1 {

struct ServiceCallHeader {
  std::string caller_id;  // "" when absent (rospy and roscpp always send it)
  std::string service;
  std::string md5sum;
  bool persistent = false;  // "persistent=1"
  bool probe = false;       // "probe=1"
};

// MissingField (naming it) without `service` or `md5sum`.
Result<ServiceCallHeader, Error<HeaderError>> parse_service_call_header(
    const ConnectionHeader& header);

}  // namespace baton::ros1
