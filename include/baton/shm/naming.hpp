// Names of baton's shared-memory segments: "/baton.<uid>.<namespace>.<kind>.<escaped name>".
// The uid keeps users apart; the namespace (env BATON_NAMESPACE, default "default") lets tests
// and separate robots on one host keep apart too. Characters outside [A-Za-z0-9_-] are escaped
// as %XX; names longer than NAME_MAX are shortened with a hash suffix.
#pragma once

#include <string>
#include <string_view>

namespace baton::shm {

// The namespace in effect: the process namespace if one is set (set_process_namespace),
// otherwise BATON_NAMESPACE or "default" (escaped).
std::string current_namespace();

// BATON_NAMESPACE or "default" (escaped), whatever set_process_namespace says.
std::string environment_namespace();

// Makes `ns` (escaped here) the namespace of every segment this process names from now on,
// instead of BATON_NAMESPACE; an empty `ns` goes back to BATON_NAMESPACE. Segments already open
// keep their names. rmw_baton_cpp uses it to keep ROS domains apart (ROS_DOMAIN_ID); it is
// process-wide because a segment's name is, and not inherited by child processes (unlike the
// environment variable). Thread-safe.
void set_process_namespace(std::string_view ns);

// Full shm name for `kind_tag` ("t", "p", "d", "g", ...) and a user-level name such as a topic.
std::string segment_name(std::string_view kind_tag, std::string_view name);

// The prefix all segments of this user and namespace share (for listing / cleaning).
std::string segment_prefix();

// Escapes a user-level name into the [A-Za-z0-9_%-] alphabet.
std::string escape_name(std::string_view name);

}  // namespace baton::shm
