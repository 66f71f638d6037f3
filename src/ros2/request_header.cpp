// The request header of services on the DDS wire: see include/baton/ros2/request_header.hpp.
#include "baton/ros2/request_header.hpp"

#include <cstring>

namespace baton::ros2 {
namespace {

constexpr size_t ENCAPSULATION = 4;

// "00 01 xx xx": CDR little-endian (the options carry padding bits). Big-endian (00 00) would need
// byte-swapped header fields and is refused like the CDR decoder refuses it.
bool little_endian_cdr(std::span<const uint8_t> b) {
  return b.size() >= ENCAPSULATION && b[0] == 0x00 && b[1] == 0x01;
}

}  // namespace

Result<std::vector<uint8_t>, std::string> frame_request(const RequestHeader& header,
                                                        std::span<const uint8_t> cdr) {
  if (!little_endian_cdr(cdr))
    return unexpected(std::string("request header: the message is not little-endian CDR"));
  std::vector<uint8_t> out(cdr.size() + REQUEST_HEADER_BYTES);
  std::memcpy(out.data(), cdr.data(), ENCAPSULATION);
  std::memcpy(out.data() + ENCAPSULATION, &header.guid, 8);
  std::memcpy(out.data() + ENCAPSULATION + 8, &header.sequence, 8);
  std::memcpy(out.data() + ENCAPSULATION + REQUEST_HEADER_BYTES, cdr.data() + ENCAPSULATION,
              cdr.size() - ENCAPSULATION);
  return out;
}

Result<UnframedRequest, std::string> unframe_request(std::vector<uint8_t>& sample) {
  if (sample.size() < ENCAPSULATION + REQUEST_HEADER_BYTES)
    return unexpected("request header: " + std::to_string(sample.size()) +
                      " bytes, fewer than the 20 of encapsulation + {guid, sequence}");
  if (!little_endian_cdr(sample))
    return unexpected(std::string("request header: not little-endian CDR (encapsulation ") +
                      std::to_string(sample[0]) + " " + std::to_string(sample[1]) + ")");
  UnframedRequest out;
  std::memcpy(&out.header.guid, sample.data() + ENCAPSULATION, 8);
  std::memcpy(&out.header.sequence, sample.data() + ENCAPSULATION + 8, 8);
  // The encapsulation moves next to the body: [16 spare bytes][encapsulation][body].
  std::memmove(sample.data() + REQUEST_HEADER_BYTES, sample.data(), ENCAPSULATION);
  out.cdr = std::span<const uint8_t>(sample).subspan(REQUEST_HEADER_BYTES);
  return out;
}

}  // namespace baton::ros2
