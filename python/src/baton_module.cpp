// _baton: the nanobind extension under the `baton` Python package (python/baton/__init__.py holds
// the user API: builders, errors, the CLI). This file binds the core's hot paths directly:
// loans and samples are numpy views of shared memory, never copies.
//
// GIL: every call that can wait (take with a timeout, reliable publish, executor spins, service
// calls) releases the GIL; callbacks re-acquire it. An exception raised by a Python callback
// inside an executor is stashed and re-raised by the spin call that ran it.
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include "baton/baton.hpp"
#include "baton/memory/domain/domain_registry.hpp"
#include "ndarray_header.hpp"
#include "py_domain.hpp"
#include "py_record.hpp"
#include "py_ros1.hpp"
#include "py_ros2.hpp"
#include "py_ros2_wire.hpp"
#include "py_sample.hpp"
#include "py_segments.hpp"
#include "py_service.hpp"
#include "py_util.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace baton::py {
namespace {

// ---------------------------------------------------------------------------------------------
// Publisher side

struct PyPublisher;

// A writable loan: `array` views the chunk (after the array header, if any) in place.
struct PyLoan {
  RawLoan loan;
  ArrayView view;  // what the loan holds: header + array, or bytes

  std::byte* payload_ptr() const {
    if (!loan.valid()) raise_error("InvalidLoan", "the loan was already published or discarded");
    return loan.data() + view.offset;
  }
  std::uint64_t message_size() const { return view.message_size(); }
};

struct PyPublisher {
  RawPublisher pub;
  bool is_array = false;
  DType dtype;
  std::vector<std::int64_t> shape;  // the declared default shape (arrays)

  std::unique_ptr<PyLoan> loan(std::optional<std::vector<std::int64_t>> shape_arg,
                               std::optional<std::uint64_t> nbytes) {
    auto l = std::make_unique<PyLoan>();
    std::string why;
    auto v = ArrayView::plan(is_array ? std::optional<DType>(dtype) : std::nullopt,
                             shape_arg ? *shape_arg : shape, nbytes, why);
    if (!v) raise_error("InvalidShape", why);
    l->view = *v;
    auto r = pub.loan(l->message_size());
    if (!r) raise_loan_error(r.error(), l->message_size());
    l->loan = std::move(*r);
    if (is_array) {
      const auto h = l->view.header(0);
      std::memcpy(l->loan.data(), &h, sizeof(h));
    }
    return l;
  }

  // Pays for `count` messages now (RawPublisher::reserve): of `shape` (default: the declared
  // one) for array publishers, of `nbytes` for raw ones. Returns the chunks added.
  std::uint32_t reserve(std::uint32_t count, std::optional<std::vector<std::int64_t>> shape_arg,
                        std::optional<std::uint64_t> nbytes) {
    std::string why;
    auto v = ArrayView::plan(is_array ? std::optional<DType>(dtype) : std::nullopt,
                             shape_arg ? *shape_arg : shape, nbytes, why);
    if (!v) raise_error("InvalidShape", why);
    Result<std::uint32_t, Error<memory::ReserveError>> r = 0u;
    {
      nb::gil_scoped_release release;  // commits memory: milliseconds for large messages
      r = pub.reserve(v->message_size(), count);
    }
    if (!r) raise_reserve_error(r.error());
    return *r;
  }

  void publish(PyLoan& l) {
    if (!l.loan.valid()) raise_error("InvalidLoan", "the loan was already published");
    const std::uint64_t size = l.message_size();
    if (l.view.is_array) {
      const std::uint64_t stamp = realtime_ns();
      std::memcpy(l.loan.data() + offsetof(NdArrayHeader, stamp_ns), &stamp, sizeof(stamp));
    }
    Status<PublishError> r;
    {
      nb::gil_scoped_release release;  // a reliable publish may wait for a slow subscriber
      r = pub.publish(std::move(l.loan), size);
    }
    if (!r) raise_publish_error(r.error());
  }

