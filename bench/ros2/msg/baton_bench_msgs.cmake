# baton_bench_msgs: the fixed-size messages of the loan benchmarks and tests (README.md here),
# generated and built with the ROS 2 wheels' rosidl generators. Included by tests/ and bench/ros2
# (whichever comes first defines the targets; see cmake/rosidl_wheels_package.cmake).
include_guard(GLOBAL)
include(${CMAKE_SOURCE_DIR}/cmake/rosidl_wheels_package.cmake)
baton_rosidl_wheels_package(baton_bench_msgs "${CMAKE_CURRENT_LIST_DIR}/baton_bench_msgs"
                            msg/Fixed64.idl msg/Fixed64k.idl msg/Fixed4m.idl msg/Fixed4k.idl
                            msg/FloatShare.idl)
