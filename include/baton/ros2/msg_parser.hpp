// Parser of ROS 2 .msg and .srv text into MessageDescription (nested types by name only; the
// TypeRegistry resolves them). Supports: all primitive types, `string<=N`, `wstring<=N`,
// `T[N]`, `T[<=N]`, `T[]`, `pkg/Type` and same-package `Type` (and `Header` as std_msgs/Header),
// constants `TYPE NAME=value`, default values (parsed past and ignored), comments, `---` in .srv.
// A .msg without fields gets `uint8 structure_needs_at_least_one_member`, as rosidl's IDL does.
#pragma once

#include <string_view>
#include <utility>

#include "baton/common/result.hpp"
#include "baton/ros2/type_description.hpp"
#include "baton/ros2/type_load_error.hpp"

namespace baton::ros2 {

// `interface` is "msg" or "srv" (for the parts of a service); `name` the type's short name.
Result<MessageDescription, Error<TypeLoadError>> parse_message(std::string_view text,
                                                               std::string_view package,
                                                               std::string_view interface,
                                                               std::string_view name);

// Splits at `---` and returns {Name_Request, Name_Response}.
Result<std::pair<MessageDescription, MessageDescription>, Error<TypeLoadError>> parse_service(
    std::string_view text, std::string_view package, std::string_view name);

}  // namespace baton::ros2
