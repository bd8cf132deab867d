#[=======================================================================[.rst:
add_jit_library
---------------

Links kernels with the UDFs of ``add_ptx_udf`` targets for every architecture asked, packs
them into a fatbin and builds a C library with the fatbin inside and a header beside it.

.. code-block:: cmake

  add_jit_library(<target> [STATIC|SHARED|OBJECT]
    [SOURCES <file.cu>...]
    [INCLUDE_DIRECTORIES <dir>...] [COMPILE_DEFINITIONS <def>...] [COMPILE_OPTIONS <opt>...]
    [UDFS <add_ptx_udf target>...]
    [KERNELS <template>(<c_name>[, <option, type or op>])...] [ARROW]
    [ARCHITECTURES <list>]
    [KEEP_LTOIR]
    [COMPRESS none|speed|balance|size]
    [STATIC_RUNTIME|SHARED_RUNTIME]
    [PTX_FALLBACK]
    [SLOTS <spec>... [OPTIONAL_SLOTS <spec>...] [LTOIR_PER_ARCHITECTURE]]
    [HEADER <file name>])

``SOURCES``
  CUDA C/C++ files with kernels that call the UDFs (through the UDF targets' headers,
  which are on their include path); one compile each. Their kernels are launched by name
  (``udfkit_library_get_kernel(<target>_library(), "name", ...)``), and found by their
  symbol: define them ``extern "C"``, or a kernel ``scale`` is found only by its C++ name
  (``_Z5scalePf``; the message of a lookup by the plain name gives it). A file named
  ``<target>_kernels.cu``, the name of the file generated for ``KERNELS``, is refused.

``INCLUDE_DIRECTORIES``, ``COMPILE_DEFINITIONS``, ``COMPILE_OPTIONS``
  For the compiles of ``SOURCES``, as ``add_ptx_udf`` has them: directories (relative to
  the current source directory), ``NAME`` or ``NAME=VALUE`` definitions, and NVRTC options.

``UDFS``
  ``add_ptx_udf`` targets, built here or imported from an installed UDF package. Their
  ``LINK`` files and the link lists of Python UDFs are linked too.

