// Demangling DDS names into ROS 2 names: see include/baton/ros2/dds_names.hpp.
#include "baton/ros2/dds_names.hpp"

namespace baton::ros2 {
namespace {

constexpr std::string_view DDS_NAMESPACE = "dds_::";

// "pkg::msg::" -> "pkg/msg/".
std::string slashed(std::string_view type_namespace) {
  std::string out;
  for (size_t i = 0; i < type_namespace.size(); ++i) {
    if (type_namespace.compare(i, 2, "::") == 0) {
      out += '/';
      ++i;
    } else {
      out += type_namespace[i];
    }
  }
  return out;
}

}  // namespace

RosName ros_name_of(std::string_view dds_topic) {
  struct Prefix {
    std::string_view prefix, suffix;
    DdsTopicKind kind;
  };
  for (const Prefix& p : {Prefix{"rt/", "", DdsTopicKind::Topic},
                          Prefix{"rq/", "Request", DdsTopicKind::ServiceRequest},
                          Prefix{"rr/", "Reply", DdsTopicKind::ServiceReply}}) {
    if (!dds_topic.starts_with(p.prefix)) continue;
    // Keep the '/' of the prefix: "rt/chatter" -> "/chatter".
    std::string_view name = dds_topic.substr(p.prefix.size() - 1);
    if (!name.ends_with(p.suffix) || name.size() <= p.suffix.size() + 1) return {};
    name.remove_suffix(p.suffix.size());
    return {p.kind, std::string(name)};
  }
  return {};
}

std::string ros_type_of(std::string_view dds_type) {
  const size_t ns = dds_type.find(DDS_NAMESPACE);
  if (!dds_type.ends_with('_') || ns == std::string_view::npos) return std::string(dds_type);
  const size_t start = ns + DDS_NAMESPACE.size();
  return slashed(dds_type.substr(0, ns))
      .append(dds_type.substr(start, dds_type.size() - 1 - start));
}

std::string ros_service_type_of(std::string_view dds_type) {
  const size_t ns = dds_type.find(DDS_NAMESPACE);
  if (ns == std::string_view::npos) return {};
  for (std::string_view suffix : {"_Response_", "_Request_"}) {
    if (!dds_type.ends_with(suffix) || dds_type.size() < ns + DDS_NAMESPACE.size() + suffix.size())
      continue;
    const size_t start = ns + DDS_NAMESPACE.size();
    return slashed(dds_type.substr(0, ns))
        .append(dds_type.substr(start, dds_type.size() - suffix.size() - start));
  }
  return {};
}

}  // namespace baton::ros2
