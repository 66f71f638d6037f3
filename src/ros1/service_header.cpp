// A service client's connection header read into its fields (service_header.hpp).
#include "baton/ros1/service_header.hpp"

namespace baton::ros1 {

Result<ServiceCallHeader, Error<HeaderError>> parse_service_call_header(
    const ConnectionHeader& header) {
  ServiceCallHeader out;
  auto service = require_field(header, "service");
  if (!service) return unexpected(service.error());
  auto md5 = require_field(header, "md5sum");
  if (!md5) return unexpected(md5.error());
  out.service = std::move(*service);
  out.md5sum = std::move(*md5);
  if (const auto who = header.find("callerid"); who != header.end()) out.caller_id = who->second;
  const auto flag = [&](const char* key) {
    const auto it = header.find(key);
    return it != header.end() && it->second == "1";
  };
  out.persistent = flag("persistent");
  out.probe = flag("probe");
  return out;
}

}  // namespace baton::ros1
