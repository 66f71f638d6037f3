// Who shares memory with whom, as seen on the DDS wire: the USER_DATA of baton's DDS endpoints
// (private to the ros2 layer).
//
//   USER_DATA = "baton=<tag>;typehash=RIHS01_<64 hex>;"
//
// `typehash=…;` is what rmw_cyclonedds_cpp / rmw_fastrtps_cpp write (rmw_dds_common's
// encode_type_hash_for_user_data_qos); other RMWs read it for get_*_info_by_topic. `baton=<tag>`
// names the shared-memory domain the endpoint's process lives in (shm::domain_tag(),
// baton/shm/domain_tag.hpp). Two endpoints with the same tag exchange messages through shared
// memory and must not also meet on DDS:
//   - a writer sends on DDS only while a matched reader lacks its tag;
//   - a reader drops DDS samples of writers with its tag (they came through shared memory).
// This file is the one place that builds and reads USER_DATA; the native endpoints
// (Publisher, Subscription) and rmw_baton_cpp both use it.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace baton::ros2 {

// "baton=<tag>;typehash=<type_hash>;" ("typehash" omitted when `type_hash` is empty, "baton"
// when `tag` is empty).
std::string endpoint_user_data(std::string_view type_hash, std::string_view tag);

// USER_DATA's "key=value;" pairs, as rmw::impl::cpp::parse_key_value reads them (a pair without
// '=' is skipped, later keys win). Never trusts the input: any bytes give some map.
std::map<std::string, std::string> parse_user_data(std::span<const uint8_t> user_data);

// True when `user_data` carries `baton=<tag>` with exactly this `tag` (a non-empty one).
bool has_shm_tag(std::span<const uint8_t> user_data, std::string_view tag);

}  // namespace baton::ros2
