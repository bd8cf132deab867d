#[=======================================================================[.rst:
udfkit_install_udf
------------------

Installs an ``add_ptx_udf`` target as a UDF package: its manifest, artifacts and header,
with the target in an export set, so that another project finds it and passes it to
``add_jit_library(... UDFS ...)``.

.. code-block:: cmake

  udfkit_install_udf(<target> EXPORT <export-set> [DESTINATION <dir>])

``DESTINATION``
  Default ``${CMAKE_INSTALL_DATADIR}/udfkit``; the files go to ``<dir>/<target>/`` and the
  header to ``<dir>/<target>/include``. The paths of the files in the manifest are
  relative, so the installed prefix can move; the sources it names (for messages) are
  absolute: the files the UDFs were built from.

Install the export set as usual (``install(EXPORT ...)``); the consumer's
``find_package(udfkit)`` must come before it loads that export set.
#]=======================================================================]
include_guard(GLOBAL)
include(GNUInstallDirs)

function(udfkit_install_udf target)
  list(APPEND CMAKE_MESSAGE_CONTEXT "udfkit.udfkit_install_udf")
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "EXPORT;DESTINATION" "")
  if(NOT arg_EXPORT)
    message(FATAL_ERROR "udfkit_install_udf: target '${target}' needs EXPORT <export-set>")
  endif()
  get_target_property(_manifest ${target} UDFKIT_MANIFEST)
  if(NOT _manifest)
    message(FATAL_ERROR "udfkit_install_udf: '${target}' was not made by add_ptx_udf")
  endif()
  set(_dest "${CMAKE_INSTALL_DATADIR}/udfkit")
  if(arg_DESTINATION)
    set(_dest "${arg_DESTINATION}")
  endif()
  get_filename_component(_dir "${_manifest}" DIRECTORY)
  # The manifest, every artifact it names (all in its directory) and the header.
  install(DIRECTORY "${_dir}/" DESTINATION "${_dest}/${target}"
          PATTERN "*.d" EXCLUDE PATTERN "cuda-*.json" EXCLUDE PATTERN "python.json" EXCLUDE)
  # Its sources named by absolute paths: relative to the build tree, they would name
  # nothing once installed.
  get_filename_component(_name "${_manifest}" NAME)
  set(_installed "${_dest}/${target}/${_name}")
  if(NOT IS_ABSOLUTE "${_installed}")
    set(_installed "\${CMAKE_INSTALL_PREFIX}/${_installed}")
  endif()
  install(CODE "set(_UDFKIT_BUILT \"${_manifest}\")
set(_UDFKIT_INSTALLED \"\$ENV{DESTDIR}${_installed}\")
include(\"${CMAKE_CURRENT_FUNCTION_LIST_DIR}/detail/_udfkit_install_manifest.cmake\")")
  target_include_directories(${target} INTERFACE "$<INSTALL_INTERFACE:${_dest}/${target}/include>")
  install(TARGETS ${target} EXPORT ${arg_EXPORT})
endfunction()
