#[=======================================================================[.rst:
udfkit_install_udf
------------------

Installs an ``add_ptx_udf`` target as a UDF package: its manifest, artifacts and header,
with the target in an export set, so that another project finds it and passes it to
``add_jit_library(... UDFS ...)``.

.. code-block:: cmake

  udfkit_install_udf(<target> EXPORT <export-set> [DESTINATION <dir>] [FATBIN])

``DESTINATION``
  Default ``${CMAKE_INSTALL_DATADIR}/udfkit``; the files go to ``<dir>/<target>/`` and the
  header to ``<dir>/<target>/include``. The paths of the files in the manifest are
  relative, so the installed prefix can move. The installed manifest carries no path of
  the build or source tree: each ``source`` it names (of functions, artifacts and link
  records, and each ``path`` of its ``sources``) is the file's name alone, which messages
  still show.

``FATBIN``
  Also packs the target's LTO-IR, unlinked, into one fatbin (``udfkit pack``, at build
  time, part of ``ALL``), for a runtime that links it at load time, and installs it as
  ``<dir>/<target>/<target>.fatbin``, beside the manifest. Its entries name their groups,
  producers and the package's functions (docs/manifest.md, "Package fatbins"). The target
  needs LTO-IR (``add_ptx_udf(... OUTPUT LTOIR)``, the default). In the build tree the
  target's property ``UDFKIT_PACKAGE_FATBIN`` is the fatbin's path; the installed target
  has ``UDFKIT_PACKAGE_FATBIN_NAME`` (``<target>.fatbin``), the file's name in the
  directory of the installed manifest: the parent of the target's include directory.

Install the export set as usual (``install(EXPORT ...)``); the consumer's
``find_package(udfkit)`` must come before it loads that export set.
#]=======================================================================]
include_guard(GLOBAL)
include(GNUInstallDirs)
include("${CMAKE_CURRENT_LIST_DIR}/detail/_udfkit_common.cmake")

function(udfkit_install_udf target)
  list(APPEND CMAKE_MESSAGE_CONTEXT "udfkit.udfkit_install_udf")
  cmake_parse_arguments(PARSE_ARGV 1 arg "FATBIN" "EXPORT;DESTINATION" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "udfkit_install_udf: unknown arguments for target '${target}': ${arg_UNPARSED_ARGUMENTS}")
  endif()
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
  # The manifest, every artifact it names (all in its directory) and the header; the
  # package fatbin goes under its installed name below.
  install(DIRECTORY "${_dir}/" DESTINATION "${_dest}/${target}"
          PATTERN "*.d" EXCLUDE PATTERN "cuda-*.json" EXCLUDE PATTERN "python.json" EXCLUDE
          PATTERN "${target}.package.fatbin*" EXCLUDE)
  get_filename_component(_name "${_manifest}" NAME)
  set(_installed "${_dest}/${target}/${_name}")
  if(NOT IS_ABSOLUTE "${_installed}")
    set(_installed "\${CMAKE_INSTALL_PREFIX}/${_installed}")
  endif()
  install(CODE "set(_UDFKIT_INSTALLED \"\$ENV{DESTDIR}${_installed}\")
include(\"${CMAKE_CURRENT_FUNCTION_LIST_DIR}/detail/_udfkit_install_manifest.cmake\")")
  if(arg_FATBIN)
    _udfkit_tool(_udfkit _udfkit_now)
    set(_fatbin "${_dir}/${target}.package.fatbin")
    add_custom_command(
      OUTPUT "${_fatbin}" "${_fatbin}.json"
      COMMAND ${_udfkit} pack "${_manifest}" -o "${_fatbin}"
      DEPENDS "${_manifest}" udfkit::udfkit
      COMMENT "udfkit: packing ${target}'s LTO-IR into one fatbin"
      VERBATIM COMMAND_EXPAND_LISTS)
    add_custom_target(${target}_udfkit_package ALL DEPENDS "${_fatbin}")
    # The manifest may come from another directory's rule: order by its target too.
    add_dependencies(${target}_udfkit_package ${target}_udfkit)
    install(FILES "${_fatbin}" DESTINATION "${_dest}/${target}" RENAME "${target}.fatbin")
    set_target_properties(${target} PROPERTIES
      UDFKIT_PACKAGE_FATBIN "${_fatbin}"
      UDFKIT_PACKAGE_FATBIN_NAME "${target}.fatbin")
    set_property(TARGET ${target} APPEND PROPERTY EXPORT_PROPERTIES UDFKIT_PACKAGE_FATBIN_NAME)
  endif()
  target_include_directories(${target} INTERFACE "$<INSTALL_INTERFACE:${_dest}/${target}/include>")
  install(TARGETS ${target} EXPORT ${arg_EXPORT})
endfunction()
