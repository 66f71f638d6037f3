// A received message for Python (baton.Sample) and how a Python-facing subscription is opened:
// shared by the executor subscriptions of baton_module.cpp and the recorder's batch taker
// (py_record.cpp).
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>

#include <memory>
#include <string>

#include "array_view.hpp"
#include "baton/baton.hpp"
#include "py_util.hpp"

namespace baton::py {

// A received message, borrowed read-only in place (the loan returns when this object dies or
// release() is called). `array` views it as the publisher's dtype and shape; memoryview(sample)
// views the same bytes as tobytes() (the whole message for a raw subscription) without numpy.
struct PySample {
  topic::TakenSample sample;
  ArrayView view;

  PySample(topic::TakenSample s, bool raw)
      : sample(std::move(s)), view(ArrayView::parse(sample.data(), sample.size(), raw)) {}
  const std::byte* payload() const { return sample.data() + view.offset; }
  void check() const {
    if (!sample.valid()) raise_error("InvalidLoan", "the sample was released");
  }
};

// The buffer protocol of baton.Sample: a read-only, one-dimensional view of the payload in place
// (each view holds a reference to the sample; like `array`, it must not be used after
// release()).
inline int sample_getbuffer(PyObject* self, Py_buffer* view, int flags) {
  if (!nanobind::inst_ready(self)) {
    PyErr_SetString(PyExc_BufferError, "baton.Sample is not initialized");
    view->obj = nullptr;
    return -1;
  }
  auto* s = nanobind::inst_ptr<PySample>(self);
  if (!s->sample.valid()) {
    PyErr_SetString(PyExc_BufferError, "the sample was released");
    view->obj = nullptr;
    return -1;
  }
  return PyBuffer_FillInfo(view, self, const_cast<std::byte*>(s->payload()),
                           static_cast<Py_ssize_t>(s->view.payload_bytes), 1, flags);
}

inline PyType_Slot* sample_type_slots() {
  static PyType_Slot slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(sample_getbuffer)},
                                {0, nullptr}};
  return slots;
}

// Opens a subscriber port on `topic_name` (GIL released while attaching) and makes a `Sub` of
// it (`Sub(port, args...)`), registered in the graph and with the node as `create_subscription`'s
// are.
template <typename Sub, typename... Args>
std::shared_ptr<Sub> open_subscription(Node& node, const std::string& topic_name,
                                       const std::string& type_name,
                                       const std::string& layout_facts, const std::string& hash_hex,
                                       const QoS& qos, WaitMode mode, Args&&... args) {
  const auto type = make_type(type_name, layout_facts, hash_hex);
  Result<std::unique_ptr<topic::SubscriberPort>, EndpointError> port = unexpected(EndpointError{});
  {
    nanobind::gil_scoped_release release;
    // Sample.source_timestamp (and `baton bag record`'s log times) read the publishers' stamps.
    port = detail::make_subscriber(node, topic_name, type, qos, mode, std::chrono::microseconds(50),
                                   /*source_timestamps=*/true);
  }
  if (!port) raise_endpoint_error(port.error());
  auto sub = std::make_shared<Sub>(std::move(*port), std::forward<Args>(args)...);
  sub->graph_handle =
      detail::register_in_graph(node, graph::EndpointKind::Subscription, topic_name, type, qos);
  detail::register_subscription(node, sub);
  return sub;
}

}  // namespace baton::py
