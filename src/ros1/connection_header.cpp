// TCPROS connection header encoding and (bounds-checked) decoding.
#include "baton/ros1/connection_header.hpp"

#include <cstring>

namespace baton::ros1 {
namespace {

using Err = Error<HeaderError>;

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

uint32_t get_u32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

std::vector<uint8_t> encode_connection_header(const ConnectionHeader& header) {
  std::vector<uint8_t> out(4, 0);
  for (const auto& [key, value] : header) {
    put_u32(out, static_cast<uint32_t>(key.size() + 1 + value.size()));
    out.insert(out.end(), key.begin(), key.end());
    out.push_back('=');
    out.insert(out.end(), value.begin(), value.end());
  }
  const auto total = static_cast<uint32_t>(out.size() - 4);
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(total >> (8 * i));
  return out;
}

Result<uint32_t, Err> check_header_length(uint32_t length) {
  if (length > MAX_HEADER_BYTES)
    return unexpected(Err{HeaderError::TooLarge, "connection header of " + std::to_string(length) +
                                                     " bytes (at most " +
                                                     std::to_string(MAX_HEADER_BYTES) + ")"});
  return length;
}

Result<ConnectionHeader, Err> decode_connection_header(std::span<const uint8_t> body) {
  if (auto ok = check_header_length(
          static_cast<uint32_t>(std::min<size_t>(body.size(), size_t{MAX_HEADER_BYTES} + 1)));
      !ok)
    return unexpected(ok.error());
  ConnectionHeader header;
  size_t pos = 0;
  while (pos < body.size()) {
    if (body.size() - pos < 4)
      return unexpected(Err{HeaderError::Truncated,
                            "field length at offset " + std::to_string(pos) + " needs 4 bytes, " +
                                std::to_string(body.size() - pos) + " left"});
    const uint32_t len = get_u32(body.data() + pos);
    pos += 4;
    if (len > body.size() - pos)
      return unexpected(
          Err{HeaderError::Truncated, "field of " + std::to_string(len) + " bytes at offset " +
                                          std::to_string(pos - 4) + ", " +
                                          std::to_string(body.size() - pos) + " left"});
    const std::string_view field(reinterpret_cast<const char*>(body.data() + pos), len);
    pos += len;
    const auto eq = field.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return unexpected(
          Err{HeaderError::MalformedField, "field at offset " + std::to_string(pos - len - 4) +
                                               (eq == 0 ? " has an empty key" : " has no '='")});
    header[std::string(field.substr(0, eq))] = std::string(field.substr(eq + 1));
  }
  return header;
}

Result<std::string, Err> require_field(const ConnectionHeader& header, std::string_view key) {
  const auto it = header.find(std::string(key));
  if (it == header.end()) {
    const auto who = header.find("callerid");
    return unexpected(Err{HeaderError::MissingField,
                          "connection header" +
                              (who != header.end() ? " from " + who->second : std::string()) +
                              " has no '" + std::string(key) + "' field"});
  }
  return it->second;
}

}  // namespace baton::ros1
