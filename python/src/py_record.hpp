// The recorder's subscriptions (`baton bag record`, python/baton/bag/recorder.py): messages taken
// in C++, handed to Python many at a time.
#pragma once

#include <nanobind/nanobind.h>

namespace baton::py {
void bind_record(nanobind::module_& m);
}  // namespace baton::py
