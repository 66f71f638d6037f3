// rmw_baton_cpp: content-filtered subscriptions. The filter (content_filter.hpp) is parsed and
// checked against the type when it is set, at creation (rmw_subscription_options_t's
// content_filter_options) or later, and evaluated on each sample the subscription takes, from
// shared memory and from the DDS wire alike, before it is decoded: a sample it rejects is taken
// and dropped. The filter runs in the subscriber, so a publisher still writes every sample (no
// writer-side filtering: shared memory has one copy for all readers anyway).
#include <rmw/rmw.h>
#include <rmw/subscription_content_filter_options.h>

#include <string>
#include <vector>

#include "rmw_impl.hpp"

using namespace baton::ros2::rmw;  // NOLINT: the extern "C" entry points below are its users

namespace baton::ros2::rmw {

rmw_ret_t set_content_filter(SubscriptionImpl& s,
                             const rmw_subscription_content_filter_options_t& options,
                             const char* function) {
  if (options.filter_expression == nullptr) {
    set_error(function, "content filter options: filter_expression is null");
    return RMW_RET_INVALID_ARGUMENT;
  }
  const rcutils_string_array_t& params = options.expression_parameters;
  if (params.size != 0 && params.data == nullptr) {
    set_error(function, "content filter options: expression_parameters has " +
                            std::to_string(params.size) + " entries and no data");
    return RMW_RET_INVALID_ARGUMENT;
  }
  std::vector<std::string> parameters;
  for (size_t i = 0; i < params.size; ++i) {
    if (params.data[i] == nullptr) {
      set_error(function,
                "content filter options: expression parameter %" + std::to_string(i) + " is null");
      return RMW_RET_INVALID_ARGUMENT;
    }
    parameters.emplace_back(params.data[i]);
  }
  const std::string expression = options.filter_expression;
  std::shared_ptr<const ContentFilter> filter;
  if (!expression.empty()) {  // "" resets (rmw.h)
    auto made = ContentFilter::make(s.type.members, expression, parameters);
    if (!made) {
      set_error(function,
                "content filter '" + expression + "' on " + s.type.name + ": " + made.error());
      return RMW_RET_ERROR;  // rmw.h: INVALID_ARGUMENT is for a null argument only
    }
    filter = std::move(*made);
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  s.filter_set.store(filter != nullptr, std::memory_order_relaxed);
  s.filter = std::move(filter);
  // A sample kept for the next take passed the old filter: it must pass the new one too.
  if (s.filter && s.stashed_sample &&
      !s.filter->matches(std::span<const uint8_t>(
          reinterpret_cast<const uint8_t*>(s.stashed_sample->data()), s.stashed_sample->size())))
    s.stashed_sample.reset();
  if (s.filter && s.stashed_wire && !s.filter->matches(std::span<const uint8_t>(*s.stashed_wire)))
    s.stashed_wire.reset();
  s.has_stash.store(s.stashed_sample || s.stashed_wire, std::memory_order_relaxed);
  return RMW_RET_OK;
}

}  // namespace baton::ros2::rmw

extern "C" {

rmw_ret_t rmw_subscription_set_content_filter(
    rmw_subscription_t* subscription, const rmw_subscription_content_filter_options_t* options) {
  auto s = checked_impl<SubscriptionImpl>(subscription, __func__, "subscription");
  if (!s) return s.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(options, RMW_RET_INVALID_ARGUMENT);
  const rmw_ret_t ret = set_content_filter(*s, *options, __func__);
  if (ret == RMW_RET_OK) subscription->is_cft_enabled = options->filter_expression[0] != '\0';
  return ret;
}

rmw_ret_t rmw_subscription_get_content_filter(const rmw_subscription_t* subscription,
                                              rcutils_allocator_t* allocator,
                                              rmw_subscription_content_filter_options_t* options) {
  auto s = checked_impl<SubscriptionImpl>(subscription, __func__, "subscription");
  if (!s) return s.ret;
  RMW_CHECK_ARGUMENT_FOR_NULL(allocator, RMW_RET_INVALID_ARGUMENT);
  RMW_CHECK_ARGUMENT_FOR_NULL(options, RMW_RET_INVALID_ARGUMENT);
  std::shared_ptr<const ContentFilter> filter;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    filter = s->filter;
  }
  if (!filter) {
    set_error(__func__, std::string("subscription on '") + subscription->topic_name +
                            "' has no content filter");
    return RMW_RET_ERROR;
  }
  std::vector<const char*> argv;
  for (const std::string& p : filter->parameters()) argv.push_back(p.c_str());
  return rmw_subscription_content_filter_options_init(filter->expression().c_str(), argv.size(),
                                                      argv.empty() ? nullptr : argv.data(),
                                                      allocator, options);
}

}  // extern "C"
