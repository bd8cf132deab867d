#[=======================================================================[.rst:
add_ptx_udf
-----------

Compiles user-defined functions written in Python or CUDA C/C++ to LTO-IR or PTX, exported
under C-ABI names, and makes an ``INTERFACE`` target that carries them.

.. code-block:: cmake

  add_ptx_udf(<target>
    SOURCES <file.py|file.cu|file.ptx|file.ltoir>...
    FUNCTIONS <spec>...
    [OUTPUT LTOIR|PTX]
    [ARCHITECTURES <list>]
    [INCLUDE_DIRECTORIES <dir>...] [COMPILE_DEFINITIONS <def>...] [COMPILE_OPTIONS <opt>...]
    [LINK <file>...]
    [HEADER <file name>])

``SOURCES``
  CUDA C/C++ sources compile one command each (NVRTC, once per architecture); all Python
  sources of the target compile in one command (one interpreter start); ``.ptx`` and
  ``.ltoir`` files are taken as they are.

``FUNCTIONS``
  Function specs, ``[<c_name>=]<source_name>[@<file>]:<signature>`` (see the README).
  Each must be defined by exactly one source.

``OUTPUT``
  ``LTOIR`` (default) or ``PTX``.

``ARCHITECTURES``
  CMake's ``CUDA_ARCHITECTURES`` syntax; default ``CMAKE_CUDA_ARCHITECTURES``, else udfkit's.

``INCLUDE_DIRECTORIES``, ``COMPILE_DEFINITIONS``, ``COMPILE_OPTIONS``
  For CUDA sources: ``-I``, ``-D``, and options passed to NVRTC as they are.

``LINK``
  External code (``.ltoir .ptx .cubin .fatbin .o .a``) these UDFs need: it is copied
  beside the target's manifest and linked wherever the UDFs are.

``HEADER``
  The generated header's file name, default ``<target>.h``; linking to ``<target>`` puts
  its directory on the include path. It declares every function's C prototype for device
  code and a plain-C table of them.

The target's manifest and artifacts are in ``<binary dir>/<target>.udfkit/``; the
target's properties ``UDFKIT_MANIFEST`` and ``UDFKIT_FUNCTIONS`` name the manifest and
the specs. Edits to a source, a header it includes or a Python module it imports rebuild
exactly what depends on them (depfiles).
#]=======================================================================]
include_guard(GLOBAL)
# udfkit's depfiles name absolute paths, which Ninja can read as they are: under CMP0116
# NEW, CMake would run `cmake -E cmake_transform_depfile` after every compile (a process
# costing more than a compile answered from udfkit's cache). This include's policy scope
# keeps the setting to the functions defined here.
cmake_policy(SET CMP0116 OLD)
include("${CMAKE_CURRENT_LIST_DIR}/detail/_udfkit_common.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/detail/_udfkit_python.cmake")