  // One copy of a C-contiguous buffer (numpy array, bytes, ...) into a fresh loan.
  void publish_copy(nb::handle obj) {
    HostBuffer buf(obj);
    const Py_buffer& view = buf.view();
    const auto bytes = buf.size();
    std::unique_ptr<PyLoan> l;
    if (is_array) {
      std::vector<std::int64_t> s(view.shape, view.shape + view.ndim);
      if (view.ndim == 0) s.clear();
      auto n = payload_bytes_of(s.data(), static_cast<std::uint32_t>(s.size()), dtype);
      if (!n || *n != bytes || static_cast<std::uint64_t>(view.itemsize) * 8 != dtype.bits) {
        raise_error("TypeMismatch", "array's element size does not match the publisher's dtype (" +
                                        std::to_string(dtype.bits) +
                                        " bits): convert it with .astype() first");
      }
      l = loan(s, std::nullopt);
    } else {
      l = loan(std::nullopt, bytes);
    }
    std::memcpy(l->payload_ptr(), buf.data(), bytes);
    publish(*l);
  }
};

// ---------------------------------------------------------------------------------------------
// Subscriber side

// What executors see: a subscription whose callback gets a PySample (zero-copy, owned by Python).
class PySubscription : public SubscriptionBase {
 public:
  PySubscription(std::unique_ptr<topic::SubscriberPort> port, bool raw, nb::object callback)
      : raw_(raw), callback_(std::make_shared<PyRef>(std::move(callback))) {
    port_ = std::move(port);
  }
  bool has_data() override { return port_->has_data(); }
  bool has_callback() const override { return callback_->valid(); }
  bool execute_one() override {
    auto s = port_->take();
    if (!s) return false;
    nb::gil_scoped_acquire gil;
    try {
      nb::object sample =
          nb::cast(new PySample(std::move(*s), raw_), nb::rv_policy::take_ownership);
      callback_->get()(sample);
    } catch (nb::python_error& e) {
      stash_exception(e);
    }
    return true;
  }
  std::unique_ptr<PySample> take(double timeout_s) {
    const auto deadline = deadline_after(timeout_s);
    while (true) {
      auto s = port_->take();
      if (s) return std::make_unique<PySample>(std::move(*s), raw_);
      if (s.error() == TakeError::TooManyLoans) {
        raise_error("TooManyLoans",
                    "this subscription holds 16 samples already: release some (del, or take "
                    "them in a `with` block) before taking more");
      }
      const auto slice = next_slice(deadline);
      if (!slice) return nullptr;
      bool woke;
      {
        nb::gil_scoped_release release;
        woke = port_->wait(*slice);
      }
      (void)woke;
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
    }
  }
  std::uint64_t lost() const { return port_->lost(); }
  std::uint32_t publisher_count() const { return port_->publisher_count(); }
  const std::string& topic_name() const { return port_->topic().name(); }
  bool raw() const { return raw_; }

