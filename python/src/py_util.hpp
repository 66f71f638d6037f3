// Helpers shared by the extension's files: raising baton.errors exceptions from C++ error codes,
// Python references that may die on any thread, callback exceptions carried across executors,
// and timeouts in slices (so Ctrl-C is seen while a call waits).
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "array_view.hpp"
#include "baton/api/endpoint_error.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/type_info.hpp"

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
    case EndpointCreateError::DomainUnavailable:
      return "DomainUnavailable";
    case EndpointCreateError::ReservationFailed:
      return "ReservationFailed";
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

[[noreturn]] inline void raise_reserve_error(const Error<memory::ReserveError>& e) {
  raise_error(e.code == memory::ReserveError::TooLarge ? "LoanTooLarge" : "ReservationFailed",
              e.detail);
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

// A topic's type identity: from its name and layout facts, or (hash_hex non-empty) the exact hash
// discovery reported, for subscriptions that take whatever type a topic already has.
inline topic::TypeInfo make_type(const std::string& name, const std::string& layout_facts,
                                 const std::string& hash_hex) {
  if (hash_hex.empty()) return topic::TypeInfo::from_name(name, layout_facts);
  topic::TypeInfo t;
  t.name = name;
  if (hash_hex.size() != 64 ||
      hash_hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    raise_error("InvalidName", "type hash must be 64 hex digits");
  }
  for (std::size_t i = 0; i < 32; ++i) {
    t.hash[i] = static_cast<std::uint8_t>(std::stoul(hash_hex.substr(2 * i, 2), nullptr, 16));
  }
  return t;
}

// A C-contiguous buffer of a Python object (numpy array, bytes, ...), released with this object.
class HostBuffer {
 public:
  explicit HostBuffer(nb::handle obj) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_ND) != 0) {
      throw nb::python_error();
    }
  }
  ~HostBuffer() { PyBuffer_Release(&view_); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  const Py_buffer& view() const { return view_; }
  const void* data() const { return view_.buf; }
  std::uint64_t size() const { return static_cast<std::uint64_t>(view_.len); }

 private:
  Py_buffer view_{};
};

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

// ---------------------------------------------------------------------------------------------
// Arrays: numpy views and DLPack capsules of message bytes, never copies

// DLPack device types (dlpack.h DLDeviceType).
inline constexpr int DLPACK_CPU = 1;
inline constexpr int DLPACK_CUDA = 2;
inline constexpr int DLPACK_OPENCL = 4;

inline std::uint64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

inline nb::dlpack::dtype to_dlpack(DType d) {
  nb::dlpack::dtype t;
  t.code = d.code;
  t.bits = d.bits;
  t.lanes = 1;
  return t;
}

// The numpy dtype of a DLPack (code, bits) pair.
inline nb::object numpy_dtype(DType d) {
  static const char* kinds[] = {"i", "u", "f", "?", "?", "c", "b"};
  nb::object dtype = nb::module_::import_("numpy").attr("dtype");
  if (d.code == 6) return dtype("bool");
  return dtype(std::string("<") + kinds[d.code < 7 ? d.code : 3] + std::to_string(d.bits / 8));
}

// A numpy array over the elements `v` describes at `data` (host memory), kept alive by `owner`.
inline nb::object numpy_view(std::byte* data, const ArrayView& v, nb::handle owner,
                             bool read_only) {
  if (read_only) {
    return nb::cast(nb::ndarray<nb::numpy, nb::ro>(data, v.ndim, v.shape, owner, nullptr,
                                                   to_dlpack(v.dtype), nb::device::cpu::value));
  }
  return nb::cast(nb::ndarray<nb::numpy>(data, v.ndim, v.shape, owner, nullptr, to_dlpack(v.dtype),
                                         nb::device::cpu::value));
}

// __dlpack__(**kwargs) of the elements `v` describes at `data` on (device_type, device_id):
// a capsule that keeps `owner` alive until the consumer lets go.
inline nb::object dlpack_of(void* data, const ArrayView& v, nb::handle owner, bool read_only,
                            int device_type, int device_id, const nb::kwargs& kwargs) {
  nb::object nd;
  if (read_only) {
    nd = nb::cast(nb::ndarray<nb::array_api, nb::ro>(data, v.ndim, v.shape, owner, nullptr,
                                                     to_dlpack(v.dtype), device_type, device_id));
  } else {
    nd = nb::cast(nb::ndarray<nb::array_api>(data, v.ndim, v.shape, owner, nullptr,
                                             to_dlpack(v.dtype), device_type, device_id));
  }
  return nd.attr("__dlpack__")(**kwargs);
}

// numpy's __array__(dtype=None, copy=None) over a view: the view itself unless a dtype change or
// a copy is asked for.
inline nb::object array_protocol(nb::object a, nb::object dtype, nb::object copy) {
  if (!dtype.is_none() &&
      !a.attr("dtype").equal(nb::module_::import_("numpy").attr("dtype")(dtype))) {
    return a.attr("astype")(dtype);
  }
  if (!copy.is_none() && nb::cast<bool>(copy)) return a.attr("copy")();
  return a;
}

// The array-describing properties every loan / sample class has (T has an ArrayView `view`).
template <typename T, typename Class>
void bind_array_properties(Class& cls) {
  cls.def_prop_ro("is_array", [](const T& t) { return t.view.is_array; })
      .def_prop_ro(
          "header_problem", [](const T& t) { return t.view.problem; },
          "Why a message meant as an array is shown as bytes (empty if it is not).")
      .def_prop_ro("dtype_code", [](const T& t) { return t.view.dtype.code; })
      .def_prop_ro("dtype_bits", [](const T& t) { return t.view.dtype.bits; })
      .def_prop_ro(
          "dtype", [](const T& t) { return numpy_dtype(t.view.dtype); },
          nb::for_getter(nb::sig("def dtype(self, /) -> numpy.dtype")),
          "numpy dtype of the elements (uint8 for bytes)")
      .def_prop_ro("shape", [](const T& t) { return t.view.shape_vector(); })
      .def_prop_ro(
          "nbytes", [](const T& t) { return t.view.payload_bytes; }, "bytes of the elements")
      .def_prop_ro(
          "payload_offset", [](const T& t) { return t.view.offset; },
          "where the elements start in the message (128 for arrays: the header comes first)")
      .def_prop_ro(
          "stamp_ns", [](const T& t) { return t.view.stamp_ns; },
          "Publish time (CLOCK_REALTIME ns) of array messages; 0 if unknown.");
}

}  // namespace baton::py
