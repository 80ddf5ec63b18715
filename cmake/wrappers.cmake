# The compiler wrappers interlace-cc, interlace-c++, interlace-oshcc and
# interlace-oshc++ (docs/building.md): POSIX sh scripts that find the install
# prefix relative to their own location. Included by cmake/install.cmake.
#
# Under scikit-build-core they go to the wheel's scripts, which pip puts in
# <prefix>/bin while the data tree (CMAKE_INSTALL_PREFIX here: lib/, include/)
# lands in <prefix> itself; a plain `cmake --install` puts them in the
# prefix's bindir.
if(DEFINED SKBUILD_SCRIPTS_DIR)
  set(wrap_dest ${SKBUILD_SCRIPTS_DIR})
  set(WRAP_TO_PREFIX ..)
else()
  set(wrap_dest ${CMAKE_INSTALL_BINDIR})
  if(IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
    # Found relative to nothing: the configured prefix is the answer.
    file(RELATIVE_PATH WRAP_TO_PREFIX ${CMAKE_INSTALL_BINDIR} ${CMAKE_INSTALL_PREFIX})
  else()
    file(RELATIVE_PATH WRAP_TO_PREFIX /prefix/${CMAKE_INSTALL_BINDIR} /prefix)
  endif()
endif()
string(REGEX REPLACE "/$" "" WRAP_TO_PREFIX "${WRAP_TO_PREFIX}")
if(WRAP_TO_PREFIX STREQUAL "")
  set(WRAP_TO_PREFIX .)
endif()
set(WRAP_LIBDIR ${CMAKE_INSTALL_LIBDIR})
set(WRAP_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})

foreach(wrap cc:cc c++:c++ oshcc:cc oshc++:c++)
  string(REPLACE ":" ";" wrap ${wrap})
  list(GET wrap 0 suffix)
  list(GET wrap 1 WRAP_LANG)
  set(WRAP_NAME interlace-${suffix})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/compiler-wrapper.sh.in
    ${PROJECT_BINARY_DIR}/wrappers/${WRAP_NAME} @ONLY)
  install(PROGRAMS ${PROJECT_BINARY_DIR}/wrappers/${WRAP_NAME} DESTINATION ${wrap_dest})
endforeach()
