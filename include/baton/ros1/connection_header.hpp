// The TCPROS connection header: a uint32 total length, then fields, each a uint32 length and
// "key=value" (the value may hold '=' and any byte). Both ends send one when a connection opens;
// the keys used for topics are callerid, topic, type, md5sum, message_definition, latching,
// tcp_nodelay and error.
//
// decode_connection_header reads bytes from the network: every length is checked against what is
// left and against MAX_HEADER_BYTES before use, and any violation is an error naming it.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "baton/common/result.hpp"

namespace baton::ros1 {

using ConnectionHeader = std::map<std::string, std::string>;

// Largest header accepted (1 MiB): a message_definition of the largest ROS 1 types is a few tens
// of KiB; a larger length prefix is treated as garbage, not allocated.
inline constexpr uint32_t MAX_HEADER_BYTES = 1u << 20;

enum class HeaderError : uint8_t {
  // The total length exceeds MAX_HEADER_BYTES: the peer does not speak TCPROS. Connection dropped.
  TooLarge,
  // A field's length points past the end of the header. Connection dropped.
  Truncated,
  // A field has no '=' (or an empty key). Connection dropped.
  MalformedField,
  // A field the connection needs is absent (detail names it). Connection refused.
  MissingField,
};

constexpr std::string_view to_string(HeaderError e) noexcept {
  switch (e) {
    case HeaderError::TooLarge:
      return "TooLarge";
    case HeaderError::Truncated:
      return "Truncated";
    case HeaderError::MalformedField:
      return "MalformedField";
    case HeaderError::MissingField:
      return "MissingField";
  }
  return "?";
}

// The header as sent: the 4-byte total length, then the fields in key order.
std::vector<uint8_t> encode_connection_header(const ConnectionHeader& header);

// Checks a received total length (the first 4 bytes) before the body is read.
Result<uint32_t, Error<HeaderError>> check_header_length(uint32_t length);

// Decodes the body (the bytes after the total length). A key given twice keeps its last value,
// as roscpp and rospy do.
Result<ConnectionHeader, Error<HeaderError>> decode_connection_header(
    std::span<const uint8_t> body);

// `header[key]`, or MissingField naming the key and who sent the header.
Result<std::string, Error<HeaderError>> require_field(const ConnectionHeader& header,
                                                      std::string_view key);

}  // namespace baton::ros1
