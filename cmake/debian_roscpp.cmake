# Debian's ROS 1 roscpp (libroscpp-dev, libstd-msgs-dev; scripts/install-ros1.sh) has no CMake
# package usable outside catkin: find its headers and libraries. Sets BATON_ROSCPP_FOUND and
# defines baton_roscpp_executable(target source...) for peers built against it (C++17: ROS 1's
# generated message headers use std::allocator<void>::rebind, gone in C++20). Included by each
# directory that builds such a peer (the find results are cached, the variables are per directory).
find_path(BATON_ROSCPP_INCLUDE ros/ros.h)
find_path(BATON_STD_MSGS_INCLUDE std_msgs/UInt8MultiArray.h)
set(BATON_ROSCPP_LIBS)
set(BATON_ROSCPP_MISSING)
foreach(lib roscpp roscpp_serialization rosconsole rostime cpp_common)
  find_library(BATON_ROS1_LIB_${lib} ${lib})
  if(BATON_ROS1_LIB_${lib})
    list(APPEND BATON_ROSCPP_LIBS ${BATON_ROS1_LIB_${lib}})
  else()
    set(BATON_ROSCPP_MISSING ${lib})
  endif()
endforeach()
if(BATON_ROSCPP_INCLUDE AND BATON_STD_MSGS_INCLUDE AND NOT BATON_ROSCPP_MISSING)
  set(BATON_ROSCPP_FOUND TRUE)
else()
  set(BATON_ROSCPP_FOUND FALSE)
endif()

function(baton_roscpp_executable target)
  add_executable(${target} ${ARGN})
  set_target_properties(${target} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  target_include_directories(${target} SYSTEM PRIVATE ${BATON_ROSCPP_INCLUDE}
                                                      ${BATON_STD_MSGS_INCLUDE})
  target_link_libraries(${target} PRIVATE ${BATON_ROSCPP_LIBS})
  # A peer stands in for a stock roscpp node: it is not what a sanitizer build checks (LSan would
  # fail it for roscpp's own exit-time allocations).
  if(BATON_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=all)
    target_link_options(${target} PRIVATE -fno-sanitize=all)
  endif()
endfunction()
