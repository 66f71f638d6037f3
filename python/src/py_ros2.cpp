#include "py_ros2.hpp"

#include <nanobind/stl/string.h>

#include <cstring>
#include <mutex>
#include <span>

#include "baton/ros2/cdr.hpp"
#include "baton/ros2/type_registry.hpp"
#include "baton/topic/type_info.hpp"
#include "py_util.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace baton::py {
namespace {

using ros2::ArrayKind;
using ros2::BaseType;
using ros2::FieldDescription;
using ros2::MessageDescription;
using ros2::Value;

// One value of primitive type `t` at `p` (primitive_size(t) bytes, little-endian).
nb::object primitive(BaseType t, const std::uint8_t* p) {
  auto get = [p]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  };
  switch (t) {
    case BaseType::Bool:
      return nb::bool_(*p != 0);
    case BaseType::Byte:
    case BaseType::Char:
    case BaseType::UInt8:
      return nb::int_(*p);
    case BaseType::Int8:
      return nb::int_(get(std::int8_t{}));
    case BaseType::Int16:
      return nb::int_(get(std::int16_t{}));
    case BaseType::UInt16:
      return nb::int_(get(std::uint16_t{}));
    case BaseType::Int32:
      return nb::int_(get(std::int32_t{}));
    case BaseType::UInt32:
      return nb::int_(get(std::uint32_t{}));
    case BaseType::Int64:
      return nb::int_(get(std::int64_t{}));
    case BaseType::UInt64:
      return nb::int_(get(std::uint64_t{}));
    case BaseType::Float32:
      return nb::float_(get(float{}));
    case BaseType::Float64:
      return nb::float_(get(double{}));
    default:
      return nb::none();
  }
}

nb::object wide(const std::u16string& s) {
  PyObject* o = PyUnicode_DecodeUTF16(reinterpret_cast<const char*>(s.data()),
                                      static_cast<Py_ssize_t>(s.size() * 2), "replace", nullptr);
  if (o == nullptr) throw nb::python_error();
  return nb::steal(o);
}

nb::object message_object(const MessageDescription& d, const Value& v);

// One element of field `f` (a scalar, or one element of an array of strings / messages).
nb::object element(const FieldDescription& f, const Value& v) {
  if (f.type == BaseType::String) return nb::str(v.str.data(), v.str.size());
  if (f.type == BaseType::WString) return wide(v.wstr);
  if (f.type == BaseType::Nested) {
    if (f.nested == nullptr) raise_error("Ros2Decode", "field '" + f.name + "' has no type");
    return message_object(*f.nested, v);
  }
  if (v.raw.size() < ros2::primitive_size(f.type)) {
    raise_error("Ros2Decode", "field '" + f.name + "' is shorter than its type");
  }
  return primitive(f.type, v.raw.data());
}

// A field's value: scalars as Python scalars, primitive arrays as a list, others as lists.
nb::object field_object(const FieldDescription& f, const Value& v) {
  if (f.array == ArrayKind::None) return element(f, v);
  nb::list out;
  if (ros2::is_primitive(f.type)) {
    const std::size_t n = ros2::primitive_size(f.type);
    for (std::size_t off = 0; off + n <= v.raw.size(); off += n) {
      out.append(primitive(f.type, v.raw.data() + off));
    }
    return out;
  }
  for (const Value& item : v.items) out.append(element(f, item));
  return out;
}

nb::object message_object(const MessageDescription& d, const Value& v) {
  if (v.items.size() != d.fields.size()) {
    raise_error("Ros2Decode", d.full_name() + ": value has " + std::to_string(v.items.size()) +
                                  " fields, the type " + std::to_string(d.fields.size()));
  }
  nb::dict out;
  for (std::size_t i = 0; i < d.fields.size(); ++i) {
    out[nb::str(d.fields[i].name.c_str())] = field_object(d.fields[i], v.items[i]);
  }
  return out;
}

// Types from AMENT_PREFIX_PATH (as ros2 tools find them), loaded on demand; never destroyed,
// because the descriptions it hands out are borrowed from it.
struct SharedRegistry {
  std::mutex mutex;
  ros2::TypeRegistry types;
  SharedRegistry() { types.add_ament_prefix_path(); }
};
SharedRegistry& shared_registry() {
  static auto* r = new SharedRegistry();
  return *r;
}

// The message `data` of ROS 2 type `type_name` (CDR, as baton's ros2 layer and rclpy write it)
// as a dict of fields. Raises Ros2DecodeError if the type is not found or the bytes do not
// decode (they are untrusted: decode() bounds-checks every length).
nb::object ros2_decode(const std::string& type_name, nb::bytes data) {
  SharedRegistry& reg = shared_registry();
  const MessageDescription* d = nullptr;
  {
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto r = reg.types.message(type_name);
    if (!r) raise_error("Ros2Decode", "type '" + type_name + "': " + r.error().detail);
    d = *r;
  }
  const auto* bytes = static_cast<const std::uint8_t*>(data.data());
  auto v = ros2::decode(*d, std::span<const std::uint8_t>(bytes, data.size()));
  if (!v) raise_error("Ros2Decode", type_name + ": " + v.error().detail);
  return message_object(*d, *v);
}

// The type hash baton's ros2 layer gives a ROS 2 type's topic (TypeInfo::from_name without
// layout facts): a topic with this hash carries CDR; a C++ struct topic's hash differs.
std::string ros2_topic_hash(const std::string& type_name) {
  return topic::TypeInfo::from_name(type_name).hash_hex();
}

}  // namespace

void bind_ros2(nb::module_& m) {
  m.def("ros2_decode", &ros2_decode, "type_name"_a, "data"_a,
        "Decodes a CDR message of a ROS 2 type found on AMENT_PREFIX_PATH into a dict.");
  m.def("ros2_topic_hash", &ros2_topic_hash, "type_name"_a);
}

}  // namespace baton::py
