// Segments for Python and `baton shm list | inspect | clean`: listing this user's baton segments,
// removing dead participants' ones, and decoding one segment's header and body for a person.
//
// Inspecting never trusts the segment: the 64-byte header is read with pread (no mapping, so a
// truncated file cannot SIGBUS), validated by shm::Segment::open (magic -> version -> sizes ->
// kind, the same checks every participant makes), and a body is decoded only after its layout's
// own checks passed, every offset and count range-checked against the segment size.
#pragma once

#include <nanobind/nanobind.h>

namespace baton::py {
void bind_segments(nanobind::module_& m);
}  // namespace baton::py
