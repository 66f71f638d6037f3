// ROS domains on baton. DDS keeps domains apart by port numbers; baton, which has no ports, keeps
// them apart by namespace: every segment name carries one (shm/naming.hpp), and processes in
// different namespaces share no topic, registry or graph. So an rmw context joins
//
//   domain 0 (the ROS default)   <BATON_NAMESPACE>            (what native baton code uses)
//   domain N > 0                 <BATON_NAMESPACE>-d<N>
//   discovery range OFF          <BATON_NAMESPACE>-d<N>-p<pid> (this process only)
//
// (BATON_NAMESPACE defaults to "default"). LOCALHOST, SUBNET, SYSTEM_DEFAULT and NOT_SET all
// mean "this host": shared memory reaches no further, and the DDS wire is not part of this rmw
// yet. Static peers are ignored for the same reason.
//
// The namespace is process-wide (shm::set_process_namespace), so every context of a process
// must join the same one; a context asking for another is refused with an error naming both.
#pragma once

#include <rmw/discovery_options.h>

#include <cstddef>
#include <string>

#include "baton/common/result.hpp"

namespace baton::ros2::rmw {

// The namespace a context with `domain_id` and `range` joins, given the base namespace (the
// escaped BATON_NAMESPACE) and this process's pid.
std::string domain_namespace(const std::string& base, std::size_t domain_id,
                             rmw_automatic_discovery_range_t range, int pid);

// Makes this process use the namespace of (domain_id, range) — the first context decides — and
// counts the context in. An error (and nothing changed) if another context of this process
// already uses a different one.
Result<std::string, std::string> join_domain(std::size_t domain_id,
                                             rmw_automatic_discovery_range_t range);

// Counts a context out; the last one out gives the namespace back to BATON_NAMESPACE.
void leave_domain();

}  // namespace baton::ros2::rmw
