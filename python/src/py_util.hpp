// Helpers shared by the extension's files: raising baton.errors exceptions from C++ error codes,
// Python references that may die on any thread, callback exceptions carried across executors,
// and timeouts in slices (so Ctrl-C is seen while a call waits).
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "baton/api/endpoint_error.hpp"
#include "baton/topic/publisher_port.hpp"

namespace baton::py {

namespace nb = nanobind;

// Raises the baton.errors exception for `kind` (a C++ error enumerator's name, e.g.
// "TypeMismatch") with `detail`; see baton/errors.py for the mapping and the hints.
[[noreturn]] inline void raise_error(std::string_view kind, const std::string& detail) {
  nb::object exc =
      nb::module_::import_("baton.errors").attr("_from_core")(std::string(kind), detail);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw nb::python_error();
}

inline std::string_view enumerator_name(EndpointCreateError e) {
  switch (e) {
    case EndpointCreateError::InvalidName:
      return "InvalidName";
    case EndpointCreateError::TypeMismatch:
      return "TypeMismatch";
    case EndpointCreateError::NoFreeSlot:
      return "NoFreeSlot";
    case EndpointCreateError::InvalidQos:
      return "InvalidQos";
    case EndpointCreateError::PermissionDenied:
      return "PermissionDenied";
    case EndpointCreateError::Corrupt:
      return "Corrupt";
    case EndpointCreateError::SegmentFailure:
      return "SegmentFailure";
    case EndpointCreateError::ContextShutDown:
      return "ContextShutDown";
    case EndpointCreateError::MissingCallback:
      return "MissingCallback";
  }
  return "Internal";
}

[[noreturn]] inline void raise_endpoint_error(const EndpointError& e) {
  raise_error(enumerator_name(e.code),
              e.detail.empty() ? std::string(to_string(e.code)) : e.detail);
}

[[noreturn]] inline void raise_loan_error(topic::LoanError e, std::uint64_t size) {
  if (e == topic::LoanError::TooLarge) {
    raise_error("LoanTooLarge", "a loan of " + std::to_string(size) +
                                    " bytes exceeds the publisher's max_message_size");
  }
  raise_error("OutOfMemory",
              "the publisher's pool cannot grow for a loan of " + std::to_string(size) + " bytes");
}

[[noreturn]] inline void raise_publish_error(topic::PublishError e) {
  switch (e) {
    case topic::PublishError::InvalidLoan:
      raise_error("InvalidLoan", "the loan does not belong to this publisher or was published");
    case topic::PublishError::SizeTooLarge:
      raise_error("InvalidLoan", "the payload is larger than the loaned chunk");
    case topic::PublishError::ReliableTimeout:
      raise_error("ReliableTimeout",
                  "a reliable subscriber's queue stayed full for the QoS reliable_timeout; the "
                  "message was dropped");
  }
  raise_error("Internal", "unknown publish error");
}

// A Python object that may be dropped on a thread without the GIL.
class PyRef {
 public:
  explicit PyRef(nb::object o) : obj_(std::move(o)) {}
  ~PyRef() {
    if (!Py_IsInitialized()) {
      obj_.release();  // leak at interpreter exit rather than touch a dead interpreter
      return;
    }
    nb::gil_scoped_acquire gil;
    obj_.reset();
  }
  bool valid() const { return obj_.is_valid() && !obj_.is_none(); }
  const nb::object& get() const { return obj_; }

 private:
  nb::object obj_;
};

// The first exception a callback raised inside an executor, re-raised by the spin call.
// Both functions need the GIL.
inline PyObject*& stashed_exception() {
  static PyObject* e = nullptr;
  return e;
}
inline void stash_exception(nb::python_error& e) {
  if (stashed_exception() == nullptr) {
    nb::object v = nb::borrow(e.value());
    stashed_exception() = v.release().ptr();
  }
}
inline void reraise_stashed() {
  PyObject* v = stashed_exception();
  if (v == nullptr) return;
  stashed_exception() = nullptr;
  PyObject* tb = PyException_GetTraceback(v);
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(v));
  Py_INCREF(type);
  PyErr_Restore(type, v, tb);
  throw nb::python_error();
}

using Clock = std::chrono::steady_clock;

// timeout_s < 0: forever.
inline std::optional<Clock::time_point> deadline_after(double timeout_s) {
  if (timeout_s < 0) return std::nullopt;
  return Clock::now() + std::chrono::nanoseconds(static_cast<std::int64_t>(timeout_s * 1e9));
}
// The next wait slice (at most 100 ms), or nullopt once the deadline has passed.
inline std::optional<std::chrono::nanoseconds> next_slice(
    const std::optional<Clock::time_point>& deadline) {
  constexpr std::chrono::nanoseconds SLICE = std::chrono::milliseconds(100);
  if (!deadline) return SLICE;
  const auto left = *deadline - Clock::now();
  if (left <= std::chrono::nanoseconds(0)) return std::nullopt;
  return std::min<std::chrono::nanoseconds>(SLICE, left);
}

}  // namespace baton::py
