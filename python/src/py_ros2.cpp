#include "py_ros2.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <mutex>
#include <optional>
#include <span>

#include "baton/ros2/cdr.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/ros2/type_registry.hpp"
#include "baton/topic/type_info.hpp"
#include "py_util.hpp"
#include "py_value.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace baton::py {
namespace {

using ros2::MessageDescription;

// The message `data` of ROS 2 type `type_name` (CDR, as baton's ros2 layer and rclpy write it)
// as a dict of fields. Raises Ros2DecodeError if the type is not found or the bytes do not
// decode (they are untrusted: decode() bounds-checks every length).
nb::object ros2_decode(const std::string& type_name, nb::bytes data) {
  const MessageDescription* d = &ros2_message_type(type_name, "Ros2Decode");
  const auto* bytes = static_cast<const std::uint8_t*>(data.data());
  auto v = ros2::decode(*d, std::span<const std::uint8_t>(bytes, data.size()));
  if (!v) raise_error("Ros2Decode", type_name + ": " + v.error().detail);
  return value_to_python(*d, *v, ValueStyle{});
}

// The type hash baton's ros2 layer gives a ROS 2 type's topic (TypeInfo::from_name without
// layout facts): a topic with this hash carries CDR; a C++ struct topic's hash differs.
std::string ros2_topic_hash(const std::string& type_name) {
  return topic::TypeInfo::from_name(type_name).hash_hex();
}

// The type hash rmw_baton_cpp and native ros2::Publishers give a ROS 2 type's topic: its RIHS01
// hash, from the .msg files on AMENT_PREFIX_PATH as it is now (a registry of its own, so a
// prefix set after the process's first ROS 2 lookup counts, as it does for the bag's ros2msg
// schema); None when a .msg is missing.
std::optional<std::string> ros2_rihs01_topic_hash(const std::string& type_name) {
  ros2::TypeRegistry types;
  types.add_ament_prefix_path();
  auto d = types.message(type_name);
  if (!d) return std::nullopt;
  return ros2::type_info(**d).hash_hex();
}

}  // namespace

Ros2Types& ros2_types() {
  static auto* r = new Ros2Types();
  return *r;
}

const ros2::MessageDescription& ros2_message_type(const std::string& type_name,
                                                  std::string_view error_kind) {
  Ros2Types& reg = ros2_types();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto r = reg.types.message(type_name);
  if (!r) raise_error(error_kind, "type '" + type_name + "': " + r.error().detail);
  return **r;
}

void bind_ros2(nb::module_& m) {
  m.def("ros2_decode", &ros2_decode, "type_name"_a, "data"_a,
        "Decodes a CDR message of a ROS 2 type found on AMENT_PREFIX_PATH into a dict.");
  m.def("ros2_topic_hash", &ros2_topic_hash, "type_name"_a,
        "The name-only type hash (hex) of a ROS 2 type's topic (baton raw endpoints).");
  m.def("ros2_rihs01_topic_hash", &ros2_rihs01_topic_hash, "type_name"_a,
        "The RIHS01 type hash (hex) of a ROS 2 type's topic (rmw_baton_cpp, ros2::Publisher), "
        "or None if its .msg files are not on AMENT_PREFIX_PATH.");
}

}  // namespace baton::py
