// Runtime description of a ROS 2 interface type (.msg / .srv), as read from a package's share
// directory by TypeRegistry. It drives the CDR codec (cdr.hpp) and the RIHS01 type hash
// (type_hash.hpp); the same description serves every package, so no per-type code is generated.
//
// Ownership: a MessageDescription is owned by the TypeRegistry that loaded it; FieldDescription::
// nested borrows from that registry and is valid until the registry is destroyed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace baton::ros2 {

// The base type of a field (the element type when the field is an array or sequence).
// Names follow the .msg spelling; `Char` is the .msg `char` (an unsigned 8-bit integer in ROS 2)
// and `Byte` is the .msg `byte` (an IDL octet).
enum class BaseType : uint8_t {
  Bool,
  Byte,
  Char,
  Int8,
  UInt8,
  Int16,
  UInt16,
  Int32,
  UInt32,
  Int64,
  UInt64,
  Float32,
  Float64,
  String,
  WString,
  Nested,
};

constexpr std::string_view to_string(BaseType t) noexcept {
  switch (t) {
    case BaseType::Bool:
      return "bool";
    case BaseType::Byte:
      return "byte";
    case BaseType::Char:
      return "char";
    case BaseType::Int8:
      return "int8";
    case BaseType::UInt8:
      return "uint8";
    case BaseType::Int16:
      return "int16";
    case BaseType::UInt16:
      return "uint16";
    case BaseType::Int32:
      return "int32";
    case BaseType::UInt32:
      return "uint32";
    case BaseType::Int64:
      return "int64";
    case BaseType::UInt64:
      return "uint64";
    case BaseType::Float32:
      return "float32";
    case BaseType::Float64:
      return "float64";
    case BaseType::String:
      return "string";
    case BaseType::WString:
      return "wstring";
    case BaseType::Nested:
      return "nested";
  }
  return "?";
}

// Size in bytes of one CDR-encoded primitive (also its XCDR1 alignment); 0 for strings / nested.
constexpr uint32_t primitive_size(BaseType t) noexcept {
  switch (t) {
    case BaseType::Bool:
    case BaseType::Byte:
    case BaseType::Char:
    case BaseType::Int8:
    case BaseType::UInt8:
      return 1;
    case BaseType::Int16:
    case BaseType::UInt16:
      return 2;
    case BaseType::Int32:
    case BaseType::UInt32:
    case BaseType::Float32:
      return 4;
    case BaseType::Int64:
    case BaseType::UInt64:
    case BaseType::Float64:
      return 8;
    default:
      return 0;
  }
}

constexpr bool is_primitive(BaseType t) noexcept { return primitive_size(t) != 0; }

enum class ArrayKind : uint8_t {
  None,       // a single value
  Fixed,      // T[N]: exactly N elements, no length on the wire
  Bounded,    // T[<=N]: uint32 length, at most N elements
  Unbounded,  // T[]: uint32 length
};

struct MessageDescription;

struct FieldDescription {
  std::string name;
  BaseType type = BaseType::UInt8;
  std::string nested_type_name;                // "pkg/msg/Name" when type == Nested
  const MessageDescription* nested = nullptr;  // borrowed from the registry
  uint32_t string_bound = 0;                   // string<=N / wstring<=N; 0 = unbounded
  ArrayKind array = ArrayKind::None;
  uint32_t array_size = 0;  // N of T[N] or T[<=N]
};

// A constant (`int32 FOO=3`): kept as text, it never reaches the wire or the type hash.
struct ConstantDescription {
  std::string name;
  BaseType type = BaseType::UInt8;
  std::string value;
};

// "sensor_msgs/msg/Image" -> "sensor_msgs::msg::dds_::Image_": the DDS type name ROS 2 RMWs
// register for a ROS type (rmw_baton_cpp has only the name, from the type support).
inline std::string dds_type_name(std::string_view ros_type) {
  std::string out;
  size_t start = 0;
  for (size_t slash = ros_type.find('/'); slash != std::string_view::npos;
       slash = ros_type.find('/', start)) {
    out.append(ros_type.substr(start, slash - start)).append("::");
    start = slash + 1;
  }
  return out.append("dds_::").append(ros_type.substr(start)).append("_");
}

struct MessageDescription {
  std::string package;    // "sensor_msgs"
  std::string interface;  // "msg" or "srv"
  std::string name;       // "Image", or "AddTwoInts_Request" for a service part
  std::vector<FieldDescription> fields;
  std::vector<ConstantDescription> constants;

  // "sensor_msgs/msg/Image" (the form used by type descriptions and ros2 CLI).
  std::string full_name() const { return package + "/" + interface + "/" + name; }
  // "sensor_msgs::msg::dds_::Image_" (the DDS type name ROS 2 RMWs register).
  std::string dds_type_name() const { return ros2::dds_type_name(full_name()); }
  int field_index(std::string_view field_name) const {
    for (size_t i = 0; i < fields.size(); ++i)
      if (fields[i].name == field_name) return static_cast<int>(i);
    return -1;
  }
};

struct ServiceDescription {
  std::string package;
  std::string name;                              // "AddTwoInts"
  const MessageDescription* request = nullptr;   // borrowed from the registry
  const MessageDescription* response = nullptr;  // borrowed from the registry
  // Name_Event (info: service_msgs/msg/ServiceEventInfo, request[<=1], response[<=1]), and the
  // service's own description (request_message, response_message, event_message) whose RIHS01
  // hash is the service's type hash. nullptr when service_msgs could not be loaded.
  const MessageDescription* event = nullptr;
  const MessageDescription* description = nullptr;
  std::string full_name() const { return package + "/srv/" + name; }
};

}  // namespace baton::ros2