 private:
  bool raw_;
  std::shared_ptr<PyRef> callback_;
};

nb::object sample_array(nb::handle self) {
  auto& s = nb::cast<PySample&>(self);
  s.check();
  return numpy_view(const_cast<std::byte*>(s.payload()), s.view, self, true);
}

// numpy's __array__(dtype=None, copy=None): the view itself unless a dtype change or a copy is
// asked for.
nb::object sample_array_protocol(nb::handle self, nb::object dtype, nb::object copy) {
  return array_protocol(sample_array(self), dtype, copy);
}

nb::object sample_dlpack(nb::handle self, nb::kwargs kwargs) {
  auto& s = nb::cast<PySample&>(self);
  s.check();
  return dlpack_of(const_cast<std::byte*>(s.payload()), s.view, self, true, DLPACK_CPU, 0, kwargs);
}

nb::object loan_array(nb::handle self) {
  auto& l = nb::cast<PyLoan&>(self);
  return numpy_view(l.payload_ptr(), l.view, self, false);
}

nb::object loan_dlpack(nb::handle self, nb::kwargs kwargs) {
  auto& l = nb::cast<PyLoan&>(self);
  return dlpack_of(l.payload_ptr(), l.view, self, false, DLPACK_CPU, 0, kwargs);
}

// ---------------------------------------------------------------------------------------------
// Creation

QoS make_qos(const QoS& q) { return q; }

WaitMode wait_mode_of(const std::string& m) {
  if (m == "busy-poll" || m == "busy_poll") return WaitMode::BusyPoll;
  if (m == "adaptive") return WaitMode::Adaptive;
  if (m == "blocking") return WaitMode::Blocking;
  raise_error("InvalidQos", "wait mode must be blocking, busy-poll or adaptive, not '" + m + "'");
}

std::unique_ptr<PyPublisher> create_publisher(
    Node& node, const std::string& topic_name, const std::string& type_name,
    const std::string& layout_facts, const std::string& hash_hex, const QoS& qos, bool is_array,
    std::uint8_t code, std::uint8_t bits, std::vector<std::int64_t> shape,
    std::uint64_t max_message_size, std::uint32_t reserve_count,
    std::optional<std::uint64_t> reserve_nbytes) {
  const DType d{code, bits};
  if (is_array && !dtype_valid(d)) raise_error("TypeMismatch", "unsupported dtype");
  const auto type = make_type(type_name, layout_facts, hash_hex);
  memory::PoolConfig pool;
  if (max_message_size != 0) pool.max_chunk_size = max_message_size + NDARRAY_PAYLOAD_OFFSET;
  Result<std::shared_ptr<detail::PublisherImpl>, EndpointError> impl = unexpected(EndpointError{});
  {
    nb::gil_scoped_release release;
    impl = detail::make_publisher(node, topic_name, type, qos, pool);
  }
  if (!impl) raise_endpoint_error(impl.error());
  auto p = std::make_unique<PyPublisher>();
  p->pub = RawPublisher(std::move(*impl));
  p->is_array = is_array;
  p->dtype = d;
  p->shape = std::move(shape);
  if (reserve_count != 0) p->reserve(reserve_count, std::nullopt, reserve_nbytes);
  return p;
}

std::shared_ptr<PySubscription> create_subscription(Node& node, const std::string& topic_name,
                                                    const std::string& type_name,
                                                    const std::string& layout_facts,
                                                    const std::string& hash_hex, const QoS& qos,
                                                    bool raw, const std::string& wait_mode,
                                                    nb::object callback) {
  return open_subscription<PySubscription>(node, topic_name, type_name, layout_facts, hash_hex, qos,
                                           wait_mode_of(wait_mode), raw, std::move(callback));
}

// ---------------------------------------------------------------------------------------------
// Executors

class PyExecutor {
 public:
  PyExecutor(std::shared_ptr<Context> ctx, std::size_t threads, bool multi,
             const std::string& wait_mode)
      : ctx_(ctx) {
    ExecutorOptions o;
    o.wait_mode = wait_mode_of(wait_mode);
    if (multi) {
      exec_ = std::make_unique<MultiThreadedExecutor>(ctx, threads, o);
    } else {
      exec_ = std::make_unique<SingleThreadedExecutor>(ctx, o);
    }
    multi_ = multi;
  }
  ~PyExecutor() {
    nb::gil_scoped_release release;  // callbacks still running need the GIL to finish
    exec_.reset();
  }
  void add_node(Node& node) { check(exec_->add_node(node)); }
  void add_subscription(std::shared_ptr<SubscriptionBase> s) {
    check(exec_->add_subscription(std::move(s)));
  }
  bool remove_subscription(const SubscriptionBase& s) { return exec_->remove_subscription(s); }
  bool spin_once(double timeout_s) {
    bool ran;
    {
      nb::gil_scoped_release release;
      ran = exec_->spin_once(to_ns(timeout_s));
    }
    reraise_stashed();
    return ran;
  }
  void spin_some(double max_duration_s) {
    {
      nb::gil_scoped_release release;
      exec_->spin_some(to_ns(max_duration_s < 0 ? 0 : max_duration_s));
    }
    reraise_stashed();
  }
  // Spins until cancel(), the context's shutdown, or an exception (a callback's, or
  // KeyboardInterrupt: signals are checked every 100 ms).
  void spin() {
    cancelled_.store(false);
    if (multi_) {
      std::thread worker;
      {
        nb::gil_scoped_release release;
        worker = std::thread([this] { exec_->spin(); });
      }
      try {
        while (ctx_->ok() && !cancelled_.load()) {
          {
            nb::gil_scoped_release release;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
          }
          if (!worker.joinable()) break;
          reraise_stashed();
          if (PyErr_CheckSignals() != 0) throw nb::python_error();
          if (!exec_->is_spinning() && cancelled_.load()) break;
        }
      } catch (...) {
        exec_->cancel();
        nb::gil_scoped_release release;
        worker.join();
        throw;
      }
      exec_->cancel();
      nb::gil_scoped_release release;
      worker.join();
      return;
    }
    while (ctx_->ok() && !cancelled_.load()) {
      {
        nb::gil_scoped_release release;
        exec_->spin_once(std::chrono::milliseconds(100));
      }
      reraise_stashed();
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
    }
  }
  void cancel() {
    cancelled_.store(true);
    exec_->cancel();
  }

