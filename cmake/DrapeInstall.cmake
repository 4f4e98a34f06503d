# `cmake --install build --prefix P` installs the drape command, the shared library, the public
# headers and P/lib/cmake/drape/drapeConfig.cmake, so that another project can write
#   find_package(drape CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE drape::drape)
# tests/package/ builds such a project against an installed tree.
include(CMakePackageConfigHelpers)

install(TARGETS drape RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS drape_shared EXPORT drapeTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/drape ${PROJECT_BINARY_DIR}/include/drape
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

set(DRAPE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/drape)
install(EXPORT drapeTargets NAMESPACE drape:: DESTINATION ${DRAPE_CMAKE_DIR})
configure_package_config_file(cmake/drapeConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/drapeConfig.cmake
                              INSTALL_DESTINATION ${DRAPE_CMAKE_DIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/drapeConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/drapeConfig.cmake ${PROJECT_BINARY_DIR}/drapeConfigVersion.cmake
        DESTINATION ${DRAPE_CMAKE_DIR})
