# Installing baton for C++ users outside this tree (issue 18):
#   cmake --install build --prefix /usr/local
# then, in their CMakeLists.txt,
#   find_package(baton REQUIRED)
#   target_link_libraries(app PRIVATE baton::baton)        # the core (shm .. api)
#   target_link_libraries(app PRIVATE baton::baton_ros2)   # + ROS 2 interop, when it was built
#   target_link_libraries(app PRIVATE baton::baton_ros1)   # + ROS 1 (TCPROS, XML-RPC)
#   target_link_libraries(app PRIVATE baton::baton_bridge) # + ROS 2 topics mirrored onto ROS 1
# or, without CMake, `pkg-config --cflags --libs baton`. Tested by the ctest
# example_built_out_of_tree_against_the_installed_package (examples/out_of_tree_test.cmake: installs
# into a scratch prefix and builds an example against it both ways). The `baton` command in the
# venv is installed by scripts/install-baton-command.sh instead: python/tests/test_baton_command.py.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_baton_core_targets baton_shm baton_memory baton_domain baton_topic baton_graph baton_api baton)
set(_baton_export_targets ${_baton_core_targets})
foreach(layer baton_ros2 baton_ros1 baton_bridge)
  if(TARGET ${layer})
    list(APPEND _baton_export_targets ${layer})
  endif()
endforeach()

install(TARGETS ${_baton_export_targets} EXPORT batonTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/baton DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(TARGETS baton-clean baton-doctor RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(_baton_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/baton)
install(EXPORT batonTargets NAMESPACE baton:: DESTINATION ${_baton_cmake_dir})
# What the exported targets link besides baton itself, for batonConfig.cmake to find again.
set(BATON_CONFIG_OPENCL ${OpenCL_FOUND})
set(BATON_CONFIG_CYCLONEDDS ${CycloneDDS_FOUND})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/batonConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/batonConfig.cmake
                              INSTALL_DESTINATION ${_baton_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/batonConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)  # 0.x: minor releases break
install(FILES ${CMAKE_BINARY_DIR}/batonConfig.cmake ${CMAKE_BINARY_DIR}/batonConfigVersion.cmake
        DESTINATION ${_baton_cmake_dir})

# pkg-config: the same core; the libraries are static, so the system ones they need are in Libs
# (not Libs.private), in link order (dependents first).
set(BATON_PC_LIBS "-lbaton_api -lbaton_graph -lbaton_topic -lbaton_domain -lbaton_memory -lbaton_shm")
set(BATON_PC_SYSTEM_LIBS "-lpthread -lrt")
foreach(lib ${CMAKE_DL_LIBS})
  string(APPEND BATON_PC_SYSTEM_LIBS " -l${lib}")
endforeach()
if(OpenCL_FOUND)
  set(BATON_PC_CFLAGS "-std=c++20 -DBATON_HAVE_OPENCL=1 -DCL_TARGET_OPENCL_VERSION=300")
  string(APPEND BATON_PC_SYSTEM_LIBS " -lOpenCL")
else()
  set(BATON_PC_CFLAGS "-std=c++20 -DBATON_HAVE_OPENCL=0")
endif()
file(RELATIVE_PATH BATON_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
string(REGEX REPLACE "/$" "" BATON_PC_TO_PREFIX "${BATON_PC_TO_PREFIX}")  # "../.."
configure_file(${CMAKE_CURRENT_LIST_DIR}/baton.pc.in ${CMAKE_BINARY_DIR}/baton.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/baton.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
