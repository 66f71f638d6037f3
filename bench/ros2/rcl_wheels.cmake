# baton_rcl_wheels_target(<target> <message package>...): builds <target> like an rclcpp program
# against the ROS 2 wheels (BATON_ROS_PREFIX, src/ros2/rmw/CMakeLists.txt): every package's
# include folder, rcl, and the rosidl_typesupport_cpp library of each message package named. The
# wheels' libraries leave libpython's symbols to the process, hence --allow-shlib-undefined; the
# runner (bench/suite/exp_rcl_pingpong.py: rcl_env) sets LD_LIBRARY_PATH and preloads libpython.
# The benchmarks' rcl programs include bench/ros2/rcl_node.hpp.
function(baton_rcl_wheels_target target)
  file(GLOB _pkg_dirs LIST_DIRECTORIES true "${BATON_ROS_PREFIX}/include/*")
  foreach(dir ${_pkg_dirs})
    if(IS_DIRECTORY "${dir}")
      target_include_directories(${target} SYSTEM PRIVATE "${dir}")
    endif()
  endforeach()
  target_include_directories(${target} PRIVATE "${CMAKE_SOURCE_DIR}/bench/ros2")
  set(_libs rcl rcutils rmw rosidl_runtime_c rosidl_typesupport_cpp)
  foreach(pkg ${ARGN})
    list(APPEND _libs ${pkg}__rosidl_typesupport_cpp)
  endforeach()
  foreach(lib ${_libs})
    find_library(_rcl_lib_${lib} NAMES ${lib} PATHS "${BATON_ROS_PREFIX}/lib" NO_DEFAULT_PATH)
    target_link_libraries(${target} PRIVATE ${_rcl_lib_${lib}})
  endforeach()
  target_link_options(${target} PRIVATE -Wl,--allow-shlib-undefined)
  target_compile_options(${target} PRIVATE -O2 -Wno-unused-result)
  set_target_properties(${target} PROPERTIES BUILD_RPATH "${BATON_ROS_PREFIX}/lib")
endfunction()
