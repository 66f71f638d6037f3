#include "py_domain.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstring>
#include <memory>
#include <optional>

#include "baton/api/domain_endpoints.hpp"
#include "baton/api/node.hpp"
#include "baton/memory/domain/domain_registry.hpp"
#include "device_io.hpp"
#include "py_util.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace baton::py {
namespace {

using memory::domain::DeviceView;
using memory::domain::DomainBackend;
using memory::domain::DomainKind;

// Where a domain buffer's elements can be reached from Python, by DLPack device.
struct Placement {
  int device_type = DLPACK_CPU;
  int device_id = 0;
  std::uint64_t address = 0;  // of the message start: host pointer or CUDA device pointer
};

Placement placement_of(const DomainBackend& backend, const DeviceView& v) {
  const auto& spec = backend.spec();
  const int id = static_cast<int>(spec.device);
  // CUDA first: on an integrated GPU the bytes are host-visible too, but a CUDA user wants a
  // CUDA tensor (torch / CuPy launch kernels on it).
  if (spec.kind == DomainKind::Cuda && v.device != 0) return {DLPACK_CUDA, id, v.device};
  if (v.host != nullptr) return {DLPACK_CPU, 0, reinterpret_cast<std::uintptr_t>(v.host)};
  return {spec.kind == DomainKind::OpenCl ? DLPACK_OPENCL : DLPACK_CPU, id, 0};
}

bool host_visible(const Placement& p) { return p.device_type == DLPACK_CPU && p.address != 0; }

[[noreturn]] void raise_not_host_visible(const DomainBackend& backend, const char* what) {
  raise_error("NotHostVisible",
              std::string("this ") + what + " lives in " + backend.spec().str() +
                  " memory the CPU cannot address (an OpenCL buffer), and no DLPack consumer "
                  "takes OpenCL memory");
}

// Device loans and samples alike: T has `view` (ArrayView), `device()` (DeviceView), `backend`
// (DomainBackend*), `check()`, and the constants READ_ONLY and WHAT ("loan" / "sample").

// A numpy view of the elements, where the CPU addresses them in place.
template <typename T>
nb::object device_array(nb::handle self) {
  auto& t = nb::cast<T&>(self);
  t.check();
  const Placement p = placement_of(*t.backend, t.device());
  if (!host_visible(p)) raise_not_host_visible(*t.backend, T::WHAT);
  return numpy_view(reinterpret_cast<std::byte*>(p.address) + t.view.offset, t.view, self,
                    T::READ_ONLY);
}

// A DLPack capsule of the elements on their own device (kDLCPU or kDLCUDA).
template <typename T>
nb::object device_dlpack(nb::handle self, nb::kwargs kwargs) {
  auto& t = nb::cast<T&>(self);
  t.check();
  const Placement p = placement_of(*t.backend, t.device());
  if (p.address == 0) raise_not_host_visible(*t.backend, T::WHAT);
  return dlpack_of(reinterpret_cast<std::byte*>(p.address) + t.view.offset, t.view, self,
                   T::READ_ONLY, p.device_type, p.device_id, kwargs);
}

template <typename T, typename Class>
void bind_device_properties(Class& cls) {
  bind_array_properties<T>(cls);
  cls.def_prop_ro("array", &device_array<T>,
                  nb::for_getter(nb::sig("def array(self, /) -> numpy.ndarray")),
                  "A numpy view of the elements (read-only for samples), no copy: host-visible\n"
                  "memory only (else NotHostVisibleError).")
      .def("__dlpack__", &device_dlpack<T>)
      .def(
          "__array__",
          [](nb::handle self, nb::object dtype, nb::object copy) {
            return array_protocol(device_array<T>(self), dtype, copy);
          },
          "dtype"_a = nb::none(), "copy"_a = nb::none(),
          nb::sig("def __array__(self, dtype: object | None = None, copy: object | None = None) "
                  "-> numpy.ndarray"))
      .def_prop_ro("domain", [](const T& t) { return t.backend->spec().str(); })
      .def("__dlpack_device__",
           [](const T& t) {
             const Placement p = placement_of(*t.backend, t.device());
             return std::make_pair(p.device_type, p.device_id);
           })
      .def_prop_ro(
          "host_visible",
          [](const T& t) { return host_visible(placement_of(*t.backend, t.device())); },
          "True if the CPU addresses the bytes in place (numpy views them without a copy).")
      .def_prop_ro(
          "data_ptr",
          [](const T& t) -> std::optional<std::uint64_t> {
            t.check();
            const Placement p = placement_of(*t.backend, t.device());
            if (p.address == 0) return std::nullopt;
            return p.address + t.view.offset;
          },
          "Address of the elements: a host pointer (kDLCPU) or a CUDA device pointer\n"
          "(kDLCUDA); None for OpenCL memory the CPU cannot address.")
      .def_prop_ro(
          "cl_mem",
          [](const T& t) -> std::optional<std::uintptr_t> {
            t.check();
            const DeviceView& v = t.device();
            if (t.backend->spec().kind != DomainKind::OpenCl || v.native == nullptr) {
              return std::nullopt;
            }
            return reinterpret_cast<std::uintptr_t>(v.native);
          },
          "The OpenCL buffer (cl_mem) holding the whole message, for PyOpenCL:\n"
          "pyopencl.Buffer.from_int_ptr(x.cl_mem, retain=True); the elements start at\n"
          "payload_offset. Valid while this object lives; None outside OpenCL domains.")
      .def(
          "read",
          [](const T& t) {
            t.check();
            nb::object out = nb::module_::import_("numpy").attr("empty")(
                nb::tuple(nb::cast(t.view.shape_vector())), numpy_dtype(t.view.dtype));
            auto* dst =
                reinterpret_cast<void*>(nb::cast<std::uintptr_t>(out.attr("ctypes").attr("data")));
            std::string err;
            {
              nb::gil_scoped_release release;
              err = read_view(*t.backend, t.device(), t.view.offset, dst, t.view.payload_bytes);
            }
            if (!err.empty()) raise_error("DomainCopyFailed", err);
            return out;
          },
          nb::sig("def read(self) -> numpy.ndarray"),
          "A host copy of the elements as a numpy array (one copy, from any domain).");
}

// ---------------------------------------------------------------------------------------------
// Publisher side

struct PyDomainPublisher;

// A writable loan in the publisher's domain; the message is [array header][elements].
struct PyDeviceLoan {
  static constexpr bool READ_ONLY = false;
  static constexpr const char* WHAT = "loan";
  topic::DeviceLoan loan;
  ArrayView view;
  DomainBackend* backend = nullptr;    // the publisher's (kept alive: loan() keeps it alive)
  PyDomainPublisher* owner = nullptr;  // likewise

