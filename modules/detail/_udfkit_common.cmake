# Helpers shared by add_ptx_udf and add_jit_library. Private: names start with _udfkit.
include_guard(GLOBAL)

# The udfkit tool as a command in custom commands, and whether it exists yet (it does not
# at configure time when udfkit is built in the same project).
function(_udfkit_tool out_command out_configure_path)
  if(TARGET udfkit::udfkit)
    # udfkit leaves an output whose bytes did not change as it was, for Ninja's restat;
    # generators without it (Makefiles) would then run its rule at every build.
    set(_command "$<TARGET_FILE:udfkit::udfkit>")
    if(NOT CMAKE_GENERATOR MATCHES "Ninja")
      list(APPEND _command --touch-unchanged)
    endif()
    set(${out_command} "${_command}" PARENT_SCOPE)
    get_target_property(_imported udfkit::udfkit IMPORTED)
    set(_path "")
    if(_imported)
      get_target_property(_path udfkit::udfkit LOCATION)
    endif()
    set(${out_configure_path} "${_path}" PARENT_SCOPE)
  else()
    message(FATAL_ERROR "udfkit: the target udfkit::udfkit is missing; load the package with find_package(udfkit CONFIG)")
  endif()
endfunction()

# Validates an architecture list in CMake's CUDA_ARCHITECTURES syntax and fills in the
# default: CMAKE_CUDA_ARCHITECTURES where set, else udfkit's (the toolchain's) default.
function(_udfkit_architectures fn target input out_var)
  set(_archs "${input}")
  set(_from "ARCHITECTURES")
  if(NOT _archs)
    if(CMAKE_CUDA_ARCHITECTURES)
      set(_archs "${CMAKE_CUDA_ARCHITECTURES}")
      set(_from "CMAKE_CUDA_ARCHITECTURES")
    else()
      set(_archs "${UDFKIT_DEFAULT_ARCHITECTURES}")
      set(_from "udfkit's default")
    endif()
  endif()
  # "80-real;90" may arrive as one escaped argument, or written with commas.
  string(REPLACE "\\;" ";" _archs "${_archs}")
  string(REPLACE "," ";" _archs "${_archs}")
  foreach(_arch IN LISTS _archs)
    if(_arch MATCHES "^(all|all-major|native)$")
      continue()
    endif()
    if(NOT _arch MATCHES "^([0-9]+)([af]?)(-real|-virtual)?$")
      message(FATAL_ERROR "${fn}: ARCHITECTURES entry '${_arch}' of target '${target}' is not of the form NN, NN-real, "
                          "NN-virtual (NN optionally with a or f), all, all-major or native")
    endif()
    set(_number "${CMAKE_MATCH_1}")
    if(UDFKIT_SUPPORTED_ARCHITECTURES AND NOT _number IN_LIST UDFKIT_SUPPORTED_ARCHITECTURES)
      list(JOIN UDFKIT_SUPPORTED_ARCHITECTURES " " _known)
      message(FATAL_ERROR "${fn}: ARCHITECTURES entry '${_arch}' of target '${target}' is not supported by this "
                          "toolchain (supported: ${_known})")
    endif()
  endforeach()
  # Joined with commas: custom commands expand lists into separate arguments.
  list(JOIN _archs "," _joined)
  message(STATUS "udfkit: ${target}: architectures ${_joined} (${_from})")
  set(${out_var} "${_joined}" PARENT_SCOPE)
endfunction()

# A name for stem that is not in the list yet ("udfs", then "udfs-2", ...): sources of the
# same file name in different directories get outputs of their own.
function(_udfkit_unique_name stem list_var out_var)
  set(_name "${stem}")
  set(_n 1)
  while(_name IN_LIST ${list_var})
    math(EXPR _n "${_n} + 1")
    set(_name "${stem}-${_n}")
  endwhile()
  set(${list_var} ${${list_var}} "${_name}" PARENT_SCOPE)
  set(${out_var} "${_name}" PARENT_SCOPE)
endfunction()

