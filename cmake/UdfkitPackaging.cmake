# What an install holds beyond the targets and the CMake package, and the packages made of
# it: pkg-config files for the runtime, the pins `udfkit setup-python` installs, and CPack's
# TGZ (a prefix to unpack anywhere) and DEB (installed under /usr).
include_guard(GLOBAL)

# requirements.txt's pins: `udfkit setup-python` makes <prefix>/libexec/udfkit/python from them.
install(FILES "${PROJECT_SOURCE_DIR}/requirements.txt" DESTINATION "${CMAKE_INSTALL_DATADIR}/udfkit")

# pkg-config: udfkit-runtime (the shared library; with --static also what the static one
# needs), udfkit-runtime-static (the static library, whichever the linker would prefer) and
# udfkit-runtime-ptx (the PTX fallback, udfkit::runtime_ptx: before the runtime on a link line).
file(RELATIVE_PATH UDFKIT_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" UDFKIT_PC_TO_PREFIX "${UDFKIT_PC_TO_PREFIX}")
set(_udfkit_pc_system "-lpthread")
if(CMAKE_DL_LIBS)
  string(APPEND _udfkit_pc_system " -l${CMAKE_DL_LIBS}")
endif()
set(_udfkit_pcs
  "udfkit-runtime|shared|udfkit's C runtime: loads and launches GPU UDF libraries (libudfkit_runtime.so.1, or with --static the static library)|-L\${libdir} -ludfkit_runtime|${_udfkit_pc_system}"
  "udfkit-runtime-static|static|udfkit's C runtime, the static library (libudfkit_runtime.a)|\${libdir}/libudfkit_runtime.a ${_udfkit_pc_system}|"
  "udfkit-runtime-ptx|PTX fallback|udfkit's PTX fallback: nvPTXCompiler for PTX newer than the driver (list it before the runtime)|-Wl,--undefined=udfkit_runtime_ptx_anchor \${libdir}/libudfkit_runtime_ptx.a \${libdir}/libudfkit_nvptxcompiler_static.a -lpthread -lm|")
foreach(_pc IN LISTS _udfkit_pcs)
  string(REPLACE "|" ";" _pc "${_pc}")
  list(GET _pc 0 UDFKIT_PC_NAME)
  list(GET _pc 1 UDFKIT_PC_WHAT)
  list(GET _pc 2 UDFKIT_PC_DESCRIPTION)
  list(GET _pc 3 UDFKIT_PC_LIBS)
  list(GET _pc 4 UDFKIT_PC_LIBS_PRIVATE)
  configure_file("${CMAKE_CURRENT_LIST_DIR}/pkgconfig/udfkit-runtime.pc.in"
                 "${PROJECT_BINARY_DIR}/pkgconfig/${UDFKIT_PC_NAME}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/${UDFKIT_PC_NAME}.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endforeach()

# Packages: `cpack -G TGZ` and `cpack -G DEB` in a build tree (the release preset's for
# distribution). One package holds the tool, the runtime (static, shared, PTX fallback), its
# headers, the CMake package and the pkg-config files.
set(CPACK_PACKAGE_NAME udfkit)
set(CPACK_PACKAGE_VENDOR udfkit)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "udfkit compiles user-defined functions written in CUDA C/C++ or Python for the GPU ahead of time: the udfkit tool, its C runtime (static and shared), headers, CMake package (add_ptx_udf, add_jit_library) and pkg-config files. `udfkit setup-python` makes its Python environment (the pinned Python frontends and CUDA 13.0 wheels).")
if(NOT CPACK_PACKAGE_CONTACT)
  # A placeholder: whoever publishes packages names themselves with -DCPACK_PACKAGE_CONTACT=.
  set(CPACK_PACKAGE_CONTACT "udfkit maintainers <maintainers@udfkit.invalid>")
endif()
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Depends: what the tool and the shared runtime link, found by dpkg-shlibdeps (libc6,
# libjansson4, libxxhash0, libhiredis0.14, libcurl4). The CUDA parts are loaded at run
# time from udfkit's Python environment or a CUDA toolkit: no Debian package holds them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3 (>= 3.10), python3-venv, cmake (>= 3.25), pkg-config, gcc | c-compiler")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cuda-toolkit-13-0")
set(UDFKIT_DEB_LIBEXEC "/usr/${CMAKE_INSTALL_LIBEXECDIR}/udfkit")
set(UDFKIT_DEB_PYTHON_ENV "${UDFKIT_DEB_LIBEXEC}/python")
configure_file("${CMAKE_CURRENT_LIST_DIR}/debian/postrm.in" "${PROJECT_BINARY_DIR}/debian/postrm" @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${PROJECT_BINARY_DIR}/debian/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
if(PROJECT_IS_TOP_LEVEL)
  include(CPack)
endif()
