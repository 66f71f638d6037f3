// Reading and writing a TCPROS connection header on a socket (tcpros_header_io.hpp).
#include "tcpros_header_io.hpp"

#include <vector>

namespace baton::ros1::detail {

Result<ConnectionHeader, std::string> read_connection_header(
    int fd, std::chrono::steady_clock::time_point deadline) {
  auto failed = [](IoStatus st, const std::string& where) {
    return st == IoStatus::Timeout ? "no complete header in time (" + where + ")"
           : st == IoStatus::Eof   ? "the connection closed before the header"
                                   : "the connection failed inside the header (" + where + ")";
  };
  uint8_t prefix[4];
  if (const auto st = read_exact(fd, prefix, 4, deadline); st != IoStatus::Ok)
    return unexpected(failed(st, "its length"));
  const uint32_t announced = uint32_t{prefix[0]} | uint32_t{prefix[1]} << 8 |
                             uint32_t{prefix[2]} << 16 | uint32_t{prefix[3]} << 24;
  auto length = check_header_length(announced);
  if (!length) return unexpected("bad header (TooLarge): " + length.error().detail);
  std::vector<uint8_t> body(*length);
  if (const auto st = read_exact(fd, body.data(), body.size(), deadline); st != IoStatus::Ok)
    return unexpected(failed(st == IoStatus::Eof ? IoStatus::Error : st,
                             std::to_string(*length) + " bytes announced"));
  auto header = decode_connection_header(body);
  if (!header)
    return unexpected("bad header (" + std::string(to_string(header.error().code)) +
                      "): " + header.error().detail);
  return std::move(*header);
}

bool write_connection_header(int fd, const ConnectionHeader& header) {
  const auto bytes = encode_connection_header(header);
  return write_all(fd, bytes.data(), bytes.size()) == IoStatus::Ok;
}

}  // namespace baton::ros1::detail
