// Definitions of ROS 1 messages baton itself needs whose .msg files Debian does not install:
// Debian ships rosgraph_msgs (what every node's /rosout carries) as C++ headers and genpy classes
// only. TypeRegistry falls back to these when no share directory has the file, so a .msg found
// on disk (ROS_PACKAGE_PATH, /opt/ros) still wins.
#pragma once

#include <optional>
#include <string_view>

namespace baton::ros1 {

// The .msg text of `type_name` ("pkg/Type"), exactly as the package defines it (genmsg's md5sum
// and message_definition are computed from it); nullopt for any type not bundled.
std::optional<std::string_view> bundled_message_text(std::string_view type_name);

}  // namespace baton::ros1
