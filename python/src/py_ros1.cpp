#include "py_ros1.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "baton/ros1/serialization.hpp"
#include "baton/ros1/type_registry.hpp"
#include "py_util.hpp"
#include "py_value.hpp"
#if BATON_HAVE_XMLRPCPP
#include "baton/ros1/master_client.hpp"
#include "baton/ros1/node.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace baton::py {
namespace {

// The process's ROS 1 types (ROS_PACKAGE_PATH, /usr/share, /opt/ros/*/share), shared by every
// node and the codec functions; never destroyed, since the MessageTypes it hands out are borrowed.
std::shared_ptr<ros1::TypeRegistry> registry() {
  static auto* r = new std::shared_ptr<ros1::TypeRegistry>([] {
    auto t = std::make_shared<ros1::TypeRegistry>();
    t->add_default_roots();
    return t;
  }());
  return *r;
}

const ros1::MessageType& message_type(const std::string& name) {
  auto t = registry()->message(name);
  if (!t) {
    raise_error("Ros1UnknownType", "ROS 1 type '" + name + "': " + t.error().detail);
  }
  return **t;
}

nb::dict type_dict(const ros1::MessageType& t) {
  nb::dict d;
  d["name"] = t.name;
  d["md5sum"] = t.md5sum;
  d["definition"] = t.definition;
  d["text"] = t.text;
  return d;
}

// Bytes of type `t` (untrusted: deserialize() checks every length) as a dict.
nb::object decode(const ros1::MessageType& t, std::span<const std::uint8_t> bytes,
                  const ValueStyle& style) {
  auto v = ros1::deserialize(*t.description, bytes, ros1::DecodeMode::View);
  if (!v) raise_error("Ros1Decode", t.name + ": " + v.error().detail);
  return value_to_python(*t.description, *v, style);
}

nb::object ros1_decode(const std::string& type_name, nb::bytes data) {
  ValueStyle style;
  style.byte_arrays = ByteArrays::Bytes;
  style.error_kind = "Ros1Decode";
  return decode(message_type(type_name),
                {static_cast<const std::uint8_t*>(data.data()), data.size()}, style);
}

nb::bytes ros1_encode(const std::string& type_name, nb::handle message) {
  const ros1::MessageType& t = message_type(type_name);
  std::vector<std::unique_ptr<HostBuffer>> keep;
  ros2::Value v = value_from_python(*t.description, message, keep);
  auto out = ros1::serialize(*t.description, v);
  if (!out) raise_error("TypeMismatch", t.name + ": " + out.error().detail);
  return nb::bytes(reinterpret_cast<const char*>(out->data()), out->size());
}

#if BATON_HAVE_XMLRPCPP

bool interpreter_finishing() {
#if PY_VERSION_HEX >= 0x030D0000
  return !Py_IsInitialized() || Py_IsFinalizing();
#else
  return !Py_IsInitialized() || _Py_IsFinalizing();
#endif
}

// Waits in slices (Ctrl-C is seen between them) until `done(slice)` is true or `timeout_s` passes.
template <typename Fn>
bool wait_sliced(double timeout_s, Fn done) {
  const auto deadline = deadline_after(timeout_s);
  while (true) {
    const auto slice = next_slice(deadline);
    if (!slice) return false;
    bool ok = false;
    {
      nb::gil_scoped_release release;
      ok = done(std::chrono::duration_cast<std::chrono::milliseconds>(*slice));
    }
    if (ok) return true;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
  }
}

std::string_view rpc_kind(ros1::RpcError e) {
  switch (e) {
    case ros1::RpcError::NoMasterUri:
      return "Ros1NoMasterUri";
    case ros1::RpcError::Unreachable:
    case ros1::RpcError::Timeout:
      return "Ros1MasterUnreachable";
    default:
      return "Ros1MasterFailed";
  }
}

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

template <typename T>
T master_call(const std::string& uri, double timeout_s,
              Result<T, Error<ros1::RpcError>> (ros1::MasterClient::*call)() const) {
  if (uri.empty()) {
    raise_error("Ros1NoMasterUri", "ROS_MASTER_URI is not set");
  }
  Result<T, Error<ros1::RpcError>> r = [&] {
    nb::gil_scoped_release release;
    ros1::MasterClient master(uri, "/baton_cli", millis(timeout_s));
    return (master.*call)();
  }();
  if (!r) raise_error(rpc_kind(r.error().code), r.error().detail);
  return std::move(*r);
}

nb::list endpoints_list(const ros1::TopicEndpoints& eps) {
  nb::list out;
  for (const auto& [name, nodes] : eps) out.append(nb::make_tuple(name, nodes));
  return out;
}

// What a node's threads log: warnings and errors to stderr (as the C++ default does), and the
// last LOG_KEEP lines kept for Python to read (Node.log(): refusals such as an md5sum mismatch).
struct Ros1LogRing {
  static constexpr std::size_t LOG_KEEP = 512;
  std::mutex mutex;
  std::deque<std::pair<std::string, std::string>> lines;
  std::uint64_t total = 0;  // lines ever logged, so readers can ask for what is new
  bool echo = true;

