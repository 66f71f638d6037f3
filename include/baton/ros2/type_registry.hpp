// TypeRegistry: loads ROS 2 interface types from share directories on demand and owns their
// descriptions. Any package works given its share directory (<share>/<pkg>/msg/*.msg).
//
// Not thread-safe: load types from one thread (or guard the registry); descriptions already
// returned are immutable and may be read from any thread.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/type_load_error.hpp"

namespace baton::ros2 {

class TypeRegistry {
 public:
  TypeRegistry() = default;
  TypeRegistry(const TypeRegistry&) = delete;
  TypeRegistry& operator=(const TypeRegistry&) = delete;

  // A directory holding package directories (e.g. <venv>/share or /opt/ros/kilted/share).
  void add_share_root(std::filesystem::path root);
  // One package's own share directory (holding msg/ and srv/).
  void add_package(std::string package, std::filesystem::path share_dir);
  // Share roots from AMENT_PREFIX_PATH (each prefix + "/share"), as ROS 2 tools find packages.
  void add_ament_prefix_path();

  // "pkg/msg/Name" or "pkg/Name". The description and all nested ones are loaded; valid until
  // the registry is destroyed.
  Result<const MessageDescription*, Error<TypeLoadError>> message(std::string_view type_name);
  // "pkg/srv/Name" or "pkg/Name".
  Result<const ServiceDescription*, Error<TypeLoadError>> service(std::string_view type_name);

  // Every message type referenced (transitively) by `root`, excluding root, sorted by full name.
  static std::vector<const MessageDescription*> referenced_types(const MessageDescription& root);

 private:
  Result<std::filesystem::path, Error<TypeLoadError>> find_file(const std::string& package,
                                                                const std::string& interface,
                                                                const std::string& name) const;
  Result<const MessageDescription*, Error<TypeLoadError>> resolve(
      std::unique_ptr<MessageDescription> desc, int depth);
  Result<const MessageDescription*, Error<TypeLoadError>> load(const std::string& package,
                                                               const std::string& interface,
                                                               const std::string& name, int depth);

  std::vector<std::filesystem::path> roots_;
  std::map<std::string, std::filesystem::path> packages_;
  std::map<std::string, std::unique_ptr<MessageDescription>> messages_;  // by full name
  std::map<std::string, std::unique_ptr<ServiceDescription>> services_;
  std::vector<std::unique_ptr<MessageDescription>> service_types_;
};

}  // namespace baton::ros2
