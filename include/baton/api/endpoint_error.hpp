// Errors of creating publishers and subscriptions (cold path; carry a detail text).
#pragma once

#include <cstdint>
#include <string_view>

#include "baton/common/result.hpp"
#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "baton/topic/topic.hpp"

namespace baton {

enum class EndpointCreateError : std::uint8_t {
  InvalidName,        // Topic or type name empty / too long / malformed.
  TypeMismatch,       // The topic exists with another message type: see the detail for both.
  NoFreeSlot,         // The topic has the maximum number of publishers or subscriptions.
  InvalidQos,         // depth must be 1..65536.
  PermissionDenied,   // The topic's segments belong to another user.
  Corrupt,            // The topic's segment failed validation: `baton clean` removes it.
  SegmentFailure,     // /dev/shm refused (full? see `baton doctor`).
  ContextShutDown,    // The context was shut down.
  MissingCallback,    // A service needs a callback: call .callback(...) before create().
  DomainUnavailable,  // The memory domain (opencl:N, cuda:N) cannot be opened here: see the detail.
  ReservationFailed,  // The builder's reserve() failed (a size limit or /dev/shm): see detail.
};

constexpr std::string_view to_string(EndpointCreateError e) noexcept {
  switch (e) {
    case EndpointCreateError::InvalidName:
      return "invalid name";
    case EndpointCreateError::TypeMismatch:
      return "message type mismatch";
    case EndpointCreateError::NoFreeSlot:
      return "too many endpoints on topic";
    case EndpointCreateError::InvalidQos:
      return "invalid QoS";
    case EndpointCreateError::PermissionDenied:
      return "permission denied";
    case EndpointCreateError::Corrupt:
      return "corrupt topic segment";
    case EndpointCreateError::SegmentFailure:
      return "shared memory failure";
    case EndpointCreateError::ContextShutDown:
      return "context shut down";
    case EndpointCreateError::MissingCallback:
      return "missing callback";
    case EndpointCreateError::DomainUnavailable:
      return "memory domain unavailable";
    case EndpointCreateError::ReservationFailed:
      return "reservation failed";
  }
  return "unknown";
}

constexpr EndpointCreateError to_endpoint_error(topic::TopicError e) noexcept {
  switch (e) {
    case topic::TopicError::InvalidName:
      return EndpointCreateError::InvalidName;
    case topic::TopicError::TypeMismatch:
      return EndpointCreateError::TypeMismatch;
    case topic::TopicError::SegmentFailure:
      return EndpointCreateError::SegmentFailure;
    case topic::TopicError::Corrupt:
      return EndpointCreateError::Corrupt;
    case topic::TopicError::NoFreeSlot:
      return EndpointCreateError::NoFreeSlot;
    case topic::TopicError::Closed:
      return EndpointCreateError::SegmentFailure;
    case topic::TopicError::PermissionDenied:
      return EndpointCreateError::PermissionDenied;
  }
  return EndpointCreateError::SegmentFailure;
}
constexpr EndpointCreateError to_endpoint_error(topic::PublisherCreateError e) noexcept {
  switch (e) {
    case topic::PublisherCreateError::InvalidQos:
      return EndpointCreateError::InvalidQos;
    case topic::PublisherCreateError::NoFreeSlot:
      return EndpointCreateError::NoFreeSlot;
    case topic::PublisherCreateError::SegmentFailure:
      return EndpointCreateError::SegmentFailure;
  }
  return EndpointCreateError::SegmentFailure;
}
constexpr EndpointCreateError to_endpoint_error(topic::SubscriberCreateError e) noexcept {
  switch (e) {
    case topic::SubscriberCreateError::InvalidQos:
      return EndpointCreateError::InvalidQos;
    case topic::SubscriberCreateError::NoFreeSlot:
      return EndpointCreateError::NoFreeSlot;
    case topic::SubscriberCreateError::SegmentFailure:
      return EndpointCreateError::SegmentFailure;
  }
  return EndpointCreateError::SegmentFailure;
}

using EndpointError = Error<EndpointCreateError>;

}  // namespace baton