  void add(ros1::LogLevel level, std::string_view text) {
    if (echo && level >= ros1::LogLevel::Warn) {
      std::cerr << "[baton_ros1] " << ros1::to_string(level) << ": " << text << std::endl;
    }
    std::lock_guard lock(mutex);
    lines.emplace_back(std::string(ros1::to_string(level)), std::string(text));
    if (lines.size() > LOG_KEEP) lines.pop_front();
    ++total;
  }
};

// One received message, handed to the Python callback; valid during the call only.
struct Ros1PySample {
  const ros1::MessageType* type = nullptr;
  std::span<const std::uint8_t> bytes;
  std::string source, transport;
  std::uint64_t connection_id = 0, sequence = 0;
  bool valid = true;
  std::vector<nb::object> views;  // memoryviews over `bytes`, released when the call ends

  void check() const {
    if (!valid) {
      raise_error("InvalidLoan",
                  "a ROS 1 sample is valid only during its callback: copy what you keep "
                  "(sample.tobytes(), or message() without in_place)");
    }
  }
  nb::object data() {
    check();
    PyObject* o =
        PyMemoryView_FromMemory(const_cast<char*>(reinterpret_cast<const char*>(bytes.data())),
                                static_cast<Py_ssize_t>(bytes.size()), PyBUF_READ);
    if (o == nullptr) throw nb::python_error();
    views.push_back(nb::steal(o));
    return views.back();
  }
  nb::object message(bool in_place) {
    check();
    ValueStyle style;
    style.byte_arrays = in_place ? ByteArrays::View : ByteArrays::Bytes;
    style.views = &views;
    style.error_kind = "Ros1Decode";
    return decode(*type, bytes, style);
  }
  void invalidate() {
    valid = false;
    for (nb::object& v : views) {
      // A view still exported (e.g. to a numpy array) cannot be released: it stays, and so does
      // the warning in check()'s message; the mapping it points into outlives the node.
      PyObject* r = PyObject_CallMethod(v.ptr(), "release", nullptr);
      if (r == nullptr) {
        PyErr_Clear();
      } else {
        Py_DECREF(r);
      }
    }
    views.clear();
  }
};

// The state a subscription's sink shares with its Python object.
struct Ros1SinkState {
  std::unique_ptr<PyRef> callback;
  const ros1::MessageType* type = nullptr;
  std::atomic<bool> closed{false};
};

struct Ros1PyNode {
  std::shared_ptr<ros1::Node> node;
  std::shared_ptr<Ros1LogRing> log;

  ros1::Node& get() const {
    if (!node) raise_error("Ros1Closed", "the ROS 1 node is closed");
    return *node;
  }
};

struct Ros1PyPublisher {
  std::unique_ptr<ros1::Publisher> pub;
  const ros1::MessageType* type = nullptr;

