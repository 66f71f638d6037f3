// ros1::TypeRegistry: ROS 1 .msg files through baton::ros2::parse_message, md5sums and full
// definitions as genmsg's gentools.compute_md5 / compute_full_text produce them.
#include "baton/ros1/type_registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "baton/ros1/service_type.hpp"
#include "baton/ros2/msg_parser.hpp"
#include "builtin_types.hpp"
#include "bundled_messages.hpp"
#include "md5.hpp"

namespace baton::ros1 {
namespace {

using Err = Error<TypeLoadError>;
constexpr int MAX_DEPTH = 32;  // deeper than any real message; guards against cycles

const ros2::MessageDescription* builtin(std::string_view nested_type_name) {
  // The parser reads ROS 1's `time` / `duration` as these ROS 2 names (msg_parser.cpp).
  if (nested_type_name == "builtin_interfaces/msg/Time") return &detail::time_description();
  if (nested_type_name == "builtin_interfaces/msg/Duration") return &detail::duration_description();
  return nullptr;
}

// "pkg/Type" or "pkg/<kind>/Type" (kind "msg" or "srv") -> {pkg, Type}.
bool split(std::string_view full, std::string& package, std::string& name,
           std::string_view kind = "msg") {
  const auto a = full.find('/');
  if (a == std::string_view::npos || a == 0) return false;
  std::string_view rest = full.substr(a + 1);
  if (rest.size() > kind.size() && rest.substr(0, kind.size()) == kind && rest[kind.size()] == '/')
    rest.remove_prefix(kind.size() + 1);
  if (rest.empty() || rest.find('/') != std::string_view::npos) return false;
  package = std::string(full.substr(0, a));
  name = std::string(rest);
  return true;
}

// The text genmsg hashes: constants first ("type NAME=value"), then each field as "type name"
// (builtins, with their array suffix) or "<md5 of the nested type> name" (no suffix).
std::string md5_text(const ros2::MessageDescription& d,
                     const std::map<std::string, std::unique_ptr<MessageType>>& types) {
  std::string out;
  for (const auto& c : d.constants)
    out += std::string(to_string(c.type)) + " " + c.name + "=" + c.value + "\n";
  for (const auto& f : d.fields) {
    std::string type;
    if (f.type != ros2::BaseType::Nested) {
      type = std::string(to_string(f.type));
    } else if (f.nested_type_name == TIME_TYPE || f.nested_type_name == DURATION_TYPE) {
      type = f.nested_type_name;
    } else {
      out += types.at(f.nested_type_name)->md5sum + " " + f.name + "\n";
      continue;
    }
    if (f.array == ros2::ArrayKind::Unbounded) type += "[]";
    if (f.array == ros2::ArrayKind::Fixed) type += "[" + std::to_string(f.array_size) + "]";
    out += type + " " + f.name + "\n";
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// genmsg's get_all_depends: each field's message type, then its own dependencies, depth first.
void all_depends(const ros2::MessageDescription& d, std::vector<std::string>& out) {
  for (const auto& f : d.fields) {
    if (f.type != ros2::BaseType::Nested || f.nested_type_name == TIME_TYPE ||
        f.nested_type_name == DURATION_TYPE)
      continue;
    out.push_back(f.nested_type_name);
    all_depends(*f.nested, out);
  }
}

std::string full_text(const MessageType& t,
                      const std::map<std::string, std::unique_ptr<MessageType>>& types) {
  std::vector<std::string> deps;
  all_depends(*t.description, deps);
  std::string out = t.text + "\n";
  std::set<std::string> seen;
  for (const auto& d : deps) {
    if (!seen.insert(d).second) continue;
    out += std::string(80, '=') + "\nMSG: " + d + "\n" + types.at(d)->text + "\n";
  }
  out.pop_back();  // genmsg drops the last newline
  return out;
}

Result<std::string, Err> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (!in) return unexpected(Err{TypeLoadError::Internal, "cannot read " + path.string()});
  return ss.str();
}

}  // namespace

TypeRegistry::TypeRegistry() = default;
TypeRegistry::~TypeRegistry() = default;

void TypeRegistry::add_share_root(std::filesystem::path root) {
  std::lock_guard lock(mutex_);
  roots_.push_back(std::move(root));
}

void TypeRegistry::add_default_roots() {
  if (const char* rpp = std::getenv("ROS_PACKAGE_PATH")) {
    std::string_view s(rpp);
    while (!s.empty()) {
      const auto colon = s.find(':');
      if (colon != 0) add_share_root(std::string(s.substr(0, colon)));
      if (colon == std::string_view::npos) break;
      s.remove_prefix(colon + 1);
    }
  }
  add_share_root("/usr/share");
  std::error_code ec;
  for (const auto& distro : std::filesystem::directory_iterator("/opt/ros", ec))
    add_share_root(distro.path() / "share");
}

Result<const MessageType*, Err> TypeRegistry::message(std::string_view type_name) {
  std::string package, name;
  if (!split(type_name, package, name))
    return unexpected(Err{TypeLoadError::BadTypeName,
                          "'" + std::string(type_name) + "' is not a ROS 1 type name (pkg/Type)"});
  std::lock_guard lock(mutex_);
  return load(package, name, 0);
}

Result<const ServiceType*, Err> TypeRegistry::service(std::string_view type_name) {
  std::string package, name;
  if (!split(type_name, package, name, "srv"))
    return unexpected(
        Err{TypeLoadError::BadTypeName,
            "'" + std::string(type_name) + "' is not a ROS 1 service name (pkg/Type)"});
  std::lock_guard lock(mutex_);
  const std::string full = package + "/" + name;
  if (auto it = services_.find(full); it != services_.end()) return it->second.get();
  auto path = find_file(package, "srv", name);
  if (!path) return unexpected(path.error());
  auto text = read_file(*path);
  if (!text) return unexpected(text.error());
  // genmsg names the halves <Type>Request / <Type>Response and hashes their md5 texts joined.
  const auto halves = split_service_text(*text);
  auto request = build(package, name + "Request", halves.request, 0);
  if (!request) return unexpected(request.error());
  auto response = build(package, name + "Response", halves.response, 0);
  if (!response) return unexpected(response.error());
  auto service = std::make_unique<ServiceType>();
  service->name = full;
  service->request = *request;
  service->response = *response;
  service->text = std::move(*text);
  service->md5sum = detail::md5_hex(md5_text(*(*request)->description, types_) +
                                    md5_text(*(*response)->description, types_));
  return (services_[full] = std::move(service)).get();
}

Result<std::filesystem::path, Err> TypeRegistry::find_file(const std::string& package,
                                                           const std::string& kind,
                                                           const std::string& name) const {
  bool package_seen = false;
  for (const auto& root : roots_) {
    std::error_code ec;
    if (!std::filesystem::is_directory(root / package, ec)) continue;
    package_seen = true;
    const auto path = root / package / kind / (name + "." + kind);
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  if (!package_seen)
    return unexpected(Err{TypeLoadError::PackageNotFound,
                          "ROS 1 package '" + package + "' is in no share directory searched " +
                              "(ROS_PACKAGE_PATH, /usr/share, /opt/ros/*/share)"});
  return unexpected(Err{TypeLoadError::FileNotFound, "ROS 1 package '" + package + "' has no " +
                                                         kind + "/" + name + "." + kind});
}

Result<const MessageType*, Err> TypeRegistry::load(const std::string& package,
                                                   const std::string& name, int depth) {
  const std::string full = package + "/" + name;
  if (auto it = types_.find(full); it != types_.end()) return it->second.get();
  if (depth > MAX_DEPTH)
    return unexpected(Err{TypeLoadError::Recursive, full + " nests itself (or deeper than " +
                                                        std::to_string(MAX_DEPTH) + " levels)"});
  auto path = find_file(package, "msg", name);
  if (!path) {
    if (auto bundled = bundled_message_text(full))
      return build(package, name, std::string(*bundled), depth);
    return unexpected(path.error());
  }
  auto text = read_file(*path);
  if (!text) return unexpected(text.error());
  return build(package, name, std::move(*text), depth);
}

Result<const MessageType*, Err> TypeRegistry::build(const std::string& package,
                                                    const std::string& name, std::string text,
                                                    int depth) {
  const std::string full = package + "/" + name;
  if (auto it = types_.find(full); it != types_.end()) return it->second.get();
  auto type = std::make_unique<MessageType>();
  type->name = full;
  type->text = std::move(text);
  auto parsed = ros2::parse_message(type->text, package, "msg", name);
  if (!parsed) return unexpected(parsed.error());
  auto desc = std::make_unique<ros2::MessageDescription>(std::move(*parsed));
  // ROS 1 allows messages without fields (std_msgs/Empty); the parser adds ROS 2's placeholder.
  if (desc->fields.size() == 1 && desc->fields[0].name == "structure_needs_at_least_one_member" &&
      type->text.find("structure_needs_at_least_one_member") == std::string::npos)
    desc->fields.clear();
  for (auto& f : desc->fields) {
    if (f.type != ros2::BaseType::Nested) {
      if (f.type == ros2::BaseType::WString || f.string_bound != 0 ||
          f.array == ros2::ArrayKind::Bounded)
        return unexpected(Err{TypeLoadError::Syntax,
                              full + ": field '" + f.name + "' uses a ROS 2-only type form"});
      continue;
    }
    if (const auto* b = builtin(f.nested_type_name)) {
      f.nested = b;
      f.nested_type_name = b->name;
      continue;
    }
    std::string nested_package, nested_name;
    if (!split(f.nested_type_name, nested_package, nested_name))
      return unexpected(Err{TypeLoadError::BadTypeName, f.nested_type_name});
    auto nested = load(nested_package, nested_name, depth + 1);
    if (!nested) {
      Err e = nested.error();
      if (e.code == TypeLoadError::PackageNotFound || e.code == TypeLoadError::FileNotFound)
        e = Err{TypeLoadError::UnknownType, full + ": field '" + f.name + "': " + e.detail};
      return unexpected(std::move(e));
    }
    f.nested_type_name = (*nested)->name;
    f.nested = (*nested)->description;
  }
  type->description = desc.get();
  type->md5sum = detail::md5_hex(md5_text(*desc, types_));
  // Registered before its definition is built: full_text looks up only already-loaded types.
  descriptions_[full] = std::move(desc);
  MessageType* raw = type.get();
  types_[full] = std::move(type);
  raw->definition = full_text(*raw, types_);
  return raw;
}

}  // namespace baton::ros1
