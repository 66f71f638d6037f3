# Installs the build in BUILD_DIR into WORK_DIR/prefix and builds the example in SOURCE_DIR
# against it twice: with CMake (find_package(baton), baton::baton) and with g++ + pkg-config.
# Each binary then runs the example's own end-to-end check (run_example.cmake).
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " cmd)
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/baton/baton.hpp lib/cmake/baton/batonConfig.cmake lib/pkgconfig/baton.pc
          bin/baton-doctor)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

# 1. CMake: find_package(baton) from the prefix, nothing from the source tree.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/cmake -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake)
run(${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/cmake --output-on-failure)
message("find_package(baton): built and passed\n${run_out}")

# 2. pkg-config: one g++ line.
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run(pkg-config --cflags --libs baton)
string(STRIP "${run_out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} ${SOURCE_DIR}/main.cpp -o ${WORK_DIR}/pkgconfig-example ${flags})
run(${CMAKE_COMMAND} -DBIN=${WORK_DIR}/pkgconfig-example -P ${SOURCE_DIR}/run_example.cmake)
message("pkg-config baton: built and passed")