 private:
  static std::chrono::nanoseconds to_ns(double s) {
    if (s < 0) return std::chrono::nanoseconds(-1);
    return std::chrono::nanoseconds(static_cast<std::int64_t>(s * 1e9));
  }
  static void check(const Status<ExecutorError>& s) {
    if (!s) raise_error("Executor", std::string(to_string(s.error())));
  }
  std::shared_ptr<Context> ctx_;
  std::unique_ptr<Executor> exec_;
  bool multi_ = false;
  std::atomic<bool> cancelled_{false};
};

// ---------------------------------------------------------------------------------------------
// Graph

nb::dict endpoint_dict(const graph::EndpointInfo& e) {
  nb::dict d;
  d["kind"] = std::string(graph::to_string(e.kind));
  d["name"] = e.name;
  d["type"] = e.type.name;
  d["type_hash"] = e.type.hash_hex();
  d["node"] = e.node_fully_qualified_name;
  d["pid"] = e.pid;
  d["depth"] = e.qos.depth;
  d["reliability"] = e.qos.reliability == topic::Reliability::Reliable ? "reliable" : "best_effort";
  d["durability"] =
      e.qos.durability == topic::Durability::TransientLocal ? "transient_local" : "volatile";
  return d;
}

nb::dict graph_snapshot(const std::shared_ptr<Context>& ctx) {
  Result<std::shared_ptr<graph::Registry>, Error<graph::RegistryOpenError>> reg =
      unexpected(Error<graph::RegistryOpenError>{});
  {
    nb::gil_scoped_release release;
    reg = ctx->graph();
  }
  if (!reg) {
    raise_error("Graph", "the graph registry could not be opened: " + reg.error().detail);
  }
  graph::GraphSnapshot snap;
  {
    nb::gil_scoped_release release;
    snap = (*reg)->snapshot();
  }
  nb::dict out;
  nb::list nodes, endpoints, topics, services, issues;
  for (const auto& n : snap.nodes) {
    nb::dict d;
    d["name"] = n.name;
    d["namespace"] = n.namespace_;
    d["fqn"] = n.fully_qualified_name;
    d["pid"] = n.pid;
    nodes.append(d);
  }
  for (const auto& e : snap.endpoints) endpoints.append(endpoint_dict(e));
  for (const auto& t : snap.topics()) {
    nb::dict d;
    d["name"] = t.name;
    d["types"] = t.types;
    d["publisher_count"] = t.publisher_count;
    d["subscription_count"] = t.subscription_count;
    topics.append(d);
  }
  for (const auto& s : snap.services()) {
    nb::dict d;
    d["name"] = s.name;
    d["types"] = s.types;
    d["server_count"] = s.server_count;
    d["client_count"] = s.client_count;
    services.append(d);
  }
  for (const auto& i : snap.issues) {
    issues.append(std::string(graph::to_string(i.table)) + "[" + std::to_string(i.index) +
                  "]: " + i.what);
  }
  out["epoch"] = snap.epoch;
  out["consistent"] = snap.consistent;
  out["nodes"] = nodes;
  out["endpoints"] = endpoints;
  out["topics"] = topics;
  out["services"] = services;
  out["issues"] = issues;
  out["registry"] = (*reg)->segment().name();
  return out;
}

// The built-in defaults, read from the very structs the core uses (for `baton config`).
nb::dict defaults() {
  const ContextOptions ctx;
  const memory::PoolConfig pool;
  const QoS qos;
  const ExecutorOptions exec;
  nb::dict d;
  d["janitor_period_s"] = ctx.janitor_period.count() / 1e3;
  d["segment_mode"] = ctx.segment_mode;
  d["graph_registry"] = ctx.graph_registry;
  d["max_message_size"] = pool.max_chunk_size;
  d["max_pool_bytes"] = pool.max_total_bytes;
  d["max_segment_bytes"] = pool.max_segment_bytes;
  d["expected_outstanding"] = pool.expected_outstanding;
  d["qos_depth"] = qos.depth();
  d["qos_reliability"] = qos.reliability() == Reliability::Reliable ? "reliable" : "best_effort";
  d["qos_durability"] =
      qos.durability() == Durability::TransientLocal ? "transient_local" : "volatile";
  d["qos_reliable_timeout_s"] = qos.timeout().count() / 1e9;
  d["wait_mode"] = exec.wait_mode == WaitMode::Blocking   ? "blocking"
                   : exec.wait_mode == WaitMode::BusyPoll ? "busy-poll"
                                                          : "adaptive";
  d["adaptive_spin_us"] = exec.spin_time.count() / 1e3;
  d["max_publishers_per_topic"] = topic::MAX_PUBLISHERS;
  d["max_subscriptions_per_topic"] = topic::MAX_SUBSCRIBERS;
  d["max_loans_per_subscription"] = topic::MAX_LOANS_PER_SUBSCRIBER;
  d["opencl_compiled_in"] = memory::domain::opencl_compiled_in();
  return d;
}

// ---------------------------------------------------------------------------------------------
// The module's bindings, one function per concept (NB_MODULE below calls them in this order, so
// a class is registered before the signatures that name it).

// QoS: the builder Python's QoS wraps, with its fields read back as strings for `baton config`.
void bind_qos(nb::module_& m) {
  nb::class_<QoS>(m, "QoS")
      .def(nb::init<std::uint32_t>(), "depth"_a = 10)
      .def_static("sensor_data", &QoS::sensor_data)
      .def("keep_last", &QoS::keep_last, "depth"_a, nb::rv_policy::reference)
      .def("reliable", &QoS::reliable, nb::rv_policy::reference)
      .def("best_effort", &QoS::best_effort, nb::rv_policy::reference)
      .def("transient_local", &QoS::transient_local, nb::rv_policy::reference)
      .def("durability_volatile", &QoS::durability_volatile, nb::rv_policy::reference)
      .def(
          "reliable_timeout",
          [](QoS& q, double seconds) -> QoS& {
            return q.reliable_timeout(
                std::chrono::nanoseconds(static_cast<std::int64_t>(seconds * 1e9)));
          },
          "seconds"_a, nb::rv_policy::reference)
      .def_prop_ro("depth", &QoS::depth)
      .def_prop_ro("reliability",
                   [](const QoS& q) {
                     return q.reliability() == Reliability::Reliable ? "reliable" : "best_effort";
                   })
      .def_prop_ro("durability",
                   [](const QoS& q) {
                     return q.durability() == Durability::TransientLocal ? "transient_local"
                                                                         : "volatile";
                   })
      .def_prop_ro("timeout", [](const QoS& q) { return q.timeout().count() / 1e9; })
      .def("copy", &make_qos)
      .def("__repr__", [](const QoS& q) {
        return std::string("QoS(keep_last=") + std::to_string(q.depth()) + ", " +
               (q.reliability() == Reliability::Reliable ? "reliable" : "best_effort") + ", " +
               (q.durability() == Durability::TransientLocal ? "transient_local" : "volatile") +
               ")";
      });
}

// Context (the process's janitor, segments and graph registry) and Node, which every endpoint
// hangs off.
void bind_context_and_node(nb::module_& m) {
  nb::class_<Context>(m, "Context")
      .def_static(
          "create",
          [](double janitor_period_s, std::uint32_t segment_mode, const std::string& registry) {
            ContextOptions o;
            o.janitor_period =
                std::chrono::milliseconds(static_cast<std::int64_t>(janitor_period_s * 1000));
            o.segment_mode = segment_mode;
            o.graph_registry = registry;
            return Context::create(o);
          },
          "janitor_period"_a = 0.5, "segment_mode"_a = 0600, "graph_registry"_a = "registry")
      .def("shutdown", &Context::shutdown, nb::call_guard<nb::gil_scoped_release>())
      .def("ok", &Context::ok)
      .def("reclaim_dead", &Context::reclaim_dead, nb::call_guard<nb::gil_scoped_release>());

  nb::class_<Node>(m, "Node")
      .def(nb::init<std::shared_ptr<Context>, std::string, std::string>(), "context"_a, "name"_a,
           "namespace"_a = "/", nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("name", &Node::name)
      .def_prop_ro("namespace", &Node::get_namespace)
      .def("get_namespace", &Node::get_namespace)
      .def("fully_qualified_name", &Node::fully_qualified_name)
      .def("resolve", &Node::resolve)
      .def_prop_ro("context", &Node::context)
      .def("registered", [](const Node& n) { return n.graph_node() != nullptr; });
}

// Publisher side: a Loan views a chunk in place; Publisher loans, publishes and reports its pool.
void bind_publishing(nb::module_& m) {
  auto loan_cls = nb::class_<PyLoan>(m, "Loan");
  bind_array_properties<PyLoan>(loan_cls);
  loan_cls
      .def_prop_ro("array", &loan_array,
                   nb::for_getter(nb::sig("def array(self, /) -> numpy.ndarray")),
                   "A writable numpy view of the loaned chunk (no copy).")
      .def("__dlpack__", &loan_dlpack)
      .def("__dlpack_device__", [](const PyLoan&) { return std::make_pair(DLPACK_CPU, 0); })
      .def_prop_ro("valid", [](const PyLoan& l) { return l.loan.valid(); })
      .def_prop_ro("capacity", [](const PyLoan& l) { return l.loan.capacity(); })
      .def_prop_ro("data_ptr", [](const PyLoan& l) {
        return reinterpret_cast<std::uintptr_t>(l.payload_ptr());
      });

  nb::class_<PyPublisher>(m, "Publisher")
      .def("loan", &PyPublisher::loan, "shape"_a = nb::none(), "nbytes"_a = nb::none())
      .def("publish", &PyPublisher::publish, "loan"_a)
      .def("publish_copy", &PyPublisher::publish_copy, "data"_a)
      .def("reserve", &PyPublisher::reserve, "count"_a, "shape"_a = nb::none(),
           "nbytes"_a = nb::none())
      .def_prop_ro(
          "pool",
          [](PyPublisher& p) {
            const auto& pool = p.pub.port().pool();
            nb::dict d;
            d["segments"] = pool.segment_count();
            d["chunks"] = pool.chunk_count();
            d["free"] = pool.free_count();
            d["committed_bytes"] = pool.committed_bytes();
            d["address_bytes"] = pool.address_bytes();
            return d;
          },
          nb::for_getter(nb::sig("def pool(self, /) -> dict[str, int]")))
      .def_prop_ro("subscription_count",
                   [](const PyPublisher& p) { return p.pub.subscription_count(); })
      .def_prop_ro("topic_name", [](const PyPublisher& p) { return p.pub.topic_name(); })
      .def_prop_ro("qos", [](const PyPublisher& p) { return p.pub.qos(); })
      .def_prop_ro("is_array", [](const PyPublisher& p) { return p.is_array; })
      .def_prop_ro("shape", [](const PyPublisher& p) { return p.shape; })
      .def_prop_ro("dtype_code", [](const PyPublisher& p) { return p.dtype.code; })
      .def_prop_ro("dtype_bits", [](const PyPublisher& p) { return p.dtype.bits; });
}

// Subscriber side: a Sample views a message in shared memory (read-only, no copy); Subscription
// takes them.
void bind_subscribing(nb::module_& m) {
  auto sample_cls = nb::class_<PySample>(m, "Sample", nb::type_slots(sample_type_slots()));
  bind_array_properties<PySample>(sample_cls);
  sample_cls
      .def_prop_ro("array", &sample_array,
                   nb::for_getter(nb::sig("def array(self, /) -> numpy.ndarray")),
                   "A read-only numpy view of the message (no copy).")
      .def("__dlpack__", &sample_dlpack)
      .def("__dlpack_device__", [](const PySample&) { return std::make_pair(DLPACK_CPU, 0); })
      .def_prop_ro("size", [](const PySample& s) { return s.sample.size(); })
      .def_prop_ro("sequence", [](const PySample& s) { return s.sample.sequence(); })
      .def_prop_ro("publisher_slot", [](const PySample& s) { return s.sample.publisher_slot(); })
      .def_prop_ro(
          "source_timestamp", [](const PySample& s) { return s.sample.source_timestamp_ns(); },
          "When it was published: ns since the epoch on the system clock (the publisher's "
          "stamp, what `baton bag record` logs it at); 0 from a publisher that does not stamp.")
      .def_prop_ro("valid", [](const PySample& s) { return s.sample.valid(); })
      .def_prop_ro("data_ptr",
                   [](const PySample& s) {
                     s.check();
                     return reinterpret_cast<std::uintptr_t>(s.payload());
                   })
      .def("tobytes",
           [](const PySample& s) {
             s.check();
             return nb::bytes(reinterpret_cast<const char*>(s.payload()), s.view.payload_bytes);
           })
      .def("message_bytes",
           [](const PySample& s) {
             s.check();
             return nb::bytes(reinterpret_cast<const char*>(s.sample.data()), s.sample.size());
           })
      .def(
          "release", [](PySample& s) { s.sample.release(); },
          "Returns the loan now; views made earlier must not be used afterwards.")
      .def("__array__", &sample_array_protocol, "dtype"_a = nb::none(), "copy"_a = nb::none(),
           nb::sig("def __array__(self, dtype: object | None = None, copy: object | None = None) "
                   "-> numpy.ndarray"))
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](PySample& s, nb::args) { s.sample.release(); })
      .def("__repr__", [](nb::handle self) -> nb::object {
        auto& s = nb::cast<PySample&>(self);
        if (!s.sample.valid()) return nb::str("<baton.Sample released>");
        return nb::str("<baton.Sample seq={} dtype={} shape={}>")
            .format(s.sample.sequence(), numpy_dtype(s.view.dtype),
                    nb::tuple(nb::cast(s.view.shape_vector())));
      });