``KERNELS``
  Kernels made from templates: ``map(f)``, ``filter(p)`` (also ``filter(p, indices32)``,
  32-bit row numbers, and ``filter(p, values)``, the kept rows' values; docs/filter.md),
  ``reduce(op)``; over Arrow
  columns with validity bitmaps ``nullable_map(f)`` (``nullable_map(f, nullify)``: rows the
  UDF fails become nulls, launcher ``<target>_nullable_map_<f>_nullify``), ``nullable_filter(p)``, ``nullable_reduce(op)``; grouped and
  ordered (docs/grouped.md) ``inclusive_scan(op)``, ``exclusive_scan(op)``,
  ``reduce_by_key(op, K)`` (``K`` the keys' type: an integer, a date, time or decimal such as
  ``date32``, ``timestamp[us]``, ``decimal128(38,2)``), ``transform_reduce(f, op)``,
  ``segmented_reduce(op)``, ``sort(less)``; quoted or not.
  Each gets a launcher in the header (see the README and docs/nullable.md); signatures are
  checked at configure time where the UDF's signature is declared, at build time where it
  is inferred.

``ARROW``
  Beside the launcher of each ``map``, ``nullable_map`` and ``filter`` entry of ``KERNELS``,
  one with ``_arrow`` appended that takes and returns Arrow device arrays (Arrow's C Device
  Data Interface, docs/arrow.md). The library then also compiles, for each ``map(f)`` and
  ``filter(p)`` without a ``nullable_map(f)`` or ``nullable_filter(p)`` entry, those kernels
  (their ``_arrow`` launchers run them where inputs have nulls), and three small kernels for
  Arrow's bit-packed booleans: a larger fatbin and a longer build, which a library without
  ``ARROW`` does not pay. With ``SLOTS`` they take the bound instance first, as the other
  launchers do.

``ARCHITECTURES``
  CMake's ``CUDA_ARCHITECTURES`` syntax; default ``CMAKE_CUDA_ARCHITECTURES``, else udfkit's.

``KEEP_LTOIR``
  Also put the LTO-IR into the fatbin, for linking at load time (``udfkit_library_link``).

``COMPRESS``
  How the fatbin's entries are compressed (``udfkit link --compress``): ``speed``
  (default: about a third of the size, loading about 0.1 ms slower per library), ``balance``,
  ``size`` (a sixth, loading about 0.3 ms slower) or ``none``. With ``KEEP_LTOIR`` the
  default is ``none``, and anything else an error: the runtime reads kept LTO-IR
  uncompressed. Compressed fatbins need a driver of CUDA 12.4 or newer.

``STATIC_RUNTIME``, ``SHARED_RUNTIME``
  Which udfkit runtime the library links (publicly): ``udfkit::runtime``, static, copied
  into each program (the default for ``STATIC`` and ``OBJECT`` libraries), or
  ``udfkit::runtime_shared``, ``libudfkit_runtime.so.1``, one copy for every program on a
  system (the default for ``SHARED`` libraries, so that the library and the program calling
  it share one runtime and one ``udfkit_last_error``). A ``SHARED`` library with
  ``STATIC_RUNTIME`` keeps its copy of the runtime hidden inside: the program's own runtime
  functions do not see that copy's errors.

``PTX_FALLBACK``
  Also link ``udfkit::runtime_ptx``: nvPTXCompiler (about 40 MB) compiles the fatbin's
  PTX where no SASS fits the GPU and the PTX is newer than the driver can JIT. Without it,
  the driver JITs PTX it can, and loading PTX newer than the driver fails with a message
  naming both versions and this option.

``SLOTS``
  Functions the library's ``SOURCES`` and ``KERNELS`` call that are bound after it ships
  (``c_name:signature``, return type required): the engine is built and shipped once, its
  users' UDFs come later (docs/late-binding.md). The library then ships LTO-IR instead of
  SASS (``udfkit pack``), built by default once, for the lowest architecture of
  ``ARCHITECTURES`` (as cuDF ships its fragments; ``LTOIR_PER_ARCHITECTURE`` builds it for
  each, so that a device gets code built for its own architecture where there is some),
  and, for each real architecture of ``ARCHITECTURES``, the kernels that call no slot linked
  to SASS (``udfkit pack --sass``): a bind on a device of such an architecture loads that
  SASS and links each kernel that calls a slot on its first launch, so that binding costs
  milliseconds and the links grow with the kernels an application uses (other devices link
  the whole at bind time). Its header declares ``<target>_bind``, ``<target>_release``,
  ``<target>_instance_library``, ``<target>_udf_error``, ``<target>_slot_count``,
  ``<target>_slot`` and launchers that take the bound instance first (no ``_load``,
  ``_unload`` or ``_library``). ``SOURCES`` see the slots' device prototypes in
  ``<target>_slots.h``. ``KEEP_LTOIR``, ``COMPRESS`` and ``PTX_FALLBACK`` do not apply.

``OPTIONAL_SLOTS``
  Slots, written as ``SLOTS``' entries, that a bind may leave unbound (hooks an engine
  calls only where a user supplies them); ``SLOTS`` may then be empty. The header also
  declares ``<target>_slot_optional`` and ``<target>_slot_bound``. A launcher of a kernel that calls an unbound optional
  slot fails (``UDFKIT_ERROR_INVALID_ARGUMENT`` naming the kernel and the slot) and
  launches nothing; the other kernels work. A bind that links every kernel at once
  (``UDFKIT_BIND_WHOLE=1``, a device without the library's SASS, a sandboxed package) is
  refused where an optional slot is left unbound.

``HEADER``
  The header's file name, default ``<target>.h``. It compiles as plain C11 and C++ without
  CUDA headers and declares ``<target>_load``, ``<target>_unload``, ``<target>_library``,
  ``<target>_udf_error`` and the launchers.

The library type defaults to ``STATIC``; more than one of ``STATIC``, ``SHARED`` and
``OBJECT`` is an error. It links the runtime publicly. A ``SHARED`` library exports
exactly the functions its header declares: it is linked with a version script
(``<target>.udfkit/<target>.map``) naming them, and the runtime inside it is compiled
with hidden visibility, so neither the runtime nor nvPTXCompiler ever interposes with
another library's copy.

Checked at configure time: a function exported by two ``UDFS`` targets (a c_name must be
unique across everything linked together), and C identifiers the library defines
(``<target>_load``, ..., each launcher) that another ``add_jit_library`` of the project
defines too, as two target names do that are the same C identifier (``my-lib``,
``my_lib``), or a prefix and a launcher that spell the same name.
#]=======================================================================]
include_guard(GLOBAL)
# Depfiles as CMake 3.20+ reads them (CMP0116 NEW, whatever the project's minimum version:
# the OLD behavior is deprecated, and an error under -Werror=deprecated in CMake 4). Under
# Ninja, CMake rewrites each depfile after its command (`cmake -E cmake_transform_depfile`).
# This include's policy scope keeps the setting to the functions defined here.
cmake_policy(SET CMP0116 NEW)
include("${CMAKE_CURRENT_LIST_DIR}/detail/_udfkit_common.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/detail/_udfkit_kernels.cmake")

function(add_jit_library target)
  list(APPEND CMAKE_MESSAGE_CONTEXT "udfkit.add_jit_library")
  cmake_parse_arguments(PARSE_ARGV 1 arg
                        "STATIC;SHARED;OBJECT;KEEP_LTOIR;PTX_FALLBACK;STATIC_RUNTIME;SHARED_RUNTIME;LTOIR_PER_ARCHITECTURE;ARROW"
                        "HEADER;COMPRESS"
                        "SOURCES;UDFS;KERNELS;ARCHITECTURES;INCLUDE_DIRECTORIES;COMPILE_DEFINITIONS;COMPILE_OPTIONS;SLOTS;OPTIONAL_SLOTS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_jit_library: unknown arguments for target '${target}': ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if("OPTIONAL_SLOTS" IN_LIST arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "add_jit_library: target '${target}' is given OPTIONAL_SLOTS without an entry")
  endif()
  # Optional slots are slots: every check and output below covers them, and only the tool
  # is told which are optional.
  set(_required_slots ${arg_SLOTS})
  list(APPEND arg_SLOTS ${arg_OPTIONAL_SLOTS})
  set(_types)
  foreach(_kind IN ITEMS STATIC SHARED OBJECT)
    if(arg_${_kind})
      list(APPEND _types ${_kind})
    endif()
  endforeach()
  list(LENGTH _types _ntypes)
  if(_ntypes GREATER 1)
    list(JOIN _types " and " _types)
    message(FATAL_ERROR "add_jit_library: target '${target}' is given ${_types}; a library is one of STATIC, "
                        "SHARED or OBJECT")
  endif()
  set(_type STATIC)
  if(_types)
    set(_type ${_types})
  endif()
  # A shared library and the program using it share one runtime (one udfkit_last_error).
  set(_runtime udfkit::runtime)
  if(_type STREQUAL "SHARED")
    set(_runtime udfkit::runtime_shared)
  endif()
  if(arg_STATIC_RUNTIME AND arg_SHARED_RUNTIME)
    message(FATAL_ERROR "add_jit_library: target '${target}' is given STATIC_RUNTIME and SHARED_RUNTIME; it links "
                        "one runtime")
  elseif(arg_SHARED_RUNTIME)
    set(_runtime udfkit::runtime_shared)
  elseif(arg_STATIC_RUNTIME)
    set(_runtime udfkit::runtime)
  endif()
  set(_compress speed)
  if(arg_KEEP_LTOIR)
    set(_compress none)
  endif()
  if(DEFINED arg_COMPRESS)
    if(NOT arg_COMPRESS MATCHES "^(none|speed|balance|size)$")
      message(FATAL_ERROR "add_jit_library: COMPRESS of target '${target}' is '${arg_COMPRESS}'; it is none, speed, "
                          "balance or size")
    elseif(arg_KEEP_LTOIR AND NOT arg_COMPRESS STREQUAL "none")
      message(FATAL_ERROR "add_jit_library: target '${target}' is given KEEP_LTOIR and COMPRESS ${arg_COMPRESS}; the "
                          "runtime links kept LTO-IR at load time, which it reads uncompressed: COMPRESS none or no "
                          "KEEP_LTOIR")
    endif()
    set(_compress ${arg_COMPRESS})
  endif()
  if(arg_SLOTS)
    foreach(_option IN ITEMS KEEP_LTOIR COMPRESS PTX_FALLBACK)
      if(arg_${_option} OR (_option STREQUAL "COMPRESS" AND DEFINED arg_COMPRESS))
        message(FATAL_ERROR "add_jit_library: target '${target}' is given SLOTS and ${_option}; a library with slots "
                            "ships uncompressed LTO-IR, which the runtime links with the bound functions for the "
                            "device at hand")
      endif()
    endforeach()
  elseif(arg_LTOIR_PER_ARCHITECTURE)
    message(FATAL_ERROR "add_jit_library: target '${target}' is given LTOIR_PER_ARCHITECTURE without SLOTS; only a "
                        "library with slots ships LTO-IR for binding")
  endif()
  set(_header "${target}.h")
  if(arg_HEADER)
    set(_header "${arg_HEADER}")
  endif()
  _udfkit_architectures(add_jit_library "${target}" "${arg_ARCHITECTURES}" _archs)
  _udfkit_tool(_udfkit _udfkit_now)
  _udfkit_kernel_entries(add_jit_library "${target}" _kernels ${arg_KERNELS})
  string(MAKE_C_IDENTIFIER "${target}" _ident)
  if(arg_SLOTS)
    set(_api bind release instance_library udf_error slot_count slot slot_optional slot_bound)
  else()
    set(_api load unload library udf_error)
  endif()
  set(_ids)
  foreach(_fn IN LISTS _api ITEMS fatbin)
    list(APPEND _ids "${_ident}_${_fn}|the library")
  endforeach()
  foreach(_entry IN LISTS _kernels)
    _udfkit_kernel_launcher("${_entry}" _launcher)
    list(APPEND _ids "${_ident}_${_launcher}|KERNELS entry '${_entry}'")
  endforeach()
  _udfkit_claim_identifiers(add_jit_library "${target}" ${_ids})

  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.udfkit")
  set(_include "${_dir}/include")
  set(_manifests)
  set(_udf_includes)
  set(_specs)
  set(_exported) # "c_name|udf target", to find a function two UDFS targets export
  foreach(_udf IN LISTS arg_UDFS)
    _udfkit_udf_manifest(add_jit_library "${target}" "${_udf}" _manifest)
    list(APPEND _manifests "${_manifest}")
    get_target_property(_functions ${_udf} UDFKIT_FUNCTIONS)
    list(APPEND _specs ${_functions})
    foreach(_spec IN LISTS _functions)
      _udfkit_spec_c_name("${_spec}" _c_name)
      foreach(_seen IN LISTS _exported)
        if(_c_name AND _seen MATCHES "^${_c_name}\\|(.*)$")
          message(FATAL_ERROR "add_jit_library: UDFS of target '${target}': function '${_c_name}' is exported by both "
                              "'${CMAKE_MATCH_1}' and '${_udf}'; a c_name must be unique across everything linked "
                              "together")
        endif()
      endforeach()
      list(APPEND _exported "${_c_name}|${_udf}")
    endforeach()
    # Functions the target calls (add_ptx_udf CALLS) are this library's slots, of the same signature.
    get_target_property(_calls ${_udf} UDFKIT_CALLS)
    if(NOT _calls)
      set(_calls)
    endif()
    foreach(_call IN LISTS _calls)
      string(REGEX REPLACE "[ \t]" "" _want "${_call}")
      set(_found FALSE)
      foreach(_slot IN LISTS arg_SLOTS)
        string(REGEX REPLACE "[ \t]" "" _have "${_slot}")
        if(_have STREQUAL _want)
          set(_found TRUE)
        endif()
      endforeach()
      if(NOT _found)
        message(FATAL_ERROR "add_jit_library: UDFS of target '${target}': '${_udf}' calls '${_call}', which is not "
                            "one of its SLOTS (${arg_SLOTS}); a UDFS function may call only a slot of the library, "
                            "of the same signature")
      endif()
    endforeach()
    # Relative to this build directory (where the compiles run), so that the compile of the
    # generated kernels is the same in every build directory and hits udfkit's cache.
    get_filename_component(_udf_include "${_manifest}" DIRECTORY)
    file(RELATIVE_PATH _udf_include "${CMAKE_CURRENT_BINARY_DIR}" "${_udf_include}/include")
    list(APPEND _udf_includes -I "${_udf_include}")
  endforeach()

  # KERNELS against the declared signatures, now, where the tool already exists.
  set(_kernel_args)
  foreach(_entry IN LISTS _kernels)
    list(APPEND _kernel_args --kernel "${_entry}")
  endforeach()
  if(arg_ARROW)
    list(APPEND _kernel_args --arrow)
  endif()
  set(_slot_args)
  set(_slot_functions)
  set(_slots_h)
  foreach(_slot IN LISTS _required_slots)
    list(APPEND _slot_args --slot "${_slot}")
  endforeach()
  foreach(_slot IN LISTS arg_OPTIONAL_SLOTS)
    list(APPEND _slot_args --optional-slot "${_slot}")
  endforeach()
  foreach(_slot IN LISTS arg_SLOTS)
    list(APPEND _slot_functions --function "${_slot}")
  endforeach()
  foreach(_slot IN LISTS arg_SLOTS)
    set(_keyword SLOTS)
    if(_slot IN_LIST arg_OPTIONAL_SLOTS)
      set(_keyword OPTIONAL_SLOTS)
    endif()
    if(NOT _slot MATCHES "^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*:[^=@]*$")
      message(FATAL_ERROR "add_jit_library: ${_keyword} entry '${_slot}' of target '${target}' is not of the form "
                          "c_name:signature; a slot is bound after the library ships, so it has no source name (=) "
                          "or file (@) of its own")
    endif()
  endforeach()
  # The slots first, alone, so that a mistake in one is named as SLOTS's; then the entries.
  if(arg_SLOTS AND _udfkit_now)
    _udfkit_check_with_tool(add_jit_library "${target}" SLOTS "${_udfkit_now}" "${_ident}" SPECS ${_specs}
                            SLOTS ${arg_SLOTS})
  endif()
  if(_kernels AND _udfkit_now)
    _udfkit_check_with_tool(add_jit_library "${target}" KERNELS "${_udfkit_now}" "${_ident}" SPECS ${_specs}
                            SLOTS ${arg_SLOTS} KERNELS ${_kernels})
  endif()
  # A library with slots: their device prototypes for SOURCES, and LTO-IR for the lowest
  # architecture (or each) instead of SASS for every one.
  set(_compile_archs "${_archs}")
  if(arg_SLOTS)
    set(_slots_h "${_include}/${target}_slots.h")
    add_custom_command(
      OUTPUT "${_slots_h}"
      COMMAND ${_udfkit} header ${_slot_functions} -o "${_slots_h}" --name "${_ident}_slots"
      DEPENDS udfkit::udfkit
      COMMENT "udfkit: the slots of ${target}"
      VERBATIM COMMAND_EXPAND_LISTS)
    file(RELATIVE_PATH _slots_include "${CMAKE_CURRENT_BINARY_DIR}" "${_include}")
    list(APPEND _udf_includes -I "${_slots_include}")
    if(NOT arg_LTOIR_PER_ARCHITECTURE)
      _udfkit_lowest_architecture("${_archs}" _compile_archs)
    endif()
  endif()

  # Kernels and launchers generated from templates, the header with them.
  set(_kernels_cu "${_dir}/${target}_kernels.cu")
  set(_launchers_c "${_dir}/${target}_launchers.c")
  # The link units: each entry's kernels and the UDFs they call (docs/build-speed.md).
  set(_units "${_dir}/${target}_units.json")
  add_custom_command(
    OUTPUT "${_kernels_cu}" "${_launchers_c}" "${_include}/${_header}" "${_units}"
    COMMAND ${_udfkit} kernels ${_manifests} ${_slot_args} ${_kernel_args} --name "${_ident}" --fatbin-symbol "${_ident}_fatbin"
            --cuda "${_kernels_cu}" --c "${_launchers_c}" --header "${_include}/${_header}" --units "${_units}"
    DEPENDS ${_manifests} udfkit::udfkit
    COMMENT "udfkit: kernels and launchers of ${target}"
    VERBATIM COMMAND_EXPAND_LISTS)

  # A source of the generated file's name would be compiled to the same outputs.
  foreach(_src IN LISTS arg_SOURCES)
    get_filename_component(_name "${_src}" NAME)
    if(_name STREQUAL "${target}_kernels.cu")
      message(FATAL_ERROR "add_jit_library: SOURCES file '${_src}' of target '${target}' has the name of the file "
                          "add_jit_library generates for its KERNELS (${target}_kernels.cu); rename it")
    endif()
  endforeach()

  # The SOURCES' own flags (the generated kernels need none: their compile stays the same
  # in every build directory, and hits udfkit's cache).
  _udfkit_compile_flags(_source_flags "${arg_INCLUDE_DIRECTORIES}" "${arg_COMPILE_DEFINITIONS}"
                        "${arg_COMPILE_OPTIONS}")

  # One compile per CUDA source, the generated kernels included.
  set(_parts)
  set(_stems)
  foreach(_src IN LISTS arg_SOURCES _kernels_cu)
    get_filename_component(_src "${_src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(_stem "${_src}" NAME_WE)
    _udfkit_unique_name("${_stem}" _stems _name)
    set(_out "${_dir}/kernels-${_name}.json")
    # A generated source is named relative to the build directory: NVRTC records the name.
    set(_given "${_src}")
    cmake_path(IS_PREFIX CMAKE_CURRENT_BINARY_DIR "${_src}" NORMALIZE _generated)
    if(_generated)
      file(RELATIVE_PATH _given "${CMAKE_CURRENT_BINARY_DIR}" "${_src}")
    endif()
    _udfkit_depfile_args("${_out}" _depfile_args)
    set(_flags)
    if(NOT _src STREQUAL _kernels_cu)
      set(_flags ${_source_flags})
    endif()
    add_custom_command(
      OUTPUT "${_out}"
      COMMAND ${_udfkit} compile "${_given}" --arch "${_compile_archs}" ${_udf_includes} ${_flags} -o "${_out}"
              ${_depfile_args}
      DEPFILE "${_out}.d"
      DEPENDS "${_src}" udfkit::udfkit ${_slots_h}
      COMMENT "udfkit: compiling ${target} ${_stem}"
      VERBATIM COMMAND_EXPAND_LISTS)
    _udfkit_record_compile("${_src}" "${_out}" ${_udfkit} compile "${_given}" --arch "${_compile_archs}"
                           ${_udf_includes} ${_flags} -o "${_out}" ${_depfile_args})
    list(APPEND _parts "${_out}")
  endforeach()

  # One link for every architecture, the fatbin embedded in a C source.
  set(_keep)
  if(arg_KEEP_LTOIR)
    set(_keep --keep-ltoir)
  endif()
  set(_fatbin "${_dir}/${target}.fatbin")
  set(_embedded "${_dir}/${target}_fatbin.c")
  if(arg_SLOTS)
    # Packed, not linked: the runtime links it with the bound functions (<target>_bind).
    add_custom_command(
      OUTPUT "${_fatbin}" "${_fatbin}.json" "${_embedded}"
      COMMAND ${_udfkit} pack ${_parts} ${_manifests} --arch "${_compile_archs}" --sass "${_archs}" -o "${_fatbin}"
              --embed "${_embedded}" --symbol "${_ident}_fatbin"
      DEPENDS ${_parts} ${_manifests} udfkit::udfkit
      COMMENT "udfkit: packing the LTO-IR of ${target} for ${_compile_archs} and SASS of its kernels that call no slot, embedding it"
      VERBATIM COMMAND_EXPAND_LISTS)
  else()
    add_custom_command(
      OUTPUT "${_fatbin}" "${_fatbin}.json" "${_embedded}"
      COMMAND ${_udfkit} link ${_parts} ${_manifests} --arch "${_archs}" ${_keep} --compress ${_compress} -o "${_fatbin}"
              --units "${_units}" --embed "${_embedded}" --symbol "${_ident}_fatbin"
      DEPENDS ${_parts} ${_manifests} "${_units}" udfkit::udfkit
      COMMENT "udfkit: linking ${target} for ${_archs}, embedding it"
      VERBATIM COMMAND_EXPAND_LISTS)
  endif()

  # The launchers and the embedded fatbin compile as one translation unit: one compiler run
  # per library. Both are listed (not compiled on their own) so that they are generated
  # first; the compiler's depfile recompiles the unit when either changes.
  set(_library_c "${_dir}/${target}_library.c")
  file(CONFIGURE OUTPUT "${_library_c}" CONTENT
"/* Generated by add_jit_library: the C part of ${target}, one translation unit. */
#include \"${target}_launchers.c\"
#include \"${target}_fatbin.c\"
" @ONLY)
  add_library(${target} ${_type} "${_library_c}" "${_embedded}" "${_launchers_c}" "${_include}/${_header}" ${_slots_h})
  set_source_files_properties("${_library_c}" PROPERTIES LANGUAGE C)
  set_source_files_properties("${_embedded}" "${_launchers_c}" PROPERTIES HEADER_FILE_ONLY ON)
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${_include}>")
  # The fallback before the runtime it registers with (static links resolve left to right);
  # inside a shared library, where its users need not link it again.
  if(arg_PTX_FALLBACK AND _type STREQUAL "SHARED")
    target_link_libraries(${target} PRIVATE udfkit::runtime_ptx)
  elseif(arg_PTX_FALLBACK)
    target_link_libraries(${target} PUBLIC udfkit::runtime_ptx)
  endif()
  # The UDF targets' headers (and build order) for the library and its users in this build;
  # an installed library (udfkit_install_library) carries its fatbin and needs none of them.
  set(_udf_links)
  foreach(_udf IN LISTS arg_UDFS)
    list(APPEND _udf_links "$<BUILD_INTERFACE:${_udf}>")
  endforeach()
  target_link_libraries(${target} PUBLIC ${_runtime} ${_udf_links})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON UDFKIT_FATBIN "${_fatbin}"
                                             UDFKIT_HEADER "${_include}/${_header}")
  if(arg_SLOTS)
    set_target_properties(${target} PROPERTIES UDFKIT_SLOTS "${arg_SLOTS}")
  endif()
  if(_type STREQUAL "SHARED")
    # Exactly what the header declares; everything else (the runtime, nvPTXCompiler, the
    # fatbin's symbol) stays local.
    set(_exports "${_ident}_fatbin" "${_ident}_fatbin_size")
    foreach(_fn IN LISTS _api)
      list(APPEND _exports "${_ident}_${_fn}")
    endforeach()
    foreach(_entry IN LISTS _kernels)
      _udfkit_kernel_launcher("${_entry}" _launcher)
      list(APPEND _exports "${_ident}_${_launcher}")
    endforeach()
    list(JOIN _exports ";\n    " _exports)
    set(_map "${_dir}/${target}.map")
    file(CONFIGURE OUTPUT "${_map}" CONTENT "/* Generated by add_jit_library: what ${target} exports. */
{
  global:
    ${_exports};
  local: *;
};
" @ONLY)
    target_link_options(${target} PRIVATE "LINKER:--version-script=${_map}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${_map}")
  endif()
endfunction()
