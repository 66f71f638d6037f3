// The shared-memory domain this process lives in, as one string: two processes with the same
// tag can open each other's segments, so they exchange messages through shared memory and must
// not also meet on a network wire (DDS USER_DATA, ROS 1's BATONSHM offer).
//
//   "<boot id>.<device of /dev/shm, hex>.<uid>.<BATON_NAMESPACE>"
//
// The boot id changes on every boot and is the same for all containers of one kernel, hence the
// device of /dev/shm next to it (a container with a private /dev/shm differs). Contains neither
// ';' nor '=' (it travels inside "key=value;" lists). Computed on each call: BATON_NAMESPACE may
// change between tests.
#pragma once

#include <string>

namespace baton::shm {

std::string domain_tag();

}  // namespace baton::shm
