// ros1::TypeRegistry: loads ROS 1 message and service types from the .msg / .srv files of share
// directories (Debian installs them as /usr/share/<pkg>/msg/<Type>.msg, <pkg>/srv/<Type>.srv) and
// computes what TCPROS needs of each: the md5sum and the message_definition, exactly as genmsg
// computes them.
//
// The .msg text is parsed by baton::ros2::parse_message (one parser for both ROS versions); the
// registry then maps ROS 1's builtins: `time` and `duration` (which the parser reads as
// builtin_interfaces Time / Duration) become the ROS 1 builtins of message_type.hpp, `Header`
// is std_msgs/Header from the ROS 1 share directory (with its `seq`), and a .msg without fields
// has none (the parser's ROS 2 placeholder member is dropped).
//
// Thread-safe: message() may be called from any thread; results are immutable.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros1/message_type.hpp"
#include "baton/ros1/service_type.hpp"
#include "baton/ros2/type_load_error.hpp"

namespace baton::ros1 {

using TypeLoadError = ros2::TypeLoadError;

class TypeRegistry {
 public:
  TypeRegistry();
  ~TypeRegistry();
  TypeRegistry(const TypeRegistry&) = delete;
  TypeRegistry& operator=(const TypeRegistry&) = delete;

  // A directory holding package directories (<root>/<pkg>/msg/<Type>.msg).
  void add_share_root(std::filesystem::path root);
  // The directories ROS 1 tools search: each entry of ROS_PACKAGE_PATH, then /usr/share (Debian's
  // ROS 1 packages) and /opt/ros/<distro>/share.
  void add_default_roots();

  // "pkg/Type" or "pkg/msg/Type"; loads nested types too. Valid until the registry is destroyed.
  Result<const MessageType*, Error<TypeLoadError>> message(std::string_view type_name);
  // "pkg/Type" or "pkg/srv/Type" from <root>/<pkg>/srv/<Type>.srv: its halves are registered as
  // the messages "pkg/TypeRequest" and "pkg/TypeResponse". Valid until the registry is destroyed.
  Result<const ServiceType*, Error<TypeLoadError>> service(std::string_view type_name);

 private:
  Result<std::filesystem::path, Error<TypeLoadError>> find_file(const std::string& package,
                                                                const std::string& kind,
                                                                const std::string& name) const;
  Result<const MessageType*, Error<TypeLoadError>> load(const std::string& package,
                                                        const std::string& name, int depth);
  // Parses `text` as message package/name (already registered: that one).
  Result<const MessageType*, Error<TypeLoadError>> build(const std::string& package,
                                                         const std::string& name, std::string text,
                                                         int depth);

  std::mutex mutex_;
  std::vector<std::filesystem::path> roots_;
  std::map<std::string, std::unique_ptr<ros2::MessageDescription>> descriptions_;  // by name
  std::map<std::string, std::unique_ptr<MessageType>> types_;                      // by name
  std::map<std::string, std::unique_ptr<ServiceType>> services_;                   // by name
};

}  // namespace baton::ros1