  Ros1PyPublisher(std::unique_ptr<ros1::Publisher> p, const ros1::MessageType* t)
      : pub(std::move(p)), type(t) {}
  Ros1PyPublisher(Ros1PyPublisher&&) = default;  // returned by value to nanobind

  ros1::Publisher& get() {
    if (!pub) raise_error("Ros1Closed", "the ROS 1 publisher is closed");
    return *pub;
  }
  void close() {
    nb::gil_scoped_release release;
    pub.reset();  // unregisters; the node's threads never need the GIL for a publisher
  }
  ~Ros1PyPublisher() {
    if (pub && PyGILState_Check()) {
      nb::gil_scoped_release release;
      pub.reset();
    }
  }
};

struct Ros1PySubscription {
  std::unique_ptr<ros1::Subscription> sub;
  std::shared_ptr<Ros1SinkState> state;

  Ros1PySubscription(std::unique_ptr<ros1::Subscription> s, std::shared_ptr<Ros1SinkState> st)
      : sub(std::move(s)), state(std::move(st)) {}
  Ros1PySubscription(Ros1PySubscription&&) = default;  // returned by value to nanobind

  ros1::Subscription& get() {
    if (!sub) raise_error("Ros1Closed", "the ROS 1 subscription is closed");
    return *sub;
  }
  // Stops the callbacks: no call starts after this returns (the threads are joined without the
  // GIL, so a callback waiting for it can finish).
  void close() {
    if (state) state->closed = true;
    if (!sub) return;
    if (interpreter_finishing()) {
      sub.release();  // threads may be stuck on the GIL now: leave them to the process's end
      return;
    }
    nb::gil_scoped_release release;
    sub.reset();
  }
  ~Ros1PySubscription() {
    if (sub && PyGILState_Check()) close();
  }
};

nb::dict stats_dict(const ros1::WireStats& s) {
  nb::dict d;
  d["serialized"] = s.serialized;
  d["sent"] = s.sent;
  d["dropped"] = s.dropped;
  d["received"] = s.received;
  d["refused"] = s.refused;
  d["bytes"] = s.bytes;
  return d;
}

std::string_view node_error_kind(ros1::NodeError e) {
  switch (e) {
    case ros1::NodeError::NoMasterUri:
      return "Ros1NoMasterUri";
    case ros1::NodeError::MasterUnreachable:
      return "Ros1MasterUnreachable";
    case ros1::NodeError::BadName:
      return "InvalidName";
    case ros1::NodeError::Network:
      return "Ros1Network";
  }
  return "Internal";
}

std::string_view endpoint_error_kind(ros1::EndpointError e) {
  switch (e) {
    case ros1::EndpointError::BadName:
      return "InvalidName";
    case ros1::EndpointError::UnknownType:
      return "Ros1UnknownType";
    case ros1::EndpointError::Duplicate:
      return "Ros1Duplicate";
    case ros1::EndpointError::MasterFailed:
      return "Ros1MasterFailed";
  }
  return "Internal";
}

Ros1PyNode create_node(const std::string& name, const std::string& master_uri,
                       const std::string& host, const std::string& ns,
                       const std::vector<std::string>& arguments, bool shared_memory,
                       double rpc_timeout, std::shared_ptr<Context> context, bool echo_log,
                       bool rosout) {
  ros1::NodeOptions o;
  o.master_uri = master_uri;
  o.host = host;
  o.ns = ns;
  o.arguments = arguments;
  o.shared_memory = shared_memory;
  o.rpc_timeout = millis(rpc_timeout);
  o.shm_context = std::move(context);
  o.rosout = rosout;
  o.types = registry();
  auto log = std::make_shared<Ros1LogRing>();
  log->echo = echo_log;
  o.log = [log](ros1::LogLevel l, std::string_view text) { log->add(l, text); };
  auto node = [&] {
    nb::gil_scoped_release release;
    return ros1::Node::create(name, std::move(o));
  }();
  if (!node) raise_error(node_error_kind(node.error().code), node.error().detail);
  return Ros1PyNode{std::move(*node), std::move(log)};
}

Ros1PyPublisher advertise(Ros1PyNode& n, const std::string& topic, const std::string& type,
                          bool latch, std::size_t queue_size) {
  ros1::PublisherOptions o;
  o.latch = latch;
  o.queue_size = queue_size;
  ros1::Node& node = n.get();
  auto pub = [&] {
    nb::gil_scoped_release release;
    return node.advertise(topic, type, o);
  }();
  if (!pub) raise_error(endpoint_error_kind(pub.error().code), pub.error().detail);
  const ros1::MessageType* t = &(*pub)->type();
  return Ros1PyPublisher(std::move(*pub), t);
}

Ros1PySubscription subscribe(Ros1PyNode& n, const std::string& topic, const std::string& type,
                             nb::object callback, std::uint32_t queue_size, bool tcp_nodelay) {
  auto state = std::make_shared<Ros1SinkState>();
  state->callback = std::make_unique<PyRef>(std::move(callback));
  auto sink = [state](const ros1::WireSample& s) {
    if (state->closed.load() || interpreter_finishing()) return;
    nb::gil_scoped_acquire gil;
    if (state->closed.load()) return;
    auto* sample = new Ros1PySample();
    sample->type = state->type;
    sample->bytes = s.bytes;
    sample->source = std::string(s.source);
    sample->transport = std::string(s.transport);
    sample->connection_id = s.connection_id;
    sample->sequence = s.sequence;
    nb::object obj = nb::cast(sample, nb::rv_policy::take_ownership);
    try {
      state->callback->get()(obj);
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("in a baton.ros1 subscription callback");
    }
    sample->invalidate();
  };
  ros1::SubscriptionOptions o;
  o.queue_size = queue_size;
  o.tcp_nodelay = tcp_nodelay;
  // The type first, so the sink never sees a sample without it.
  state->type = &message_type(type);
  ros1::Node& node = n.get();
  auto sub = [&] {
    nb::gil_scoped_release release;
    return node.subscribe(topic, type, sink, o);
  }();
  if (!sub) raise_error(endpoint_error_kind(sub.error().code), sub.error().detail);
  return Ros1PySubscription(std::move(*sub), std::move(state));
}

nb::object publish(Ros1PyPublisher& p, nb::handle message) {
  ros1::Publisher& pub = p.get();
  std::vector<std::unique_ptr<HostBuffer>> keep;  // arrays given as buffers are viewed, not copied
  ros2::Value v = value_from_python(*p.type->description, message, keep);
  auto r = [&] {
    nb::gil_scoped_release release;
    return pub.publish(v);
  }();
  if (!r) {
    raise_error(r.error().code == ros1::WireError::Closed ? "Ros1Closed" : "TypeMismatch",
                r.error().detail);
  }
  return nb::int_(*r);
}

nb::object publish_serialized(Ros1PyPublisher& p, nb::handle data) {
  ros1::Publisher& pub = p.get();
  HostBuffer buf(data);
  auto r = [&] {
    nb::gil_scoped_release release;
    return pub.publish_serialized(
        {static_cast<const std::uint8_t*>(buf.data()), static_cast<std::size_t>(buf.size())});
  }();
  if (!r) raise_error("Ros1Closed", r.error().detail);
  return nb::int_(*r);
}

#endif  // BATON_HAVE_XMLRPCPP

}  // namespace