  const DeviceView& device() const { return loan.view(); }
  void check() const {
    if (!loan.valid()) raise_error("InvalidLoan", "the loan was already published or discarded");
  }
};

struct PyDomainPublisher {
  std::unique_ptr<DomainPublisher> pub;
  std::optional<DType> dtype;  // nullopt: raw bytes
  std::vector<std::int64_t> shape;

  std::unique_ptr<PyDeviceLoan> loan(std::optional<std::vector<std::int64_t>> shape_arg,
                                     std::optional<std::uint64_t> nbytes) {
    std::string why;
    auto v = ArrayView::plan(dtype, shape_arg ? *shape_arg : shape, nbytes, why);
    if (!v) raise_error("InvalidShape", why);
    auto l = std::make_unique<PyDeviceLoan>();
    l->view = *v;
    l->backend = &(*pub)->backend();
    l->owner = this;
    Result<topic::DeviceLoan, topic::LoanError> r = unexpected(topic::LoanError::OutOfMemory);
    {
      nb::gil_scoped_release release;  // a device pool may be allocated
      r = (*pub)->loan(l->view.message_size());
    }
    if (!r) raise_loan_error(r.error(), l->view.message_size());
    l->loan = std::move(*r);
    return l;
  }

  void publish(PyDeviceLoan& l) {
    l.check();
    if (l.view.is_array) {
      const NdArrayHeader h = l.view.header(realtime_ns());
      const std::string err = write_view(*l.backend, l.device(), 0, &h, sizeof(h));
      if (!err.empty()) raise_error("DomainCopyFailed", "writing the array header: " + err);
    }
    Status<topic::PublishError> r;
    {
      nb::gil_scoped_release release;  // reliable QoS may wait; a copy to host may be made
      r = (*pub)->publish(std::move(l.loan), l.view.message_size());
    }
    if (!r) raise_publish_error(r.error());
  }
};

// Copies a C-contiguous buffer of exactly the loan's element bytes into the loan (any domain).
void device_loan_write(PyDeviceLoan& l, nb::handle data) {
  l.check();
  HostBuffer buf(data);
  if (buf.size() != l.view.payload_bytes) {
    raise_error("InvalidShape", "write() needs exactly " + std::to_string(l.view.payload_bytes) +
                                    " bytes (the loan's elements), got " +
                                    std::to_string(buf.size()));
  }
  std::string err;
  {
    nb::gil_scoped_release release;
    err = write_view(*l.backend, l.device(), l.view.offset, buf.data(), buf.size());
  }
  if (!err.empty()) raise_error("DomainCopyFailed", err);
}

std::unique_ptr<PyDomainPublisher> create_domain_publisher_py(
    Node& node, const std::string& topic_name, const std::string& type_name,
    const std::string& layout_facts, const std::string& domain, const QoS& qos,
    std::optional<std::pair<std::uint8_t, std::uint8_t>> dtype, std::vector<std::int64_t> shape) {
  if (dtype && !dtype_valid({dtype->first, dtype->second})) {
    raise_error("TypeMismatch", "unsupported dtype");
  }
  const auto type = topic::TypeInfo::from_name(type_name, layout_facts);
  Result<DomainPublisher, EndpointError> r = unexpected(EndpointError{});
  {
    nb::gil_scoped_release release;
    r = create_domain_publisher(node, topic_name, type, domain, qos);
  }
  if (!r) raise_endpoint_error(r.error());
  auto p = std::make_unique<PyDomainPublisher>();
  p->pub = std::make_unique<DomainPublisher>(std::move(*r));
  if (dtype) p->dtype = DType{dtype->first, dtype->second};
  p->shape = std::move(shape);
  return p;
}

// ---------------------------------------------------------------------------------------------
// Subscriber side

const char* path_name(topic::DomainPath p) {
  switch (p) {
    case topic::DomainPath::ZeroCopy:
      return "zero-copy";
    case topic::DomainPath::SharedCopy:
      return "shared-copy";
    case topic::DomainPath::MadeCopy:
      return "made-copy";
  }
  return "unknown";
}

// A message borrowed read-only in the subscription's domain.
struct PyDomainSample {
  static constexpr bool READ_ONLY = true;
  static constexpr const char* WHAT = "sample";
  topic::DomainSample sample;
  ArrayView view;
  DomainBackend* backend = nullptr;  // the subscription's (kept alive: take() keeps it alive)

