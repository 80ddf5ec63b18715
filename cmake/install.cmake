# Install rules: the shared library, the public headers, a CMake package
# (find_package(interlace) -> interlace::interlace) and a pkg-config file.
# Paths are relative to CMAKE_INSTALL_PREFIX, so the same rules serve a plain
# `cmake --install` and `pip install .` (scikit-build-core points the prefix at
# the wheel's data tree, which pip unpacks into the environment's prefix).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Consumers compile our headers, which use C++20.
target_compile_features(interlace INTERFACE cxx_std_20)

set(INTERLACE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/interlace)

install(TARGETS interlace EXPORT interlaceTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# include/interlace/ goes to <includedir>/interlace/. Everything else in include/ (the C
# compatibility headers mpi.h, shmem.h, ... and include/nanos6/) goes to the private
# <includedir>/interlace/compat/, which the wrappers, the CMake target and the .pc
# file add with -I, as Open MPI and MPICH keep their mpi.h: <includedir> is often on
# every C build's path (a pyenv Python's CPPFLAGS names <prefix>/include), where our
# mpi.h and shmem.h would hide those of another MPI or OpenSHMEM (docs/building.md).
# Found by glob, so a header added to include/ is installed without a change here.
set(INTERLACE_COMPAT_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/interlace/compat)
file(GLOB include_entries LIST_DIRECTORIES true CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/include/*)
foreach(entry ${include_entries})
  get_filename_component(entry_name ${entry} NAME)
  if(entry_name STREQUAL "interlace")
    install(DIRECTORY ${entry} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
      FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
  elseif(IS_DIRECTORY ${entry})
    install(DIRECTORY ${entry} DESTINATION ${INTERLACE_COMPAT_INCLUDEDIR}
      FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
  elseif(entry_name MATCHES "\\.(h|hpp)$")
    install(FILES ${entry} DESTINATION ${INTERLACE_COMPAT_INCLUDEDIR})
  endif()
endforeach()
install(EXPORT interlaceTargets NAMESPACE interlace::
  DESTINATION ${INTERLACE_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/interlaceConfig.cmake.in
  ${PROJECT_BINARY_DIR}/interlaceConfig.cmake
  INSTALL_DESTINATION ${INTERLACE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/interlaceConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/interlaceConfig.cmake
              ${PROJECT_BINARY_DIR}/interlaceConfigVersion.cmake
  DESTINATION ${INTERLACE_CMAKE_DIR})

# pkg-config resolves ${pcfiledir} itself, so the .pc file stays relocatable
# (pip's prefix is unknown when the wheel is built).
file(RELATIVE_PATH INTERLACE_PC_TO_PREFIX
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" INTERLACE_PC_TO_PREFIX "${INTERLACE_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/interlace.pc.in
  ${PROJECT_BINARY_DIR}/interlace.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/interlace.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

include(${CMAKE_CURRENT_LIST_DIR}/wrappers.cmake)
