#include "bundled_messages.hpp"

namespace baton::ros1 {
namespace {

// rosgraph_msgs/Log (ros/ros_comm_msgs), the interface definition as published, byte for byte
// (the space after "# message" is the original's): its md5sum acffd30cd6b6de30f120938c17c593fb
// and definition are checked against genpy's in the ROS 1 type tests.
constexpr std::string_view ROSGRAPH_MSGS_LOG = R"(##
## Severity level constants
##
byte DEBUG=1 #debug level
byte INFO=2  #general level
byte WARN=4  #warning level
byte ERROR=8 #error level
byte FATAL=16 #fatal/critical level
##
## Fields
##
Header header
byte level
string name # name of the node
string msg # message 
string file # file the message came from
string function # function the message came from
uint32 line # line the message came from
string[] topics # topic names that the node publishes
)";

}  // namespace

std::optional<std::string_view> bundled_message_text(std::string_view type_name) {
  if (type_name == "rosgraph_msgs/Log") return ROSGRAPH_MSGS_LOG;
  return std::nullopt;
}

}  // namespace baton::ros1
