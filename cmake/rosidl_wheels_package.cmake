# baton_rosidl_wheels_package(<package> <idl dir> <msg/Name.idl>...): a ROS 2 message package
# built as a colcon workspace would build it, with the rosidl generators of the ROS 2 wheels in
# BATON_ROS_PREFIX (cmake/rosidl_generate.py runs them; .idl input only, see there). It makes the
# libraries a ROS install has for a message package, named as rosidl_typesupport_cpp's dispatcher
# looks them up at run time (through LD_LIBRARY_PATH):
#
#   lib<package>__rosidl_generator_c.so                   type hashes and descriptions (C)
#   lib<package>__rosidl_typesupport_introspection_cpp.so what rmw_baton_cpp reads
#   lib<package>__rosidl_typesupport_fastrtps_cpp.so      what rmw_fastrtps_cpp reads
#   lib<package>__rosidl_typesupport_cpp.so               the dispatcher rclcpp / rcl programs use
#
# all in ${CMAKE_BINARY_DIR}/ros2_msgs/lib (BATON_ROS2_MSGS_LIB_DIR, for LD_LIBRARY_PATH), and an
# interface target <package>_cpp: the C++ headers plus the dispatcher, for programs that use the
# messages. Message names are CamelCase words and digits (file names are their lower_case form).
set(BATON_ROS2_MSGS_LIB_DIR "${CMAKE_BINARY_DIR}/ros2_msgs/lib" CACHE INTERNAL "")

function(baton_rosidl_wheels_package package idl_dir)
  set(_out "${CMAKE_BINARY_DIR}/ros2_msgs/${package}")
  set(_c "")
  set(_intro "")
  set(_fastrtps "")
  set(_dispatch "")
  set(_generated "")
  set(_idl_paths "")
  foreach(idl ${ARGN})
    get_filename_component(_name "${idl}" NAME_WE)
    get_filename_component(_sub "${idl}" DIRECTORY)  # msg
    # rosidl's convert_camel_case_to_lower_case_underscore
    string(REGEX REPLACE "(.)([A-Z][a-z]+)" "\\1_\\2" _snake "${_name}")
    string(REGEX REPLACE "([a-z0-9])([A-Z])" "\\1_\\2" _snake "${_snake}")
    string(TOLOWER "${_snake}" _snake)
    set(_d "${package}/${_sub}/detail/${_snake}")
    list(APPEND _c "${_out}/c/${_d}__description.c" "${_out}/c/${_d}__functions.c"
         "${_out}/c/${_d}__type_support.c")
    list(APPEND _intro "${_out}/introspection_cpp/${_d}__type_support.cpp")
    list(APPEND _fastrtps
         "${_out}/fastrtps_cpp/${package}/${_sub}/detail/dds_fastrtps/${_snake}__type_support.cpp")
    list(APPEND _dispatch "${_out}/typesupport_cpp/${package}/${_sub}/${_snake}__type_support.cpp")
    list(APPEND _generated "${_out}/cpp/${package}/${_sub}/${_snake}.hpp")
    list(APPEND _idl_paths "${idl_dir}/${idl}")
  endforeach()
  list(APPEND _generated ${_c} ${_intro} ${_fastrtps} ${_dispatch})
  set(_script "${CMAKE_SOURCE_DIR}/cmake/rosidl_generate.py")
  # The wheels' Python (their venv); a ROS install without one: the system's python3.
  set(_python "${BATON_ROS_PREFIX}/bin/python")
  if(NOT EXISTS "${_python}")
    find_program(_python NAMES python3 REQUIRED)
  endif()
  add_custom_command(
    OUTPUT ${_generated}
    COMMAND ${CMAKE_COMMAND} -E rm -rf "${_out}"
    COMMAND ${CMAKE_COMMAND} -E env "AMENT_PREFIX_PATH=${BATON_ROS_PREFIX}"
            "${_python}" "${_script}" "${_out}" ${package} "${idl_dir}" ${ARGN}
    DEPENDS ${_idl_paths} "${_script}"
    COMMENT "rosidl: generating ${package} with the ROS 2 wheels' generators"
    VERBATIM)

  # Every wheel package's include folder (headers lie in include/<package>/<package>/...).
  file(GLOB _pkg_dirs LIST_DIRECTORIES true "${BATON_ROS_PREFIX}/include/*")
  set(_wheel_includes "${BATON_ROS_PREFIX}/include")
  foreach(dir ${_pkg_dirs})
    if(IS_DIRECTORY "${dir}")
      list(APPEND _wheel_includes "${dir}")
    endif()
  endforeach()
  set(_own_includes "${_out}/c" "${_out}/cpp" "${_out}/introspection_cpp" "${_out}/fastrtps_cpp")

  # One shared library per generator, each linked to the wheels' libraries it calls.
  macro(_rosidl_lib suffix sources)
    set(_t ${package}__${suffix})
    add_library(${_t} SHARED ${${sources}})
    target_include_directories(${_t} SYSTEM PUBLIC ${_own_includes} ${_wheel_includes})
    target_compile_options(${_t} PRIVATE -w)  # generated code: its warnings are not ours
    set_target_properties(${_t} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${BATON_ROS2_MSGS_LIB_DIR}"
                                           BUILD_RPATH "${BATON_ROS_PREFIX}/lib")
    foreach(lib ${ARGN})
      if(TARGET ${lib})
        target_link_libraries(${_t} PRIVATE ${lib})
      else()
        target_link_libraries(${_t} PRIVATE "${BATON_ROS_PREFIX}/lib/lib${lib}.so")
      endif()
    endforeach()
    target_link_options(${_t} PRIVATE -Wl,--allow-shlib-undefined)
  endmacro()
  _rosidl_lib(rosidl_generator_c _c builtin_interfaces__rosidl_generator_c rosidl_runtime_c
              rcutils)
  _rosidl_lib(rosidl_typesupport_introspection_cpp _intro ${package}__rosidl_generator_c
              builtin_interfaces__rosidl_typesupport_introspection_cpp
              rosidl_typesupport_introspection_cpp rosidl_runtime_c)
  _rosidl_lib(rosidl_typesupport_fastrtps_cpp _fastrtps ${package}__rosidl_generator_c
              builtin_interfaces__rosidl_typesupport_fastrtps_cpp rosidl_typesupport_fastrtps_cpp
              fastcdr rosidl_runtime_c)
  _rosidl_lib(rosidl_typesupport_cpp _dispatch ${package}__rosidl_generator_c
              rosidl_typesupport_cpp rosidl_typesupport_c rosidl_runtime_c)
  # The dispatcher dlopens the other two by name; build them whenever it is built.
  add_dependencies(${package}__rosidl_typesupport_cpp
                   ${package}__rosidl_typesupport_introspection_cpp
                   ${package}__rosidl_typesupport_fastrtps_cpp)

  add_library(${package}_cpp INTERFACE)
  target_include_directories(${package}_cpp SYSTEM INTERFACE "${_out}/cpp" "${_out}/c")
  target_link_libraries(${package}_cpp INTERFACE ${package}__rosidl_typesupport_cpp
                                                 ${package}__rosidl_generator_c)
endfunction()
