// A value on the ROS 1 parameter server (http://wiki.ros.org/Parameter_Server): what XML-RPC can
// carry there and rospy / roscpp / rosparam read and write: bool, 32-bit int, double, string, and
// lists and dicts of those (nested). A namespace read as a whole ("/ns") is a Dict.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace baton::ros1 {

struct ParamValue {
  using List = std::vector<ParamValue>;
  // Keys in the order given; read from the master they come sorted by key (a struct is a map
  // there), so compare a Dict read back with one written in key order.
  using Dict = std::vector<std::pair<std::string, ParamValue>>;

  std::variant<bool, int32_t, double, std::string, List, Dict> value;

  ParamValue() : value(std::string()) {}
  ParamValue(bool v) : value(v) {}                      // NOLINT: a parameter is a value
  ParamValue(int32_t v) : value(v) {}                   // NOLINT
  ParamValue(double v) : value(v) {}                    // NOLINT
  ParamValue(std::string v) : value(std::move(v)) {}    // NOLINT
  ParamValue(const char* v) : value(std::string(v)) {}  // NOLINT
  ParamValue(List v) : value(std::move(v)) {}           // NOLINT
  ParamValue(Dict v) : value(std::move(v)) {}           // NOLINT

  template <typename T>
  bool is() const noexcept {
    return std::holds_alternative<T>(value);
  }
  template <typename T>
  const T& get() const {  // std::bad_variant_access when it is not a T
    return std::get<T>(value);
  }
  // dict[key], or nullptr when this is not a Dict or has no such key.
  const ParamValue* find(const std::string& key) const {
    if (!is<Dict>()) return nullptr;
    for (const auto& [k, v] : get<Dict>())
      if (k == key) return &v;
    return nullptr;
  }
  bool operator==(const ParamValue& o) const { return value == o.value; }
};

}  // namespace baton::ros1
