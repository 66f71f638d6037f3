// Names of baton's shared-memory segments: "/baton.<uid>.<namespace>.<kind>.<escaped name>".
// The uid keeps users apart; the namespace (env BATON_NAMESPACE, default "default") lets tests
// and separate robots on one host keep apart too. Characters outside [A-Za-z0-9_-] are escaped
// as %XX; names longer than NAME_MAX are shortened with a hash suffix.
#pragma once

#include <string>
#include <string_view>

namespace baton::shm {

// The namespace in effect: BATON_NAMESPACE or "default" (escaped).
std::string current_namespace();

// Full shm name for `kind_tag` ("t", "p", "d", "g", ...) and a user-level name such as a topic.
std::string segment_name(std::string_view kind_tag, std::string_view name);

// The prefix all segments of this user and namespace share (for listing / cleaning).
std::string segment_prefix();

// Escapes a user-level name into the [A-Za-z0-9_%-] alphabet.
std::string escape_name(std::string_view name);

}  // namespace baton::shm