  nb::class_<SubscriptionBase>(m, "SubscriptionBase");
  nb::class_<PySubscription, SubscriptionBase>(m, "Subscription")
      .def("take", &PySubscription::take, "timeout"_a = 0.0)
      .def("has_data", &PySubscription::has_data)
      .def_prop_ro("lost", &PySubscription::lost)
      .def_prop_ro("publisher_count", &PySubscription::publisher_count)
      .def_prop_ro("topic_name", &PySubscription::topic_name)
      .def_prop_ro("raw", &PySubscription::raw);
}

// The executor: spins callbacks of subscriptions and nodes, with the GIL released while it waits.
void bind_executor(nb::module_& m) {
  nb::class_<PyExecutor>(m, "Executor")
      .def(nb::init<std::shared_ptr<Context>, std::size_t, bool, std::string>(), "context"_a,
           "threads"_a = 0, "multi_threaded"_a = false, "wait_mode"_a = "blocking")
      .def("add_node", &PyExecutor::add_node, "node"_a)
      .def("add_subscription", &PyExecutor::add_subscription, "entity"_a)
      .def("remove_subscription", &PyExecutor::remove_subscription, "entity"_a)
      .def("spin_once", &PyExecutor::spin_once, "timeout"_a = -1.0)
      .def("spin_some", &PyExecutor::spin_some, "max_duration"_a = 0.0)
      .def("spin", &PyExecutor::spin)
      .def("cancel", &PyExecutor::cancel);
}