function(add_ptx_udf target)
  list(APPEND CMAKE_MESSAGE_CONTEXT "udfkit.add_ptx_udf")
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OUTPUT;HEADER"
    "SOURCES;FUNCTIONS;ARCHITECTURES;INCLUDE_DIRECTORIES;COMPILE_DEFINITIONS;COMPILE_OPTIONS;LINK")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_ptx_udf: unknown arguments for target '${target}': ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "add_ptx_udf: target '${target}' has no SOURCES")
  endif()
  if(NOT arg_FUNCTIONS)
    message(FATAL_ERROR "add_ptx_udf: target '${target}' has no FUNCTIONS")
  endif()
  foreach(_spec IN LISTS arg_FUNCTIONS)
    if(NOT _spec MATCHES "[^:]:[^:]*\\(" OR NOT _spec MATCHES "\\)[ \t]*$")
      message(FATAL_ERROR "add_ptx_udf: FUNCTIONS entry '${_spec}' of target '${target}' has no signature "
                          "(write [c_name=]source_name[@file]:ret(args))")
    endif()
  endforeach()
  set(_emit ltoir)
  if(arg_OUTPUT)
    string(TOLOWER "${arg_OUTPUT}" _emit)
    if(NOT _emit MATCHES "^(ltoir|ptx)$")
      message(FATAL_ERROR "add_ptx_udf: OUTPUT of target '${target}' is '${arg_OUTPUT}'; it takes LTOIR or PTX")
    endif()
  endif()
  set(_header "${target}.h")
  if(arg_HEADER)
    set(_header "${arg_HEADER}")
  endif()
  _udfkit_architectures(add_ptx_udf "${target}" "${arg_ARCHITECTURES}" _archs)
  _udfkit_tool(_udfkit _udfkit_now)
  string(MAKE_C_IDENTIFIER "${target}" _ident)

  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.udfkit")
  set(_manifest "${_dir}/${target}.json")
  set(_include "${_dir}/include")
  set(_common --arch "${_archs}" --emit "${_emit}" --skip-absent --function ${arg_FUNCTIONS})
  foreach(_inc IN LISTS arg_INCLUDE_DIRECTORIES)
    get_filename_component(_inc "${_inc}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _common -I "${_inc}")
  endforeach()
  foreach(_def IN LISTS arg_COMPILE_DEFINITIONS)
    list(APPEND _common -D "${_def}")
  endforeach()
  foreach(_opt IN LISTS arg_COMPILE_OPTIONS)
    list(APPEND _common "-Xnvrtc=${_opt}")
  endforeach()

  set(_python_sources)
  set(_parts)
  set(_stems)
  foreach(_src IN LISTS arg_SOURCES)
    get_filename_component(_src "${_src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(_ext "${_src}" LAST_EXT)
    get_filename_component(_stem "${_src}" NAME_WE)
    if(_ext STREQUAL ".py")
      list(APPEND _python_sources "${_src}")
    elseif(_ext MATCHES "^\\.(ptx|ltoir)$")
      list(APPEND _parts "${_src}")
    elseif(_ext MATCHES "^\\.(cu|cuh|cpp|cc|cxx)$")
      # One compile per CUDA source; sources of the same name get distinct manifests.
      _udfkit_unique_name("${_stem}" _stems _name)
      set(_out "${_dir}/cuda-${_name}.json")
      _udfkit_depfile_args("${_out}" _depfile_args)
      add_custom_command(
        OUTPUT "${_out}"
        COMMAND ${_udfkit} compile "${_src}" ${_common} -o "${_out}" ${_depfile_args}
        DEPFILE "${_out}.d"
        DEPENDS "${_src}" udfkit::udfkit
        COMMENT "udfkit: compiling ${target} ${_stem}${_ext}"
        VERBATIM COMMAND_EXPAND_LISTS)
      list(APPEND _parts "${_out}")
    else()
      message(FATAL_ERROR "add_ptx_udf: SOURCES entry '${_src}' of target '${target}' is not .py, .cu, .cuh, "
                          ".cpp, .cc, .cxx, .ptx or .ltoir")
    endif()
  endforeach()
  if(_python_sources)
    _udfkit_python_check(add_ptx_udf "${target}" "${_python_sources}" _python)
    set(_out "${_dir}/python.json")
    _udfkit_depfile_args("${_out}" _depfile_args)
    _udfkit_python_job_pool(_pool)
    add_custom_command(
      OUTPUT "${_out}"
      COMMAND ${_udfkit} compile ${_python_sources} ${_common} --python "${_python}" -o "${_out}" ${_depfile_args}
      DEPFILE "${_out}.d"
      ${_pool}
      DEPENDS ${_python_sources} udfkit::udfkit
      COMMENT "udfkit: compiling ${target}'s Python UDFs"
      VERBATIM COMMAND_EXPAND_LISTS)
    list(APPEND _parts "${_out}")
  endif()

  set(_links)
  foreach(_link IN LISTS arg_LINK)
    get_filename_component(_link "${_link}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _links "${_link}")
  endforeach()
  set(_link_args)
  if(_links)
    set(_link_args --link ${_links})
  endif()
  # The target's manifest and its header, in one process.
  add_custom_command(
    OUTPUT "${_manifest}" "${_include}/${_header}"
    COMMAND ${_udfkit} merge ${_parts} --function ${arg_FUNCTIONS} ${_link_args} -o "${_manifest}"
            --header "${_include}/${_header}" --name "${_ident}"
    DEPENDS ${_parts} ${_links} udfkit::udfkit
    COMMENT "udfkit: merging ${target}, header ${_header}"
    VERBATIM COMMAND_EXPAND_LISTS)

  add_custom_target(${target}_udfkit ALL DEPENDS "${_manifest}" "${_include}/${_header}")
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_udfkit)
  target_include_directories(${target} INTERFACE "$<BUILD_INTERFACE:${_include}>")
  set_target_properties(${target} PROPERTIES
    UDFKIT_MANIFEST "${_manifest}"
    UDFKIT_MANIFEST_NAME "${target}.json"
    UDFKIT_FUNCTIONS "${arg_FUNCTIONS}"
    UDFKIT_HEADER "${_header}"
    EXPORT_PROPERTIES "UDFKIT_MANIFEST_NAME;UDFKIT_FUNCTIONS;UDFKIT_HEADER")
endfunction()
