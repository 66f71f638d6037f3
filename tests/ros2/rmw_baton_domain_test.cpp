// rmw_baton_cpp's ROS domains (src/ros2/rmw/domain.hpp): the domain is a baton namespace, which
// is process-wide, so one process joins one domain. Called through dlopen, as rcl would.
// (That different domains do not see each other is RmwBatonRclpy.domain_id_separates_*.)
#include <gtest/gtest.h>

#if BATON_HAVE_RMW_HEADERS
#include <rcutils/error_handling.h>
#include <rmw/init.h>
#include <rmw/init_options.h>
#include <rmw/rmw.h>

#include <memory>
#include <string>

#include "rmw_dlopen.hpp"
#include "ros2_test_env.hpp"

namespace baton::ros2 {
namespace {

using test::Rmw;

// An rmw context of `domain_id` as rcl_init makes it; init_result() says how rmw_init went.
class DomainContext {
 public:
  DomainContext(const Rmw& rmw, size_t domain_id) : rmw_(rmw) {
    RMW_FN(rmw_, rmw_get_zero_initialized_init_options);
    RMW_FN(rmw_, rmw_get_zero_initialized_context);
    RMW_FN(rmw_, rmw_init_options_init);
    RMW_FN(rmw_, rmw_init);
    RMW_FN(rmw_, rcutils_get_default_allocator);
    RMW_FN(rmw_, rcutils_get_error_string);
    RMW_FN(rmw_, rcutils_reset_error);
    options_ = rmw_get_zero_initialized_init_options();
    context_ = rmw_get_zero_initialized_context();
    EXPECT_EQ(rmw_init_options_init(&options_, rcutils_get_default_allocator()), RMW_RET_OK);
    set_default_enclave(rmw_, options_);
    options_.domain_id = domain_id;
    options_.discovery_options.automatic_discovery_range = RMW_AUTOMATIC_DISCOVERY_RANGE_LOCALHOST;
    init_result_ = rmw_init(&options_, &context_);
    if (init_result_ != RMW_RET_OK) {
      error_ = rcutils_get_error_string().str;
      rcutils_reset_error();
    }
  }
  ~DomainContext() {
    RMW_FN(rmw_, rmw_shutdown);
    RMW_FN(rmw_, rmw_context_fini);
    RMW_FN(rmw_, rmw_init_options_fini);
    if (init_result_ == RMW_RET_OK) {
      EXPECT_EQ(rmw_shutdown(&context_), RMW_RET_OK);
      EXPECT_EQ(rmw_context_fini(&context_), RMW_RET_OK);
    }
    EXPECT_EQ(rmw_init_options_fini(&options_), RMW_RET_OK);
  }
  rmw_ret_t init_result() const { return init_result_; }
  const std::string& error() const { return error_; }
  size_t actual_domain_id() const { return context_.actual_domain_id; }

 private:
  const Rmw& rmw_;
  rmw_init_options_t options_{};
  rmw_context_t context_{};
  rmw_ret_t init_result_ = RMW_RET_ERROR;
  std::string error_;
};

class RmwBatonDomain : public ::testing::Test {
 protected:
  void SetUp() override {
    BATON_REQUIRE_ROS_VENV();
    if (std::string_view(BATON_RMW_LIB).empty()) GTEST_SKIP() << "rmw_baton_cpp was not built";
    ASSERT_TRUE(rmw_.loaded()) << ::dlerror();
  }
  Rmw rmw_;
};

TEST_F(RmwBatonDomain, context_for_another_domain_in_the_same_process_is_refused) {
  const uint32_t domain = test::domain_id(57), other_domain = test::domain_id(58);
  auto first = std::make_unique<DomainContext>(rmw_, domain);
  ASSERT_EQ(first->init_result(), RMW_RET_OK) << first->error();
  EXPECT_EQ(first->actual_domain_id(), domain);
  {
    DomainContext other(rmw_, other_domain);
    EXPECT_EQ(other.init_result(), RMW_RET_ERROR);
    EXPECT_NE(other.error().find("one domain per process"), std::string::npos) << other.error();
    EXPECT_NE(other.error().find("-d" + std::to_string(other_domain)), std::string::npos)
        << other.error();
    DomainContext same(rmw_, domain);  // a second context of the same domain is fine
    EXPECT_EQ(same.init_result(), RMW_RET_OK) << same.error();
  }
  first.reset();
  // Once every context is finalized, the process may join another domain.
  DomainContext later(rmw_, other_domain);
  EXPECT_EQ(later.init_result(), RMW_RET_OK) << later.error();
}

}  // namespace
}  // namespace baton::ros2

#endif  // BATON_HAVE_RMW_HEADERS
