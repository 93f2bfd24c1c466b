# What `cmake --install` puts under the prefix for library users: the public headers, every
# library layer's static library (session/ and app/ with everything below them; not the
# front door cli/, whose argv parsing and line editor a library user does not need), the `ralph`
# executable, a CMake package (find_package(ralph), target ralph::ralph), a pkg-config file
# (ralph.pc) and the man page ralph(1). Tests, benchmarks and fakes stay in the build.
include(CMakePackageConfigHelpers)

get_property(ralph_layers GLOBAL PROPERTY RALPH_LAYERS)
set(ralph_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ralph)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ralph DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN cli EXCLUDE)
install(TARGETS ${ralph_layers} ralph EXPORT ralphTargets)
install(TARGETS ralph_exe)
install(EXPORT ralphTargets NAMESPACE ralph:: DESTINATION ${ralph_cmake_dir})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ralphConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ralphConfig.cmake
                              INSTALL_DESTINATION ${ralph_cmake_dir})
# 0.x: a new minor version may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ralphConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ralphConfig.cmake ${PROJECT_BINARY_DIR}/ralphConfigVersion.cmake
        DESTINATION ${ralph_cmake_dir})

# Static libraries must be listed users first: the reverse of the order the layers were defined.
set(RALPH_PC_LIBS "")
list(REVERSE ralph_layers)
foreach(layer IN LISTS ralph_layers)
  get_target_property(type ${layer} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    string(APPEND RALPH_PC_LIBS " -l${layer}")
  endif()
endforeach()
# The prefix is found from the .pc file's own place, so any `--prefix` given at install time works.
file(RELATIVE_PATH RALPH_PC_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" RALPH_PC_PREFIX "${RALPH_PC_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/ralph.pc.in ${PROJECT_BINARY_DIR}/ralph.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ralph.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The man page, when go-md2man was there to make it (the `man` target, CMakeLists.txt).
if(TARGET man)
  install(FILES ${PROJECT_BINARY_DIR}/ralph.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
