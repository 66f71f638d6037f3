// Private to baton_ros1: MD5 (RFC 1321), used only for genmsg's type md5sums, never for security.
#pragma once

#include <string>
#include <string_view>

namespace baton::ros1::detail {

// The 32 lowercase hex digits of MD5(data).
std::string md5_hex(std::string_view data);

}  // namespace baton::ros1::detail