# A compile's -I/-D/-Xnvrtc options from INCLUDE_DIRECTORIES (relative to the current source
# directory), COMPILE_DEFINITIONS and COMPILE_OPTIONS lists.
function(_udfkit_compile_flags out_var includes definitions options)
  set(_flags)
  foreach(_inc IN LISTS includes)
    get_filename_component(_inc "${_inc}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _flags -I "${_inc}")
  endforeach()
  foreach(_def IN LISTS definitions)
    list(APPEND _flags -D "${_def}")
  endforeach()
  foreach(_opt IN LISTS options)
    list(APPEND _flags "-Xnvrtc=${_opt}")
  endforeach()
  set(${out_var} "${_flags}" PARENT_SCOPE)
endfunction()

# `udfkit kernels --check` of function specs (and kernel entries), now, where the tool
# already exists: a mistake is a configure-time error at <fn>'s call, naming <keyword>.
#   _udfkit_check_with_tool(<fn> <target> <keyword> <tool> <ident> SPECS <spec>... [SLOTS <spec>...]
#                           [KERNELS <entry>...])
function(_udfkit_check_with_tool fn target keyword tool ident)
  cmake_parse_arguments(PARSE_ARGV 5 arg "" "" "SPECS;SLOTS;KERNELS")
  set(_args)
  foreach(_spec IN LISTS arg_SPECS)
    list(APPEND _args --function "${_spec}")
  endforeach()
  foreach(_spec IN LISTS arg_SLOTS)
    list(APPEND _args --slot "${_spec}")
  endforeach()
  foreach(_entry IN LISTS arg_KERNELS)
    list(APPEND _args --kernel "${_entry}")
  endforeach()
  execute_process(COMMAND "${tool}" kernels ${_args} --name "${ident}" --check
                  RESULT_VARIABLE _rc ERROR_VARIABLE _error ERROR_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    string(REGEX REPLACE "^udfkit: error: " "" _error "${_error}")
    message(FATAL_ERROR "${fn}: ${keyword} of target '${target}': ${_error}")
  endif()
endfunction()

# The depfile options of a compile writing <out>: the depfile names <out> as given (an
# absolute path), which CMake's CMP0116 NEW handling rewrites for Ninja.
function(_udfkit_depfile_args out var)
  set(${var} --depfile "${out}.d" PARENT_SCOPE)
endfunction()

# The exported C name of a function spec: the c_name before '=', else the source name
# where it is a C identifier (a spec whose source name is not needs a c_name).
function(_udfkit_spec_c_name spec out_var)
  set(_name "")
  if(spec MATCHES "^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=")
    set(_name "${CMAKE_MATCH_1}")
  elseif(spec MATCHES "^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*[@:]")
    set(_name "${CMAKE_MATCH_1}")
  endif()
  set(${out_var} "${_name}" PARENT_SCOPE)
endfunction()

# Claims C identifiers that a target's generated code defines, for the whole project: two
# targets defining one (a target name that becomes another's identifier once made a C
# identifier, or a launcher name that another library's prefix and entry spell too) would
# fail only at link time, or not at all. Each id is "identifier|what makes it".
function(_udfkit_claim_identifiers fn target)
  get_property(_claimed GLOBAL PROPERTY UDFKIT_C_IDENTIFIERS)
  foreach(_pair IN LISTS ARGN)
    string(REPLACE "|" ";" _pair "${_pair}")
    list(GET _pair 0 _id)
    list(GET _pair 1 _what)
    foreach(_other IN LISTS _claimed)
      if(_other MATCHES "^${_id}\\|(.*)$")
        message(FATAL_ERROR "${fn}: ${_what} of target '${target}' defines the C identifier '${_id}', which "
                            "${CMAKE_MATCH_1} defines too; rename one of the two")
      endif()
    endforeach()
    list(APPEND _claimed "${_id}|${_what} of target '${target}'")
  endforeach()
  set_property(GLOBAL PROPERTY UDFKIT_C_IDENTIFIERS "${_claimed}")
endfunction()

# compile_commands.json: where the project asks CMake for one
# (CMAKE_EXPORT_COMPILE_COMMANDS), each udfkit compile is added to it as a build step:
# CMake writes the file at generate time with the C/C++ compiles only. Each compile records
# an entry here; at the end of the top-level directory the entries go to a fragment
# (file(GENERATE): the tool's path is a generator expression), and a build step
# (udfkit_compile_commands, part of ALL) merges them into compile_commands.json where they
# are missing, then touches its stamp, so a second build does nothing.
function(_udfkit_json_string text out_var)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  set(${out_var} "\"${text}\"" PARENT_SCOPE)
endfunction()

function(_udfkit_record_compile sources output)
  if(NOT CMAKE_EXPORT_COMPILE_COMMANDS)
    return()
  endif()
  set(_args)
  foreach(_arg IN LISTS ARGN)
    _udfkit_json_string("${_arg}" _json)
    list(APPEND _args "${_json}")
  endforeach()
  list(JOIN _args ", " _args)
  _udfkit_json_string("${CMAKE_CURRENT_BINARY_DIR}" _directory)
  _udfkit_json_string("${output}" _output)
  foreach(_src IN LISTS sources)
    _udfkit_json_string("${_src}" _file)
    set_property(GLOBAL APPEND PROPERTY UDFKIT_COMPILE_COMMANDS
                 "{\"directory\": ${_directory}, \"file\": ${_file}, \"output\": ${_output}, \"arguments\": [${_args}]}")
  endforeach()
  get_property(_deferred GLOBAL PROPERTY UDFKIT_COMPILE_COMMANDS_DEFERRED)
  if(NOT _deferred)
    set_property(GLOBAL PROPERTY UDFKIT_COMPILE_COMMANDS_DEFERRED ON)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _udfkit_write_compile_commands)
  endif()
endfunction()

function(_udfkit_write_compile_commands)
  set(_merge "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/_udfkit_merge_compile_commands.cmake")
  get_property(_entries GLOBAL PROPERTY UDFKIT_COMPILE_COMMANDS)
  list(JOIN _entries ",\n  " _entries)
  set(_dir "${CMAKE_BINARY_DIR}/udfkit-compile-commands")
  file(GENERATE OUTPUT "${_dir}/udfkit.json" CONTENT "[\n  ${_entries}\n]\n")
  add_custom_command(
    OUTPUT "${_dir}/merged.stamp"
    COMMAND "${CMAKE_COMMAND}" "-DFRAGMENT=${_dir}/udfkit.json" "-DDATABASE=${CMAKE_BINARY_DIR}/compile_commands.json"
            -P "${_merge}"
    COMMAND "${CMAKE_COMMAND}" -E touch "${_dir}/merged.stamp"
    # CMake writes compile_commands.json anew at each generate, without these entries.
    DEPENDS "${_dir}/udfkit.json" "${CMAKE_BINARY_DIR}/compile_commands.json" "${_merge}"
    COMMENT "udfkit: adding the UDF compiles to compile_commands.json"
    VERBATIM)
  add_custom_target(udfkit_compile_commands ALL DEPENDS "${_dir}/merged.stamp")
endfunction()

# The architecture a SLOTS library's LTO-IR is built for by default, as cuDF ships its
# fragments: the lowest of the list, virtual ("75-virtual"); the list itself where it names
# no plain number to take the lowest of (all, all-major, native, only arch-specific ones).
function(_udfkit_lowest_architecture archs out_var)
  string(REPLACE "," ";" _archs "${archs}")
  set(_lowest "")
  foreach(_arch IN LISTS _archs)
    if(_arch MATCHES "^([0-9]+)(-real|-virtual)?$")
      if(_lowest STREQUAL "" OR CMAKE_MATCH_1 LESS _lowest)
        set(_lowest "${CMAKE_MATCH_1}")
      endif()
    elseif(NOT _arch MATCHES "^[0-9]+[af]")
      set(${out_var} "${archs}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  if(_lowest STREQUAL "")
    set(${out_var} "${archs}" PARENT_SCOPE)
  else()
    set(${out_var} "${_lowest}-virtual" PARENT_SCOPE)
  endif()
endfunction()
