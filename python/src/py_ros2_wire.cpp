#include "py_ros2_wire.hpp"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "baton/api/context.hpp"
#include "baton/api/qos.hpp"
#include "py_ros2.hpp"
#include "py_util.hpp"
#if BATON_HAVE_CYCLONEDDS
#include "baton/ros2/ros2_node.hpp"
#include "baton/ros2/ros2_participant.hpp"
#include "baton/ros2/ros2_publisher.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace baton::py {

#if BATON_HAVE_CYCLONEDDS
namespace {

// A DDS participant and one ROS 2 node on it; publishers share it, so it lives as long as the
// last of them (members go in reverse order: the node before its participant).
struct WireNodeState {
  std::unique_ptr<ros2::Participant> participant;
  std::unique_ptr<ros2::Node> node;
};

struct PyWireLoan {
  std::optional<ros2::Loan> loan;
  ros2::Loan& get() {
    if (!loan || !loan->valid()) raise_error("InvalidLoan", "this loan was already published");
    return *loan;
  }
};

struct PyWirePublisher {
  std::shared_ptr<WireNodeState> state;  // declared first: outlives the publisher
  std::optional<ros2::Publisher> pub;

  ros2::Publisher& get() { return *pub; }

  PyWireLoan loan(std::uint64_t nbytes) {
    auto l = get().loan_serialized(nbytes);
    if (!l) raise_error("Ros2Wire", get().topic() + ": " + l.error().detail);
    return PyWireLoan{std::move(*l)};
  }

  void reserve(std::uint32_t count, std::uint64_t nbytes) {
    auto r = get().reserve_serialized(nbytes, count);
    if (!r) raise_error("ReservationFailed", get().topic() + ": " + r.error().detail);
  }

  void publish(PyWireLoan& l) {
    ros2::Loan taken = std::move(l.get());
    l.loan.reset();
    ros2::Publisher& p = get();
    auto r = [&] {
      nb::gil_scoped_release release;  // a large message's DDS write copies it once
      return p.publish(std::move(taken));
    }();
    if (!r) raise_error("Ros2Wire", p.topic() + ": " + r.error().detail);
  }
};

ros2::WireQos wire_qos(const QoS& q) {
  ros2::WireQos w;
  w.depth = q.depth();
  w.reliable = q.reliability() == Reliability::Reliable;
  w.transient_local = q.durability() == Durability::TransientLocal;
  return w;
}

std::string wire_error(const Error<ros2::WireError>& e) {
  return std::string(ros2::to_string(e.code)) + ": " + e.detail;
}

// The Python Ros2WireNode: publishers made on it share its state.
struct PyWireNode {
  std::shared_ptr<WireNodeState> state;

  // Holds the GIL throughout: the registry's mutex is taken, and errors are raised, under it.
  PyWireNode(std::shared_ptr<Context> ctx, const std::string& name,
             const std::string& node_namespace)
      : state(std::make_shared<WireNodeState>()) {
    Ros2Types& types = ros2_types();
    std::lock_guard<std::mutex> lock(types.mutex);  // the participant loads its types from it
    auto p = ros2::Participant::create_from_env(types.types);
    if (!p)
      raise_error("Ros2Wire", "DDS participant: " + wire_error(p.error()) +
                                  " (rmw_dds_common's .msg files must be on AMENT_PREFIX_PATH)");
    state->participant = std::move(*p);
    auto n = ros2::Node::create(std::move(ctx), *state->participant, name, node_namespace);
    if (!n) raise_error("Ros2Wire", "ROS 2 node " + name + ": " + wire_error(n.error()));
    state->node = std::move(*n);
  }

  PyWirePublisher publisher(const std::string& topic, const std::string& type_name,
                            const QoS& qos) {
    const ros2::MessageDescription& type = ros2_message_type(type_name, "Ros2UnknownType");
    auto pub = [&] {
      nb::gil_scoped_release release;
      return ros2::Publisher::create(*state->node, type, topic, wire_qos(qos));
    }();
    if (!pub) raise_error("Ros2Wire", "publisher on " + topic + ": " + wire_error(pub.error()));
    PyWirePublisher out{state, std::nullopt};
    out.pub.emplace(std::move(*pub));
    return out;
  }
};

}  // namespace

void bind_ros2_wire(nb::module_& m) {
  m.attr("HAVE_ROS2_WIRE") = true;
  nb::class_<PyWireNode>(m, "Ros2WireNode",
                         "A ROS 2 node on a DDS participant of ROS_DOMAIN_ID "
                         "(ROS_AUTOMATIC_DISCOVERY_RANGE / ROS_LOCALHOST_ONLY honoured), listed in "
                         "ros_discovery_info; its publishers go to shared memory and the DDS wire.")
      .def(nb::init<std::shared_ptr<Context>, std::string, std::string>(), "context"_a, "name"_a,
           "namespace"_a = "/")
      .def("publisher", &PyWireNode::publisher, "topic"_a, "type_name"_a, "qos"_a,
           "A publisher of serialized messages of ROS 2 type type_name (its .msg on "
           "AMENT_PREFIX_PATH).");
  nb::class_<PyWireLoan>(m, "Ros2WireLoan")
      .def_prop_ro(
          "array",
          [](nb::handle self) {
            ros2::Loan& l = nb::cast<PyWireLoan&>(self).get();
            auto bytes = l.host_sample();
            return numpy_view(reinterpret_cast<std::byte*>(bytes.data()),
                              ArrayView::bytes(bytes.size()), self, /*read_only=*/false);
          },
          nb::for_getter(nb::sig("def array(self, /) -> numpy.ndarray")),
          "A writable numpy view (uint8) of the loaned sample, CDR header included (no copy).");
  nb::class_<PyWirePublisher>(m, "Ros2WirePublisher")
      .def_prop_ro("topic", [](PyWirePublisher& p) { return p.get().topic(); })
      .def("loan", &PyWirePublisher::loan, "nbytes"_a, nb::keep_alive<0, 1>(),
           "A loan for a serialized message of nbytes (CDR header included): write all of it "
           "into .array, then publish(loan).")
      .def("reserve", &PyWirePublisher::reserve, "count"_a, "nbytes"_a,
           "Commits the pool for count loans of up to nbytes (CDR header included) now.")
      .def("publish", &PyWirePublisher::publish, "loan"_a)
      .def_prop_ro("wire_foreign_readers",
                   [](PyWirePublisher& p) { return p.get().wire_foreign_readers(); })
      .def_prop_ro("wire_readers", [](PyWirePublisher& p) { return p.get().wire_readers(); })
      .def_prop_ro("shm_subscribers", [](PyWirePublisher& p) { return p.get().shm_subscribers(); })
      .def_prop_ro("wire_samples", [](PyWirePublisher& p) { return p.get().wire_samples(); });
}

#else

void bind_ros2_wire(nb::module_& m) { m.attr("HAVE_ROS2_WIRE") = false; }

#endif

}  // namespace baton::py
