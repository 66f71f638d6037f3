// The wire format of service requests and responses (not API). Both are ordinary topic messages:
//
//   request  on "<service>/_request":                [ServiceMessageHeader][pad][Request]
//   response on "<service>/_response/<client_id>":   [ServiceMessageHeader][pad][Response]
//
// The payload starts at payload_offset<T>() = sizeof(header) rounded up to alignof(T); chunk
// payloads are 64-byte aligned, so the payload is correctly aligned in place.
//
// ServiceMessageHeader, 32 bytes:
// | off | width | field        | writer                  | readers                        |
// |   0 |     8 | client_id    | client (echoed by svc)  | service (reply route), client  |
// |   8 |     8 | sequence     | client (echoed by svc)  | client (matches its request)   |
// |  16 |     4 | header_size  | sender                  | receiver: must equal 32        |
// |  20 |     4 | version      | sender                  | receiver: must equal the below |
// |  24 |     8 | reserved_0   | sender: zero            | -                              |
// No atomics: the message is immutable once published (the topic layer's "row-publish" sync
// point orders it). Everything read from it is untrusted and checked before use.
//
// Bump SERVICE_WIRE_VERSION when a field changes width, order or meaning; it is part of the
// request/response type hashes, so mismatched peers are refused at attach time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace baton::detail {

inline constexpr std::uint32_t SERVICE_WIRE_VERSION = 1;

struct ServiceMessageHeader {
  std::uint64_t client_id;
  std::uint64_t sequence;
  std::uint32_t header_size;
  std::uint32_t version;
  std::uint64_t reserved_0;
};
static_assert(sizeof(ServiceMessageHeader) == 32);
static_assert(alignof(ServiceMessageHeader) == 8);
static_assert(offsetof(ServiceMessageHeader, client_id) == 0);
static_assert(offsetof(ServiceMessageHeader, sequence) == 8);
static_assert(offsetof(ServiceMessageHeader, header_size) == 16);
static_assert(offsetof(ServiceMessageHeader, version) == 20);
static_assert(offsetof(ServiceMessageHeader, reserved_0) == 24);
static_assert(std::is_standard_layout_v<ServiceMessageHeader>);
static_assert(std::is_trivially_copyable_v<ServiceMessageHeader>);

template <typename T>
constexpr std::uint64_t payload_offset() {
  static_assert(alignof(T) <= 64, "service payloads must not need more than 64-byte alignment");
  constexpr std::uint64_t a = alignof(T);
  return (sizeof(ServiceMessageHeader) + a - 1) / a * a;
}

template <typename T>
constexpr std::uint64_t message_size() {
  return payload_offset<T>() + sizeof(T);
}

inline ServiceMessageHeader make_header(std::uint64_t client_id, std::uint64_t sequence) {
  return {client_id, sequence, sizeof(ServiceMessageHeader), SERVICE_WIRE_VERSION, 0};
}

// True if `bytes` of `size` carry a header this build understands and room for a T.
inline bool header_valid(const ServiceMessageHeader& h, std::uint64_t size, std::uint64_t needed) {
  return size >= needed && h.header_size == sizeof(ServiceMessageHeader) &&
         h.version == SERVICE_WIRE_VERSION;
}

inline std::string request_topic(const std::string& service) { return service + "/_request"; }
inline std::string response_topic(const std::string& service, std::uint64_t client_id) {
  return service + "/_response/" + std::to_string(client_id);
}

}  // namespace baton::detail