  const DeviceView& device() const { return sample.view(); }
  void check() const {
    if (!sample.valid()) raise_error("InvalidLoan", "the sample was released");
  }
};

struct PyDomainSubscription {
  std::unique_ptr<DomainSubscription> sub;
  bool raw = false;

  topic::DomainSubscriber& port() const { return **sub; }

  std::unique_ptr<PyDomainSample> take(double timeout_s) {
    const auto deadline = deadline_after(timeout_s);
    while (true) {
      Result<topic::DomainSample, topic::DomainTakeError> r =
          unexpected(topic::DomainTakeError::NoData);
      {
        nb::gil_scoped_release release;  // the first take in a copying domain copies
        r = port().take();
      }
      if (r) return sample_of(std::move(*r));
      switch (r.error()) {
        case topic::DomainTakeError::TooManyLoans:
          raise_error("TooManyLoans",
                      "this subscription holds 16 samples already: release some (del, or take "
                      "them in a `with` block) before taking more");
        case topic::DomainTakeError::CopyFailed:
          raise_error("DomainCopyFailed", "a message could not be brought into " +
                                              port().domain().str() +
                                              " (device full or driver error); it was skipped");
        case topic::DomainTakeError::Busy:
          continue;  // that message was skipped (a live peer held its copy lock): take the next
        case topic::DomainTakeError::NoData:
          break;
      }
      const auto slice = next_slice(deadline);
      if (!slice) return nullptr;
      {
        nb::gil_scoped_release release;
        (void)port().wait(*slice);
      }
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
    }
  }

