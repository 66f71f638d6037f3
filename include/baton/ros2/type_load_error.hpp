// Errors of parsing .msg / .srv text and of loading interface types from share directories.
#pragma once

#include <cstdint>
#include <string_view>

namespace baton::ros2 {

enum class TypeLoadError : uint8_t {
  // The type name is not "pkg/Name", "pkg/msg/Name" or "pkg/srv/Name": fix the caller's name.
  BadTypeName,
  // No share directory known to the registry has the package: add_share_root / add_package it.
  PackageNotFound,
  // The package is known but has no such .msg / .srv file.
  FileNotFound,
  // A line of the file does not parse (detail: file, line number, text, why).
  Syntax,
  // A field's type is unknown (neither primitive nor a loadable nested type).
  UnknownType,
  // Nested types refer to each other in a cycle (never valid in ROS 2).
  Recursive,
  // Anything else (I/O errors); detail says what.
  Internal,
};

constexpr std::string_view to_string(TypeLoadError e) noexcept {
  switch (e) {
    case TypeLoadError::BadTypeName:
      return "BadTypeName";
    case TypeLoadError::PackageNotFound:
      return "PackageNotFound";
    case TypeLoadError::FileNotFound:
      return "FileNotFound";
    case TypeLoadError::Syntax:
      return "Syntax";
    case TypeLoadError::UnknownType:
      return "UnknownType";
    case TypeLoadError::Recursive:
      return "Recursive";
    case TypeLoadError::Internal:
      return "Internal";
  }
  return "?";
}

}  // namespace baton::ros2
