// Private to baton_ros1: TCPROS behind the bridged-endpoint core's ForeignWriter
// (src/wire/foreign_wire.hpp), so a ROS 1 Publication composes the same core as the ROS 2
// endpoints. Every TCPROS connection is a foreign reader: a baton subscriber of this shared-memory
// domain negotiated BATONSHM in requestTopic instead and never opened one (batonshm.hpp), so the
// per-connection choice made there is what the core's count sees.
#pragma once

#include <memory>

#include "../wire/foreign_wire.hpp"
#include "tcpros_publication.hpp"

namespace baton::ros1::detail {

std::unique_ptr<wire::ForeignWriter> tcpros_foreign_writer(
    std::shared_ptr<TcprosPublication> publication);

}  // namespace baton::ros1::detail
