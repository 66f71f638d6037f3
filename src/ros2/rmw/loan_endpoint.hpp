// The start of every loan entry point: the endpoint's impl if its type can be loaned; otherwise
// null with the rmw error set and `*ret` = UNSUPPORTED (as rmw_fastrtps_cpp answers for types it
// cannot loan) or INVALID_ARGUMENT (a bad handle).
#pragma once

#include <string>

#include "rmw_impl.hpp"

namespace baton::ros2::rmw {

template <typename Impl, typename Handle>
Impl* loaning_endpoint(const Handle* handle, const char* function, const char* what,
                       rmw_ret_t* ret) {
  *ret = RMW_RET_INVALID_ARGUMENT;
  if (!check_handle(handle, function, what)) return nullptr;
  auto* impl = static_cast<Impl*>(handle->data);
  if (!impl->type.loan->loanable) {
    set_error(function, "not supported by rmw_baton_cpp for " + impl->type.name +
                            " (can_loan_messages=0): " + impl->type.loan->why_not);
    *ret = RMW_RET_UNSUPPORTED;
    return nullptr;
  }
  return impl;
}

}  // namespace baton::ros2::rmw
