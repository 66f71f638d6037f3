// Private to baton_ros2 (Service, Client) and rmw_baton_cpp (rmw_service.cpp): the
// shared-memory side of a ROS 2 service, written once. Requests and responses are baton topic
// messages framed as baton's own services frame them (baton/api/detail/service_wire.hpp), with a
// CDR payload:
//
//   request  on "<service>/_request":              [ServiceMessageHeader (32 B)][CDR request]
//   response on "<service>/_response/<client id>":  [ServiceMessageHeader (32 B)][CDR response]
//
// So a native Client and rclpy on rmw_baton_cpp (same shm domain) call each other's services.
// Everything read from shared memory is untrusted: the header and the sizes are checked, and the
// caller decodes the CDR as untrusted input.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include "baton/api/detail/service_wire.hpp"
#include "baton/api/publisher.hpp"
#include "baton/api/subscription.hpp"
#include "baton/common/result.hpp"
#include "baton/ros2/type_hash.hpp"
#include "baton/topic/topic.hpp"
#include "baton/topic/type_info.hpp"

namespace baton::ros2::detail {

inline constexpr uint64_t SHM_SERVICE_HEADER = sizeof(baton::detail::ServiceMessageHeader);

// The TypeInfo of the request / response topics: named after <Name>_Request / <Name>_Response
// (they do not carry the plain message, so they must not share a topic of that message type) and
// guarded by the service's RIHS01 `hash`, so peers with another definition are refused.
inline topic::TypeInfo service_topic_type(const std::string& service_type, const char* part,
                                          const std::array<uint8_t, 32>& hash) {
  // format_type_hash gives "RIHS01_<hex>"; the facts keep the hex only (as they always have).
  const std::string facts = "rmw_baton_cpp service wire v1, " + format_type_hash(hash).substr(7);
  return topic::TypeInfo::from_name(service_type + part, facts);
}

// Publishes [header {client_id, sequence}][CDR] in one loan of `publisher`. `cdr_size` bounds the
// CDR; `encode(span)` writes it and returns the bytes used or why it could not. The error text
// names the topic.
template <typename Encode>
Status<std::string> publish_shm_framed(RawPublisher& publisher, uint64_t client_id,
                                       int64_t sequence, uint64_t cdr_size, Encode encode) {
  auto loan = publisher.loan(SHM_SERVICE_HEADER + cdr_size);
  if (!loan)
    return unexpected("no loan on '" + publisher.topic_name() +
                      "': " + std::string(topic::to_string(loan.error())));
  const auto h = baton::detail::make_header(client_id, static_cast<uint64_t>(sequence));
  std::memcpy(loan->data(), &h, SHM_SERVICE_HEADER);
  auto* body = reinterpret_cast<uint8_t*>(loan->data()) + SHM_SERVICE_HEADER;
  Result<uint64_t, std::string> used = encode(std::span<uint8_t>(body, cdr_size));
  if (!used) return unexpected(used.error());
  auto r = publisher.publish(std::move(*loan), SHM_SERVICE_HEADER + *used);
  if (!r)
    return unexpected("publish on '" + publisher.topic_name() +
                      "': " + std::string(topic::to_string(r.error())));
  return Ok{};
}

struct ShmTaken {
  baton::detail::ServiceMessageHeader header{};
  int64_t source_timestamp_ns = 0;
};

// Takes framed samples from `queue` until one has a valid header, passes `accept(header)` and
// `decode(cdr)` ("" or why not); the others are dropped (`on_bad(why)` hears of those that did
// not decode). nullopt: nothing acceptable waiting.
template <typename Accept, typename Decode, typename OnBad>
std::optional<ShmTaken> take_shm_framed(RawSubscription& queue, Accept accept, Decode decode,
                                        OnBad on_bad) {
  while (true) {
    auto sample = queue.take();
    if (!sample) return std::nullopt;  // NoData, or TooManyLoans (samples are released at once)
    ShmTaken out;
    if (sample->size() < SHM_SERVICE_HEADER) continue;
    std::memcpy(&out.header, sample->data(), SHM_SERVICE_HEADER);
    if (!baton::detail::header_valid(out.header, sample->size(), SHM_SERVICE_HEADER) ||
        !accept(out.header))
      continue;
    const std::span<const uint8_t> cdr(
        reinterpret_cast<const uint8_t*>(sample->data()) + SHM_SERVICE_HEADER,
        sample->size() - SHM_SERVICE_HEADER);
    if (const std::string why = decode(cdr); !why.empty()) {
      on_bad(why);
      continue;
    }
    out.source_timestamp_ns = sample->source_timestamp_ns();
    return out;
  }
}

// A client's path for one request (rmw_baton_cpp and Client): shared memory whenever a server
// of its own shm domain listens on "<service>/_request" (`shm_servers` > 0), otherwise DDS when a
// foreign server is matched there (`foreign_server_matched()`, RpcWire::server_available: asked
// only then, it walks the matched endpoints); never both. With neither, shared memory (nobody
// takes it, as a DDS request nobody reads).
template <typename ForeignServerMatched>
bool request_goes_on_wire(uint32_t shm_servers, ForeignServerMatched foreign_server_matched) {
  return shm_servers == 0 && foreign_server_matched();
}
template <typename ForeignServerMatched>
bool service_is_available(uint32_t shm_servers, ForeignServerMatched foreign_server_matched) {
  return shm_servers != 0 || foreign_server_matched();
}

// A service's response publishers, one per client ("<service>/_response/<client id>"), opened on
// the client's first response. Closing them (destructor) removes the topics nobody uses any more.
class ShmResponders {
 public:
  ShmResponders() = default;
  ShmResponders(const ShmResponders&) = delete;
  ShmResponders& operator=(const ShmResponders&) = delete;
  ~ShmResponders() { clear(); }

  // Closes every publisher and removes the topics nobody else uses.
  void clear() {
    for (auto& [id, pub] : map_) {
      const std::string t = pub.topic_name();
      pub = RawPublisher();
      topic::remove_topic_if_unused(t);
    }
    map_.clear();
  }

  // The publisher to `client_id`, opened with `open(topic)` (-> Result<RawPublisher, std::string>)
  // the first time. nullptr: the client is gone (nobody listens on its topic any more, or never
  // did: the id came from shared memory, so a topic without a listener is no live client); its
  // topic is removed.
  template <typename Open>
  Result<RawPublisher*, std::string> get(const std::string& service, uint64_t client_id,
                                         Open open) {
    auto it = map_.find(client_id);
    if (it != map_.end() && it->second.subscription_count() == 0) {
      // The client is gone (destroyed, or died and was reclaimed): forget its topic.
      const std::string t = it->second.topic_name();
      map_.erase(it);
      topic::remove_topic_if_unused(t);
      it = map_.end();
    }
    if (it == map_.end()) {
      Result<RawPublisher, std::string> pub =
          open(baton::detail::response_topic(service, client_id));
      if (!pub) return unexpected(pub.error());
      if (pub->subscription_count() == 0) {
        const std::string t = pub->topic_name();
        *pub = RawPublisher();
        topic::remove_topic_if_unused(t);
        return static_cast<RawPublisher*>(nullptr);
      }
      it = map_.emplace(client_id, std::move(*pub)).first;
    }
    return &it->second;
  }

 private:
  std::unordered_map<uint64_t, RawPublisher> map_;
};

}  // namespace baton::ros2::detail
