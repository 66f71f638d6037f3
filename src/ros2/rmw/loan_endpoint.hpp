// The start of every loan entry point: the endpoint's impl if its type can be loaned; otherwise
// null with the rmw error set and `*ret` = UNSUPPORTED (as rmw_fastrtps_cpp answers for types it
// cannot loan) or check_handle's code (a null or foreign handle).
#pragma once

#include <string>

#include "rmw_impl.hpp"

namespace baton::ros2::rmw {

// `viewable_too`: a subscription also loans viewable types (loan_layout.hpp); publishers do not.
template <typename Impl, typename Handle>
Impl* loaning_endpoint(const Handle* handle, const char* function, const char* what, rmw_ret_t* ret,
                       bool viewable_too = false) {
  *ret = check_handle(handle, function, what);
  if (*ret != RMW_RET_OK) return nullptr;
  auto* impl = static_cast<Impl*>(handle->data);
  if (!impl->type.loan->loanable && !(viewable_too && impl->type.loan->viewable)) {
    set_error(function, "not supported by rmw_baton_cpp for " + impl->type.name +
                            " (can_loan_messages=0): " + impl->type.loan->why_not);
    *ret = RMW_RET_UNSUPPORTED;
    return nullptr;
  }
  return impl;
}

}  // namespace baton::ros2::rmw
