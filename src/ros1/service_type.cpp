// Cutting a .srv file into its request and response texts (service_type.hpp).
#include "baton/ros1/service_type.hpp"

namespace baton::ros1 {

ServiceText split_service_text(std::string_view srv) {
  ServiceText out;
  std::string* half = &out.request;
  // Python's str.split('\n'): n newlines give n + 1 lines, the last one possibly empty.
  for (;;) {
    const auto nl = srv.find('\n');
    const std::string_view line = srv.substr(0, nl);
    if (line.substr(0, 3) == "---") {  // genmsg drops every such line
      half = &out.response;
    } else {
      half->append(line);
      half->push_back('\n');
    }
    if (nl == std::string_view::npos) break;
    srv.remove_prefix(nl + 1);
  }
  return out;
}

}  // namespace baton::ros1
