// rmw_baton_cpp: listener callbacks (rmw.h, event.h), as rclcpp's events executor sets them. The
// context's CallbackListener (callback_listener.hpp) calls them from its own thread; a null
// callback clears one, and returns once it can no longer be called.
#include <rmw/event.h>
#include <rmw/rmw.h>

#include "callback_listener.hpp"
#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users

namespace {

template <typename Impl, typename Handle>
rmw_ret_t set_data_callback(Handle* handle, ListenKind kind, rmw_event_callback_t callback,
                            const void* user_data, const char* function, const char* what) {
  auto impl = checked_impl<Impl>(handle, function, what);
  if (!impl) return impl.ret;
  impl->node->context->callbacks().set_data_callback(kind, impl.impl, callback, user_data);
  return RMW_RET_OK;
}

}  // namespace

extern "C" {

rmw_ret_t rmw_subscription_set_on_new_message_callback(rmw_subscription_t* subscription,
                                                       rmw_event_callback_t callback,
                                                       const void* user_data) {
  return set_data_callback<SubscriptionImpl>(subscription, ListenKind::Subscription, callback,
                                             user_data, __func__, "subscription");
}

rmw_ret_t rmw_service_set_on_new_request_callback(rmw_service_t* service,
                                                  rmw_event_callback_t callback,
                                                  const void* user_data) {
  return set_data_callback<ServiceImpl>(service, ListenKind::Service, callback, user_data, __func__,
                                        "service");
}

rmw_ret_t rmw_client_set_on_new_response_callback(rmw_client_t* client,
                                                  rmw_event_callback_t callback,
                                                  const void* user_data) {
  return set_data_callback<ClientImpl>(client, ListenKind::Client, callback, user_data, __func__,
                                       "client");
}

rmw_ret_t rmw_event_set_callback(rmw_event_t* event, rmw_event_callback_t callback,
                                 const void* user_data) {
  if (const rmw_ret_t ret = check_handle(event, __func__, "event"); ret != RMW_RET_OK) return ret;
  // The event's endpoint impl (rmw_event.cpp); both kinds start with `node`.
  NodeImpl* node = is_publisher_event_type(event->event_type)
                       ? static_cast<PublisherImpl*>(event->data)->node
                       : static_cast<SubscriptionImpl*>(event->data)->node;
  node->context->callbacks().set_event_callback(event->event_type, event->data, callback,
                                                user_data);
  return RMW_RET_OK;
}

}  // extern "C"