// Module-level functions: endpoint factories the Python builders call, the graph snapshot and
// name/type helpers of the CLI.
void bind_module_functions(nb::module_& m) {
  m.def("create_publisher", &create_publisher, "node"_a, "topic"_a, "type_name"_a, "layout_facts"_a,
        "type_hash"_a, "qos"_a, "is_array"_a, "dtype_code"_a, "dtype_bits"_a, "shape"_a,
        "max_message_size"_a, "reserve_count"_a = 0, "reserve_nbytes"_a = nb::none());
  m.def("create_subscription", &create_subscription, "node"_a, "topic"_a, "type_name"_a,
        "layout_facts"_a, "type_hash"_a, "qos"_a, "raw"_a, "wait_mode"_a, "callback"_a.none());
  m.def("graph_snapshot", &graph_snapshot, "context"_a);
  m.def("defaults", &defaults,
        "The core's built-in defaults (ContextOptions, PoolConfig, QoS, ...)");
  m.def("resolve_topic_name", &resolve_topic_name, "name"_a, "namespace"_a = "/",
        "node_name"_a = "");
  m.def(
      "topic_type_hash",
      [](const std::string& type_name, const std::string& layout_facts) {
        return topic::TypeInfo::from_name(type_name, layout_facts).hash_hex();
      },
      "type_name"_a, "layout_facts"_a = "",
      "The type hash (hex) endpoints of this type name and layout facts attach with.");
}

}  // namespace
}  // namespace baton::py

NB_MODULE(_baton, m) {
  using namespace baton::py;
  m.doc() = "baton's native core (use the `baton` package, not this module)";
  // Objects still alive at interpreter exit (module globals, the default context) are fine.
  nb::set_leak_warnings(false);
  m.attr("NDARRAY_HEADER_VERSION") = NDARRAY_HEADER_VERSION;
  m.attr("NDARRAY_HEADER_SIZE") = NDARRAY_PAYLOAD_OFFSET;
  m.attr("NDARRAY_MAX_DIMS") = NDARRAY_MAX_DIMS;

  bind_qos(m);
  bind_context_and_node(m);
  bind_publishing(m);
  bind_subscribing(m);
  bind_services(m);
  bind_domains(m);
  bind_segments(m);
  bind_ros2(m);
  bind_ros2_wire(m);
  bind_ros1(m);
  bind_record(m);
  bind_executor(m);
  bind_module_functions(m);
}