void bind_ros1(nb::module_& m) {
  m.attr("ROS1_NODE_AVAILABLE") = bool(BATON_HAVE_XMLRPCPP);
  m.def(
      "ros1_message_type", [](const std::string& name) { return type_dict(message_type(name)); },
      "type_name"_a, "A ROS 1 type's name, genmsg md5sum, full definition and .msg text.");
  m.def("ros1_decode", &ros1_decode, "type_name"_a, "data"_a,
        "Decodes ROS 1 serialized bytes of a type into a dict (uint8[] fields as bytes).");
  m.def("ros1_encode", &ros1_encode, "type_name"_a, "message"_a,
        "Serializes a dict (or an object with the fields as attributes) as ROS 1.");
#if BATON_HAVE_XMLRPCPP
  m.def(
      "ros1_master_pid",
      [](const std::string& uri, double timeout) {
        return master_call(uri, timeout, &ros1::MasterClient::get_pid);
      },
      "master_uri"_a, "timeout"_a = 1.0);
  m.def(
      "ros1_system_state",
      [](const std::string& uri, double timeout) {
        auto s = master_call(uri, timeout, &ros1::MasterClient::get_system_state);
        nb::dict d;
        d["publishers"] = endpoints_list(s.publishers);
        d["subscribers"] = endpoints_list(s.subscribers);
        d["services"] = endpoints_list(s.services);
        return d;
      },
      "master_uri"_a, "timeout"_a = 1.0);
  m.def(
      "ros1_topic_types",
      [](const std::string& uri, double timeout) {
        return master_call(uri, timeout, &ros1::MasterClient::get_topic_types);
      },
      "master_uri"_a, "timeout"_a = 1.0);

  nb::class_<Ros1PySample>(m, "Ros1Sample")
      .def_prop_ro("data", &Ros1PySample::data, "The serialized bytes, in place (read-only).")
      .def("tobytes",
           [](const Ros1PySample& s) {
             s.check();
             return nb::bytes(reinterpret_cast<const char*>(s.bytes.data()), s.bytes.size());
           })
      .def("message", &Ros1PySample::message, "in_place"_a = false)
      .def_prop_ro("size", [](const Ros1PySample& s) { return s.bytes.size(); })
      .def_prop_ro("data_ptr",
                   [](const Ros1PySample& s) {
                     s.check();
                     return reinterpret_cast<std::uintptr_t>(s.bytes.data());
                   })
      .def_prop_ro("type", [](const Ros1PySample& s) { return s.type->name; })
      .def_prop_ro("source", [](const Ros1PySample& s) { return s.source; })
      .def_prop_ro("transport", [](const Ros1PySample& s) { return s.transport; })
      .def_prop_ro("connection_id", [](const Ros1PySample& s) { return s.connection_id; })
      .def_prop_ro("sequence", [](const Ros1PySample& s) { return s.sequence; })
      .def_prop_ro("valid", [](const Ros1PySample& s) { return s.valid; });

  nb::class_<Ros1PyNode>(m, "Ros1Node")
      .def_prop_ro("name", [](const Ros1PyNode& n) { return n.get().name(); })
      .def_prop_ro("uri", [](const Ros1PyNode& n) { return n.get().uri(); })
      .def_prop_ro("master_uri", [](const Ros1PyNode& n) { return n.get().master_uri(); })
      .def("resolve",
           [](const Ros1PyNode& n, const std::string& name) {
             auto r = n.get().resolve(name);
             if (!r) raise_error("InvalidName", r.error().detail);
             return *r;
           })
      .def("shutdown_requested", [](const Ros1PyNode& n) { return n.get().shutdown_requested(); })
      .def("advertise", &advertise, "topic"_a, "type_name"_a, "latch"_a = false,
           "queue_size"_a = 100)
      .def("subscribe", &subscribe, "topic"_a, "type_name"_a, "callback"_a, "queue_size"_a = 100,
           "tcp_nodelay"_a = true)
      .def(
          "log",
          [](const Ros1PyNode& n, std::uint64_t since) {
            std::lock_guard lock(n.log->mutex);
            const std::uint64_t first = n.log->total - n.log->lines.size();
            nb::list out;
            for (std::uint64_t i = std::max(since, first); i < n.log->total; ++i) {
              const auto& [level, text] = n.log->lines[i - first];
              out.append(nb::make_tuple(level, text));
            }
            return nb::make_tuple(n.log->total, out);
          },
          "since"_a = 0, "(lines logged so far, [(level, text)] of those after `since`)")
      .def(
          "write_log",
          [](Ros1PyNode& n, const std::string& level, const std::string& text) {
            static const std::pair<const char*, ros1::LogLevel> LEVELS[] = {
                {"debug", ros1::LogLevel::Debug},
                {"info", ros1::LogLevel::Info},
                {"warn", ros1::LogLevel::Warn},
                {"error", ros1::LogLevel::Error}};
            for (const auto& [name, l] : LEVELS) {
              if (level != name) continue;
              nb::gil_scoped_release release;
              n.get().log(l, text);
              return;
            }
            throw nb::value_error(
                ("log level '" + level + "' is none of debug, info, warn, error").c_str());
          },
          "level"_a, "text"_a,
          "Logs `text` as the node's own lines are: to its log and, at info or above, /rosout.")
      .def("close", [](Ros1PyNode& n) {
        nb::gil_scoped_release release;
        n.node.reset();
      });

  nb::class_<Ros1PyPublisher>(m, "Ros1Publisher")
      .def_prop_ro("topic", [](Ros1PyPublisher& p) { return p.get().topic(); })
      .def_prop_ro("type", [](Ros1PyPublisher& p) { return type_dict(*p.type); })
      .def("publish", &publish, "message"_a)
      .def("publish_serialized", &publish_serialized, "data"_a)
      .def_prop_ro("subscriber_count",
                   [](Ros1PyPublisher& p) { return p.get().subscriber_count(); })
      .def(
          "wait_for_tcpros_subscribers",
          [](Ros1PyPublisher& p, std::size_t n, double timeout) {
            ros1::Publisher& pub = p.get();
            return wait_sliced(timeout, [&](std::chrono::milliseconds slice) {
              return pub.wait_for_tcpros_subscribers(n, slice);
            });
          },
          "n"_a = 1, "timeout"_a = -1.0)
      .def(
          "wait_until_sent",
          [](Ros1PyPublisher& p, double timeout) {
            ros1::Publisher& pub = p.get();
            return wait_sliced(timeout, [&](std::chrono::milliseconds slice) {
              return pub.wait_until_sent(slice);
            });
          },
          "timeout"_a = -1.0)
      .def_prop_ro("wire_stats",
                   [](Ros1PyPublisher& p) { return stats_dict(p.get().wire().stats()); })
      .def_prop_ro("shm_stats", [](Ros1PyPublisher& p) { return stats_dict(p.get().shm_stats()); })
      .def_prop_ro("closed", [](const Ros1PyPublisher& p) { return !p.pub; })
      .def("close", &Ros1PyPublisher::close);

  nb::class_<Ros1PySubscription>(m, "Ros1Subscription")
      .def_prop_ro("topic", [](Ros1PySubscription& s) { return s.get().topic(); })
      .def_prop_ro("type", [](Ros1PySubscription& s) { return type_dict(s.get().type()); })
      .def_prop_ro("publisher_count",
                   [](Ros1PySubscription& s) { return s.get().publisher_count(); })
      .def(
          "wait_for_publishers",
          [](Ros1PySubscription& s, std::size_t n, double timeout) {
            ros1::Subscription& sub = s.get();
            return wait_sliced(timeout, [&](std::chrono::milliseconds slice) {
              return sub.wait_for_publishers(n, slice);
            });
          },
          "n"_a = 1, "timeout"_a = -1.0)
      .def_prop_ro("wire_stats",
                   [](Ros1PySubscription& s) { return stats_dict(s.get().wire().stats()); })
      .def_prop_ro("shm_stats",
                   [](Ros1PySubscription& s) { return stats_dict(s.get().shm_stats()); })
      .def_prop_ro("closed", [](const Ros1PySubscription& s) { return !s.sub; })
      .def("close", &Ros1PySubscription::close);

  m.def("ros1_create_node", &create_node, "name"_a, "master_uri"_a = "", "host"_a = "",
        "namespace"_a = "", "arguments"_a = std::vector<std::string>{}, "shared_memory"_a = true,
        "rpc_timeout"_a = 5.0, "context"_a.none() = nb::none(), "echo_log"_a = true,
        "rosout"_a = true);
#endif
}

}  // namespace baton::py
