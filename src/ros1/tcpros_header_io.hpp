// Private to baton_ros1: reading one TCPROS connection header off a socket (its uint32 total
// length, checked before anything is allocated, then the fields, bounds-checked).
#pragma once

#include <chrono>
#include <string>

#include "baton/common/result.hpp"
#include "baton/ros1/connection_header.hpp"
#include "socket.hpp"

namespace baton::ros1::detail {

// The header, or why there is none: closed before it, not complete by `deadline`, or malformed
// (the HeaderError's name and detail).
Result<ConnectionHeader, std::string> read_connection_header(
    int fd, std::chrono::steady_clock::time_point deadline);

// The header as bytes on `fd`; false when the peer is gone.
bool write_connection_header(int fd, const ConnectionHeader& header);

}  // namespace baton::ros1::detail
