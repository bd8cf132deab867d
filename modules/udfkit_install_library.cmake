#[=======================================================================[.rst:
udfkit_install_library
----------------------

Installs an ``add_jit_library`` library with its generated header, in an export set, so
that a project further down finds it with ``find_package`` and calls its launchers.

.. code-block:: cmake

  udfkit_install_library(<target> EXPORT <export-set>
    [LIBRARY_DESTINATION <dir>]    # default ${CMAKE_INSTALL_LIBDIR}
    [INCLUDE_DESTINATION <dir>])   # default ${CMAKE_INSTALL_INCLUDEDIR}

The library carries its fatbin; the header goes to the include destination, which the
installed target puts on its users' include path. A library on the shared runtime (a
``SHARED`` library's default) also installs ``libudfkit_runtime.so.1`` beside itself, and a
shared library finds it there (``$ORIGIN``) wherever the prefix moves. A program installed
elsewhere finds the library through its own run path (e.g.
``CMAKE_INSTALL_RPATH_USE_LINK_PATH``). The installed target links the udfkit
runtime it was built with (``udfkit::runtime``, ``udfkit::runtime_shared``, and
``udfkit::runtime_ptx`` with ``PTX_FALLBACK``): the package config that loads the export
set calls ``find_dependency(udfkit)`` first, as in

.. code-block:: cmake

  install(EXPORT engineTargets NAMESPACE engine:: DESTINATION lib/cmake/engine)
  # engineConfig.cmake:
  #   include(CMakeFindDependencyMacro)
  #   find_dependency(udfkit CONFIG)
  #   include("${CMAKE_CURRENT_LIST_DIR}/engineTargets.cmake")

The ``UDFS`` targets the library was made from are not part of its installed interface
(its header does not include theirs); a user who wants their headers links the UDF
package itself.
#]=======================================================================]
include_guard(GLOBAL)
include(GNUInstallDirs)

function(udfkit_install_library target)
  list(APPEND CMAKE_MESSAGE_CONTEXT "udfkit.udfkit_install_library")
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "EXPORT;LIBRARY_DESTINATION;INCLUDE_DESTINATION" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "udfkit_install_library: unknown arguments for target '${target}': ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "udfkit_install_library: '${target}' is not a target")
  endif()
  if(NOT arg_EXPORT)
    message(FATAL_ERROR "udfkit_install_library: target '${target}' needs EXPORT <export-set>")
  endif()
  get_target_property(_header ${target} UDFKIT_HEADER)
  if(NOT _header)
    message(FATAL_ERROR "udfkit_install_library: '${target}' was not made by add_jit_library")
  endif()
  set(_lib "${CMAKE_INSTALL_LIBDIR}")
  if(arg_LIBRARY_DESTINATION)
    set(_lib "${arg_LIBRARY_DESTINATION}")
  endif()
  set(_inc "${CMAKE_INSTALL_INCLUDEDIR}")
  if(arg_INCLUDE_DESTINATION)
    set(_inc "${arg_INCLUDE_DESTINATION}")
  endif()
  # A library on the shared runtime ships it beside itself, found through $ORIGIN: the
  # prefix works wherever it moves, without udfkit installed where it runs.
  get_target_property(_links ${target} LINK_LIBRARIES)
  if("udfkit::runtime_shared" IN_LIST _links)
    install(FILES "$<TARGET_FILE:udfkit::runtime_shared>" "$<TARGET_SONAME_FILE:udfkit::runtime_shared>"
            DESTINATION "${_lib}")
    get_target_property(_type ${target} TYPE)
    if(_type STREQUAL "SHARED_LIBRARY")
      set_property(TARGET ${target} APPEND PROPERTY INSTALL_RPATH "$ORIGIN")
    endif()
  endif()
  install(FILES "${_header}" DESTINATION "${_inc}")
  target_include_directories(${target} INTERFACE "$<INSTALL_INTERFACE:${_inc}>")
  install(TARGETS ${target} EXPORT ${arg_EXPORT}
          ARCHIVE DESTINATION "${_lib}"
          LIBRARY DESTINATION "${_lib}"
          RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
          OBJECTS DESTINATION "${_lib}/objects-${target}")
endfunction()
