// A ROS 1 service type as TCPROS needs it: its request and response messages and the service's
// genmsg md5sum (the md5 of the request's md5 text followed by the response's), which both ends of
// a service connection compare.
//
// Ownership: a ServiceType is owned by the ros1::TypeRegistry that loaded it (type_registry.hpp),
// as are its two MessageTypes; immutable once returned, so any thread may read it.
#pragma once

#include <string>
#include <string_view>

#include "baton/ros1/message_type.hpp"

namespace baton::ros1 {

struct ServiceType {
  std::string name;                       // "std_srvs/SetBool" (no "/srv/")
  const MessageType* request = nullptr;   // "std_srvs/SetBoolRequest"
  const MessageType* response = nullptr;  // "std_srvs/SetBoolResponse"
  std::string md5sum;                     // 32 hex digits, as genmsg's compute_md5 gives
  std::string text;                       // the .srv file as read
};

// The two halves of a .srv file as genmsg's load_srv_from_string cuts them: every line before
// the first line starting with "---" is the request, every later line not starting with "---" the
// response, each line followed by '\n' (comments kept: they are part of the full definition genpy
// reports).
struct ServiceText {
  std::string request;
  std::string response;
};
ServiceText split_service_text(std::string_view srv);

}  // namespace baton::ros1
