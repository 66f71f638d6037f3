// Helpers for accelerator tests: open a domain or skip the test with the reason.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "baton/memory/domain/domain_registry.hpp"
#if BATON_HAVE_OPENCL
#include "baton/memory/domain/opencl_backend.hpp"
#endif

namespace baton::testing {

// The OpenCL backend for "opencl:0" (or `name`), or nullptr after GTEST_SKIP's message is set.
#if BATON_HAVE_OPENCL
inline std::shared_ptr<memory::domain::OpenClBackend> opencl_or_null(
    const std::string& name = "opencl:0") {
  auto b = memory::domain::open_domain(name);
  if (!b) return nullptr;
  return std::dynamic_pointer_cast<memory::domain::OpenClBackend>(*b);
}
#define BATON_OPENCL_OR_SKIP(var, name)                                              \
  auto var = ::baton::testing::opencl_or_null(name);                                 \
  if (!var) {                                                                        \
    auto why = ::baton::memory::domain::open_domain(name);                           \
    GTEST_SKIP() << "no OpenCL platform found: " << (why ? "" : why.error().detail); \
  }
#else
#define BATON_OPENCL_OR_SKIP(var, name) \
  GTEST_SKIP() << "no OpenCL platform found: baton was built without the OpenCL ICD loader"
#endif

}  // namespace baton::testing
