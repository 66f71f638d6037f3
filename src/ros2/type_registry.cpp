// TypeRegistry: finds .msg / .srv files in share directories, parses them and links nested types.
#include "baton/ros2/type_registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "baton/ros2/msg_parser.hpp"

namespace baton::ros2 {
namespace {

constexpr int MAX_DEPTH = 32;  // deeper nesting than any real interface; guards against cycles

using Err = Error<TypeLoadError>;

struct SplitName {
  std::string package, interface, name;
};

// "pkg/Name" or "pkg/<interface>/Name".
std::optional<SplitName> split(std::string_view type_name, std::string_view default_interface) {
  auto a = type_name.find('/');
  if (a == std::string_view::npos || a == 0) return std::nullopt;
  auto b = type_name.find('/', a + 1);
  SplitName s;
  s.package = std::string(type_name.substr(0, a));
  if (b == std::string_view::npos) {
    s.interface = std::string(default_interface);
    s.name = std::string(type_name.substr(a + 1));
  } else {
    s.interface = std::string(type_name.substr(a + 1, b - a - 1));
    s.name = std::string(type_name.substr(b + 1));
  }
  if (s.name.empty() || s.name.find('/') != std::string::npos) return std::nullopt;
  return s;
}

Result<std::string, Err> read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return unexpected(Err{TypeLoadError::Internal, "cannot read " + p.string()});
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void collect(const MessageDescription& d, std::set<const MessageDescription*>& out) {
  for (const auto& f : d.fields) {
    if (f.nested != nullptr && out.insert(f.nested).second) collect(*f.nested, out);
  }
}

}  // namespace

void TypeRegistry::add_share_root(std::filesystem::path root) { roots_.push_back(std::move(root)); }

void TypeRegistry::add_package(std::string package, std::filesystem::path share_dir) {
  packages_[std::move(package)] = std::move(share_dir);
}

void TypeRegistry::add_ament_prefix_path() {
  const char* env = std::getenv("AMENT_PREFIX_PATH");
  if (env == nullptr) return;
  std::string_view s(env);
  while (!s.empty()) {
    auto c = s.find(':');
    std::string_view prefix = s.substr(0, c);
    if (!prefix.empty()) add_share_root(std::filesystem::path(prefix) / "share");
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
}

Result<std::filesystem::path, Err> TypeRegistry::find_file(const std::string& package,
                                                           const std::string& interface,
                                                           const std::string& name) const {
  std::vector<std::filesystem::path> dirs;
  if (auto it = packages_.find(package); it != packages_.end()) dirs.push_back(it->second);
  for (const auto& r : roots_) dirs.push_back(r / package);
  bool package_seen = false;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    package_seen = true;
    auto p = dir / interface / (name + "." + interface);
    if (std::filesystem::is_regular_file(p, ec)) return p;
  }
  if (!package_seen)
    return unexpected(Err{TypeLoadError::PackageNotFound,
                          "package '" + package + "' is in no share directory of the registry"});
  return unexpected(Err{TypeLoadError::FileNotFound, "package '" + package + "' has no " +
                                                         interface + "/" + name + "." + interface});
}

Result<const MessageDescription*, Err> TypeRegistry::resolve(std::unique_ptr<MessageDescription> d,
                                                             int depth) {
  for (auto& f : d->fields) {
    if (f.type != BaseType::Nested) continue;
    auto s = split(f.nested_type_name, "msg");
    if (!s) return unexpected(Err{TypeLoadError::BadTypeName, f.nested_type_name});
    auto nested = load(s->package, s->interface, s->name, depth + 1);
    if (!nested) {
      Err e = nested.error();
      if (e.code == TypeLoadError::FileNotFound || e.code == TypeLoadError::PackageNotFound)
        e.code = TypeLoadError::UnknownType;
      e.detail = d->full_name() + "." + f.name + ": " + e.detail;
      return unexpected(std::move(e));
    }
    f.nested = *nested;
  }
  auto key = d->full_name();
  auto* raw = d.get();
  messages_[key] = std::move(d);
  return static_cast<const MessageDescription*>(raw);
}

Result<const MessageDescription*, Err> TypeRegistry::load(const std::string& package,
                                                          const std::string& interface,
                                                          const std::string& name, int depth) {
  std::string key = package + "/" + interface + "/" + name;
  if (auto it = messages_.find(key); it != messages_.end()) return it->second.get();
  if (depth > MAX_DEPTH)
    return unexpected(Err{TypeLoadError::Recursive, key + " nests deeper than 32 levels"});
  if (interface == "srv") {
    // A service part: load the service, which registers both parts.
    std::string base = name;
    for (std::string_view suffix : {"_Request", "_Response"}) {
      if (base.size() > suffix.size() && base.ends_with(suffix)) {
        base.resize(base.size() - suffix.size());
        auto svc = service(package + "/srv/" + base);
        if (!svc) return unexpected(svc.error());
        return messages_.at(key).get();
      }
    }
    return unexpected(Err{TypeLoadError::BadTypeName, key + ": not a service part"});
  }
  auto path = find_file(package, interface, name);
  if (!path) return unexpected(path.error());
  auto text = read_text(*path);
  if (!text) return unexpected(text.error());
  auto parsed = parse_message(*text, package, interface, name);
  if (!parsed) return unexpected(parsed.error());
  return resolve(std::make_unique<MessageDescription>(std::move(*parsed)), depth);
}

Result<const MessageDescription*, Err> TypeRegistry::message(std::string_view type_name) {
  auto s = split(type_name, "msg");
  if (!s) return unexpected(Err{TypeLoadError::BadTypeName, std::string(type_name)});
  return load(s->package, s->interface, s->name, 0);
}

Result<const ServiceDescription*, Err> TypeRegistry::service(std::string_view type_name) {
  auto s = split(type_name, "srv");
  if (!s || s->interface != "srv")
    return unexpected(Err{TypeLoadError::BadTypeName, std::string(type_name)});
  std::string key = s->package + "/srv/" + s->name;
  if (auto it = services_.find(key); it != services_.end()) return it->second.get();
  auto path = find_file(s->package, "srv", s->name);
  if (!path) return unexpected(path.error());
  auto text = read_text(*path);
  if (!text) return unexpected(text.error());
  auto parts = parse_service(*text, s->package, s->name);
  if (!parts) return unexpected(parts.error());
  auto req = resolve(std::make_unique<MessageDescription>(std::move(parts->first)), 0);
  if (!req) return unexpected(req.error());
  auto resp = resolve(std::make_unique<MessageDescription>(std::move(parts->second)), 0);
  if (!resp) return unexpected(resp.error());
  auto svc = std::make_unique<ServiceDescription>();
  svc->package = s->package;
  svc->name = s->name;
  svc->request = *req;
  svc->response = *resp;
  // Synthesised as rosidl does (rosidl_parser's Service: <Name>_Event and the service type).
  auto nested = [](std::string name, const MessageDescription* t, ArrayKind a, uint32_t n) {
    FieldDescription f;
    f.name = std::move(name);
    f.type = BaseType::Nested;
    f.nested_type_name = t->full_name();
    f.nested = t;
    f.array = a;
    f.array_size = n;
    return f;
  };
  if (auto info = load("service_msgs", "msg", "ServiceEventInfo", 1)) {
    auto event = std::make_unique<MessageDescription>();
    event->package = s->package;
    event->interface = "srv";
    event->name = s->name + "_Event";
    event->fields.push_back(nested("info", *info, ArrayKind::None, 0));
    event->fields.push_back(nested("request", *req, ArrayKind::Bounded, 1));
    event->fields.push_back(nested("response", *resp, ArrayKind::Bounded, 1));
    svc->event = event.get();
    auto type = std::make_unique<MessageDescription>();
    type->package = s->package;
    type->interface = "srv";
    type->name = s->name;
    type->fields.push_back(nested("request_message", *req, ArrayKind::None, 0));
    type->fields.push_back(nested("response_message", *resp, ArrayKind::None, 0));
    type->fields.push_back(nested("event_message", svc->event, ArrayKind::None, 0));
    svc->description = type.get();
    messages_[event->full_name()] = std::move(event);
    // Kept apart from messages_: "pkg/srv/Name" is not a message type.
    service_types_.push_back(std::move(type));
  }
  auto* raw = svc.get();
  services_[key] = std::move(svc);
  return static_cast<const ServiceDescription*>(raw);
}

std::vector<const MessageDescription*> TypeRegistry::referenced_types(
    const MessageDescription& root) {
  std::set<const MessageDescription*> all;
  collect(root, all);
  all.erase(&root);
  std::vector<const MessageDescription*> out(all.begin(), all.end());
  std::sort(out.begin(), out.end(),
            [](auto* a, auto* b) { return a->full_name() < b->full_name(); });
  return out;
}

}  // namespace baton::ros2