  std::unique_ptr<PyDomainSample> sample_of(topic::DomainSample s) {
    auto out = std::make_unique<PyDomainSample>();
    out->backend = &port().backend();
    // The header is read from the domain's copy (the host bytes of a message published in a
    // device domain may not be written yet), and parsed as untrusted input.
    const std::uint64_t size = std::min(s.size(), s.view().size);
    std::array<std::byte, sizeof(NdArrayHeader)> first{};
    if (!raw && size >= first.size()) {
      const std::string err = read_view(*out->backend, s.view(), 0, first.data(), first.size());
      if (!err.empty()) raise_error("DomainCopyFailed", "reading the array header: " + err);
    }
    out->view = ArrayView::parse(first.data(), size, raw);
    out->sample = std::move(s);
    return out;
  }
};

std::unique_ptr<PyDomainSubscription> create_domain_subscription_py(
    Node& node, const std::string& topic_name, const std::string& type_name,
    const std::string& layout_facts, const std::string& hash_hex, const std::string& domain,
    const QoS& qos, bool raw) {
  const topic::TypeInfo type = make_type(type_name, layout_facts, hash_hex);
  Result<DomainSubscription, EndpointError> r = unexpected(EndpointError{});
  {
    nb::gil_scoped_release release;
    r = create_domain_subscription(node, topic_name, type, domain, qos);
  }
  if (!r) raise_endpoint_error(r.error());
  auto s = std::make_unique<PyDomainSubscription>();
  s->sub = std::make_unique<DomainSubscription>(std::move(*r));
  s->raw = raw;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Domains

std::shared_ptr<DomainBackend> open_backend(const std::string& spec) {
  Result<std::shared_ptr<DomainBackend>, Error<memory::domain::DomainError>> b =
      unexpected(Error<memory::domain::DomainError>{});
  {
    nb::gil_scoped_release release;
    b = memory::domain::open_domain(std::string_view(spec));
  }
  if (!b) {
    raise_error(
        "DomainUnavailable",
        "'" + spec + "': " +
            (b.error().detail.empty() ? std::string(to_string(b.error().code)) : b.error().detail));
  }
  return *b;
}

nb::dict backend_dict(const DomainBackend& b) {
  const auto& i = b.info();
  nb::dict d;
  d["domain"] = b.spec().str();
  d["kind"] = std::string(to_string(b.spec().kind));
  d["device"] = i.name;
  d["platform"] = i.platform;
  d["version"] = i.version;
  d["is_cpu"] = i.is_cpu;
  d["host_unified"] = i.host_unified;
  d["zero_copy_from_host"] = b.zero_copy_from_host();
  d["svm_coarse"] = i.svm_coarse;
  d["svm_fine"] = i.svm_fine;
  d["can_export"] = b.can_export();
  d["copies"] = b.stats().copies.load();
  d["copied_bytes"] = b.stats().bytes.load();
  return d;
}

nb::dict domain_info(const std::string& spec) { return backend_dict(*open_backend(spec)); }

}  // namespace

void bind_domains(nb::module_& m) {
  auto loan_cls = nb::class_<PyDeviceLoan>(m, "DeviceLoan");
  bind_device_properties<PyDeviceLoan>(loan_cls);
  loan_cls
      .def("write", &device_loan_write, "data"_a,
           "Copies a C-contiguous buffer of the loan's element bytes into it (any domain).")
      .def(
          "publish", [](PyDeviceLoan& l) { l.owner->publish(l); },
          "Publishes the loan (consumes it); the same as publisher.publish(loan).")
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def(
          "__exit__",
          [](PyDeviceLoan& l, nb::handle exc_type, nb::args) {
            if (exc_type.is_none() && l.loan.valid()) {
              l.owner->publish(l);
            } else {
              l.loan = topic::DeviceLoan{};  // unpublished: back to the pool
            }
          },
          "exc_type"_a.none(), "rest"_a)
      .def_prop_ro("valid", [](const PyDeviceLoan& l) { return l.loan.valid(); })
      .def_prop_ro("capacity", [](const PyDeviceLoan& l) { return l.loan.capacity(); });

  nb::class_<PyDomainPublisher>(m, "DomainPublisher")
      .def("loan", &PyDomainPublisher::loan, "shape"_a = nb::none(), "nbytes"_a = nb::none(),
           nb::keep_alive<0, 1>())
      .def("publish", &PyDomainPublisher::publish, "loan"_a)
      .def_prop_ro("domain",
                   [](const PyDomainPublisher& p) { return (*p.pub)->backend().spec().str(); })
      .def_prop_ro("info",
                   [](const PyDomainPublisher& p) { return backend_dict((*p.pub)->backend()); })
      .def_prop_ro("topic_name",
                   [](const PyDomainPublisher& p) { return (*p.pub)->port().topic().name(); })
      .def_prop_ro("subscription_count",
                   [](const PyDomainPublisher& p) { return (*p.pub)->port().subscriber_count(); })
      .def_prop_ro("shape", [](const PyDomainPublisher& p) { return p.shape; })
      .def_prop_ro("is_array", [](const PyDomainPublisher& p) { return p.dtype.has_value(); });

  auto sample_cls = nb::class_<PyDomainSample>(m, "DomainSample");
  bind_device_properties<PyDomainSample>(sample_cls);
  sample_cls
      .def_prop_ro(
          "path", [](const PyDomainSample& s) { return path_name(s.sample.path()); },
          "zero-copy (the publisher's bytes), shared-copy (a copy another take made)\n"
          "or made-copy (this take copied the message into the domain)")
      .def_prop_ro("size", [](const PyDomainSample& s) { return s.sample.size(); })
      .def_prop_ro("sequence", [](const PyDomainSample& s) { return s.sample.sequence(); })
      .def_prop_ro("valid", [](const PyDomainSample& s) { return s.sample.valid(); })
      .def(
          "release", [](PyDomainSample& s) { s.sample.release(); },
          "Returns the sample now; views made earlier must not be used afterwards.")
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](PyDomainSample& s, nb::args) { s.sample.release(); });

  nb::class_<PyDomainSubscription>(m, "DomainSubscription")
      .def("take", &PyDomainSubscription::take, "timeout"_a = 0.0, nb::keep_alive<0, 1>())
      .def("has_data", [](PyDomainSubscription& s) { return s.port().has_data(); })
      .def_prop_ro("domain", [](const PyDomainSubscription& s) { return s.port().domain().str(); })
      .def_prop_ro("info",
                   [](const PyDomainSubscription& s) { return backend_dict(s.port().backend()); })
      .def_prop_ro("topic_name",
                   [](const PyDomainSubscription& s) { return s.port().port().topic().name(); })
      .def_prop_ro("lost", [](const PyDomainSubscription& s) { return s.port().port().lost(); })
      .def_prop_ro("publisher_count",
                   [](const PyDomainSubscription& s) { return s.port().port().publisher_count(); })
      .def(
          "domain_copies",
          [](const PyDomainSubscription& s, std::uint32_t slot) {
            return s.port().domain_copies(slot);
          },
          "publisher_slot"_a,
          "Copies of publisher slot p's messages made into this domain, by every process.");

  m.def("create_domain_publisher", &create_domain_publisher_py, "node"_a, "topic"_a, "type_name"_a,
        "layout_facts"_a, "domain"_a, "qos"_a, "dtype"_a.none(), "shape"_a);
  m.def("create_domain_subscription", &create_domain_subscription_py, "node"_a, "topic"_a,
        "type_name"_a, "layout_facts"_a, "type_hash"_a, "domain"_a, "qos"_a, "raw"_a);
  m.def("domain_info", &domain_info, "domain"_a,
        "What a domain's device can do (opens it; DomainUnavailableError if it cannot).");
  m.def("opencl_compiled_in", &memory::domain::opencl_compiled_in);
}

}  // namespace baton::py
