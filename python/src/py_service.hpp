// Byte services and clients for Python (the typed C++ Service<S> / Client<S> need compile-time
// Request / Response structs). Same wire as C++ services (api/detail/service_wire.hpp): requests
// on "<service>/_request", responses on "<service>/_response/<client_id>", each message a
// ServiceMessageHeader followed by the payload, here of any length. The topic types are
// "<srv_type>_Request" / "<srv_type>_Response" hashed with "raw;wire=<version>", so a Python
// client meets a Python service of the same srv_type and is refused (type mismatch) by a typed
// C++ service of that name.
//
// Both are SubscriptionBase subclasses, so executors run them like subscriptions.
#pragma once

#include <nanobind/nanobind.h>

namespace baton::py {
void bind_services(nanobind::module_& m);
}  // namespace baton::py
