// Names the calling thread, so `top -H`, `ps -L`, gdb and perf say which of baton's threads is
// which (a janitor, a ROS 1 connection, an rmw listener) instead of repeating the program's name.
// Linux keeps 15 characters of a thread's name: longer names are cut.
#pragma once

#include <pthread.h>

#include <string_view>

namespace baton {

inline void name_this_thread(std::string_view name) noexcept {
  char kept[16] = {};
  name.copy(kept, sizeof kept - 1);
  (void)pthread_setname_np(pthread_self(), kept);
}

}  // namespace baton
