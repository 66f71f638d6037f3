// Private to baton_ros1: the BATONSHM transport, negotiated in requestTopic like TCPROS.
//
// A baton subscriber offers, before ["TCPROS"]:
//   ["BATONSHM", <shm tag>]          the tag of shm/domain_tag.hpp: processes with the same
//                                    tag can open each other's shared-memory segments
// A baton publisher with the same tag answers
//   ["BATONSHM", <baton topic>, <type>, <md5sum>, <slot>, <generation>, <callerid>]
// and the subscriber attaches to that baton topic (the ROS 1 topic's name under "/_ros1", typed
// by the ROS 1 type name and md5sum) and reads the ROS 1 serialized messages in place. It
// delivers only the samples of publishers that granted it shm (their port's slot and
// generation), so a publisher it reaches over TCPROS, or one publisherUpdate removed, is never
// also read from shared memory: no message arrives twice. Stock nodes never offer BATONSHM and
// get TCPROS; a publisher with another tag (another host, container or user) answers TCPROS.
#pragma once

#include <xmlrpcpp/XmlRpcValue.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "baton/common/result.hpp"
#include "baton/ros1/message_type.hpp"
#include "baton/topic/type_info.hpp"

namespace baton::ros1::detail {

inline constexpr const char* BATONSHM = "BATONSHM";

// What a publisher grants a subscriber: where to read and whose samples to take.
struct ShmGrant {
  std::string topic;  // the baton topic
  std::string type;   // ROS 1 type name
  std::string md5sum;
  uint32_t slot = 0;  // the publisher's port on the baton topic
  uint32_t generation = 0;
  std::string caller_id;  // the publishing node
};

// The baton topic that carries ROS 1 topic `ros_topic` ("/chatter" -> "/_ros1/chatter"): apart
// from ROS 2 topics of the same name, whose bytes are CDR.
std::string shm_topic_name(std::string_view ros_topic);
// The baton topic's type: the ROS 1 name, hashed with the md5sum (a changed .msg is refused).
topic::TypeInfo shm_type_info(const MessageType& type);

// The subscriber's offer: ["BATONSHM", <this process's tag>].
XmlRpc::XmlRpcValue shm_offer();
// True when `protocol` is a BATONSHM offer from this shared-memory domain.
bool is_local_shm_offer(XmlRpc::XmlRpcValue& protocol);
// requestTopic's protocol parameters for `grant`, and back. decode_grant checks every element
// (count, types, numbers); the error says what was wrong.
XmlRpc::XmlRpcValue encode_grant(const ShmGrant& grant);
Result<ShmGrant, std::string> decode_grant(XmlRpc::XmlRpcValue& params);
// True when `params` is a BATONSHM answer (decode_grant tells whether a good one).
bool is_shm_answer(XmlRpc::XmlRpcValue& params);

}  // namespace baton::ros1::detail
