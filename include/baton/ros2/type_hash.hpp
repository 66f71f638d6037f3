// RIHS01 type hashes (REP-2011): the type description (the type, plus every type it references,
// sorted by name; default values left out) serialised as JSON exactly as Python's
// json.dumps(..., separators=(', ', ': ')) does in rosidl_generator_type_description, then
// SHA-256; printed "RIHS01_<64 hex>". RMWs publish it in discovery (USER_DATA "typehash=...")
// and rcl compares it between endpoints.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "baton/ros2/type_description.hpp"
#include "baton/topic/type_info.hpp"

namespace baton::ros2 {

// type_description_interfaces/msg/FieldType id of a field (e.g. 17 string, 51 uint8[N]).
uint8_t field_type_id(const FieldDescription& f) noexcept;

// The hashed JSON text (useful for debugging a hash mismatch against a .json in share/).
std::string type_description_json(const MessageDescription& d);

// "RIHS01_" + hex(sha256(type_description_json(d))).
std::string type_hash(const MessageDescription& d);

// "RIHS01_" + hex(bytes): the text form of a hash given as bytes (rosidl_type_hash_t::value, as
// rmw_baton_cpp gets it from a type support).
std::string format_type_hash(const std::array<uint8_t, 32>& bytes);

// The raw 32 bytes of the hash (rosidl_type_hash_t::value).
std::array<uint8_t, 32> type_hash_bytes(const MessageDescription& d);

// The baton topic identity of a ROS type: its full name and its RIHS01 bytes. rmw_baton_cpp
// guards its topics with the same, so a native baton endpoint made with it shares the topic with
// rclpy nodes on rmw_baton_cpp (one CDR sample per message in shared memory).
topic::TypeInfo type_info(const MessageDescription& d);

// SHA-256 of `data` (FIPS 180-4), exposed for tests.
std::array<uint8_t, 32> sha256(std::string_view data);

}  // namespace baton::ros2
