# Finds the CUDA compiler libraries the udfkit tool links: NVRTC, nvJitLink,
# nvPTXCompiler (static) and nvFatbin, with their headers.
#
# Two layouts are searched, in this order:
#  - a CUDA toolkit: <root>/targets/x86_64-linux/{lib,include}, <root>/lib64, <root>/lib
#    with <root> from UDFKIT_CUDA_ROOT, CUDAToolkit_ROOT, $ENV{CUDA_PATH}, /usr/local/cuda;
#  - NVIDIA's pip wheels: <site-packages>/nvidia/cu13/{lib,include}, with the
#    site-packages of Python3_EXECUTABLE (the wheels carry nvPTXCompiler and
#    nvFatbin where a toolkit assembled from wheels lacks them).
#
# Result: imported targets udfkit_cuda::nvrtc, ::nvjitlink, ::nvfatbin and
# udfkit::nvptxcompiler, the variable UDFKIT_CUDA_INCLUDE_DIR (the headers NVRTC is given
# for CUDA C sources) and UDFKIT_CUDA_LIBRARY_DIRS (for the run path).
include_guard(GLOBAL)
include(FindPackageHandleStandardArgs)

set(_udfkit_roots)
foreach(_root IN ITEMS "${UDFKIT_CUDA_ROOT}" "${CUDAToolkit_ROOT}" "$ENV{CUDA_PATH}" /usr/local/cuda)
  if(_root)
    list(APPEND _udfkit_roots "${_root}")
  endif()
endforeach()

set(_udfkit_wheel_dirs)
if(Python3_EXECUTABLE AND EXISTS "${Python3_EXECUTABLE}")
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" -c "import site, sys; print(';'.join(site.getsitepackages()))"
    OUTPUT_VARIABLE _udfkit_site OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _udfkit_rc)
  if(_udfkit_rc EQUAL 0)
    foreach(_site IN LISTS _udfkit_site)
      if(IS_DIRECTORY "${_site}/nvidia/cu13")
        list(APPEND _udfkit_wheel_dirs "${_site}/nvidia/cu13")
      endif()
    endforeach()
  endif()
endif()

set(_udfkit_lib_hints)
set(_udfkit_inc_hints)
foreach(_root IN LISTS _udfkit_roots _udfkit_wheel_dirs)
  list(APPEND _udfkit_lib_hints "${_root}/targets/x86_64-linux/lib" "${_root}/lib64" "${_root}/lib")
  list(APPEND _udfkit_inc_hints "${_root}/targets/x86_64-linux/include" "${_root}/include")
endforeach()

# Wheels ship versioned sonames only (libnvfatbin.so.13), so both names are tried.
find_library(UDFKIT_NVRTC_LIBRARY NAMES nvrtc libnvrtc.so.13 HINTS ${_udfkit_lib_hints} NO_DEFAULT_PATH)
find_library(UDFKIT_NVJITLINK_LIBRARY NAMES nvJitLink libnvJitLink.so.13 HINTS ${_udfkit_lib_hints} NO_DEFAULT_PATH)
find_library(UDFKIT_NVPTXCOMPILER_LIBRARY NAMES nvptxcompiler_static HINTS ${_udfkit_lib_hints} NO_DEFAULT_PATH)
find_library(UDFKIT_NVFATBIN_LIBRARY NAMES nvfatbin libnvfatbin.so.13 HINTS ${_udfkit_lib_hints} NO_DEFAULT_PATH)
find_path(UDFKIT_NVRTC_INCLUDE_DIR nvrtc.h HINTS ${_udfkit_inc_hints} NO_DEFAULT_PATH)
find_path(UDFKIT_NVJITLINK_INCLUDE_DIR nvJitLink.h HINTS ${_udfkit_inc_hints} NO_DEFAULT_PATH)
find_path(UDFKIT_NVPTXCOMPILER_INCLUDE_DIR nvPTXCompiler.h HINTS ${_udfkit_inc_hints} NO_DEFAULT_PATH)
find_path(UDFKIT_NVFATBIN_INCLUDE_DIR nvFatbin.h HINTS ${_udfkit_inc_hints} NO_DEFAULT_PATH)
find_path(UDFKIT_CUDA_INCLUDE_DIR cuda_fp16.h HINTS ${_udfkit_inc_hints} NO_DEFAULT_PATH)

find_package_handle_standard_args(UdfkitCudaParts
  REQUIRED_VARS
    UDFKIT_NVRTC_LIBRARY UDFKIT_NVJITLINK_LIBRARY UDFKIT_NVPTXCOMPILER_LIBRARY UDFKIT_NVFATBIN_LIBRARY
    UDFKIT_NVRTC_INCLUDE_DIR UDFKIT_NVJITLINK_INCLUDE_DIR UDFKIT_NVPTXCOMPILER_INCLUDE_DIR
    UDFKIT_NVFATBIN_INCLUDE_DIR UDFKIT_CUDA_INCLUDE_DIR
  REASON_FAILURE_MESSAGE
    "install the CUDA 13.0 wheels with: python3 -m pip install -r requirements.txt, and pass -DPython3_EXECUTABLE=<that python>, or set UDFKIT_CUDA_ROOT to a full CUDA 13.0 toolkit")

set(UDFKIT_CUDA_LIBRARY_DIRS)
foreach(_part IN ITEMS NVRTC NVJITLINK NVPTXCOMPILER NVFATBIN)
  string(TOLOWER "${_part}" _name)
  get_filename_component(_dir "${UDFKIT_${_part}_LIBRARY}" DIRECTORY)
  list(APPEND UDFKIT_CUDA_LIBRARY_DIRS "${_dir}")
  if(NOT TARGET udfkit_cuda::${_name})
    if(_part STREQUAL "NVPTXCOMPILER")
      # Named as udfkit's package names it, so that the runtime's exported link interface
      # refers to a target the package defines.
      if(NOT TARGET udfkit::nvptxcompiler)
        add_library(udfkit::nvptxcompiler STATIC IMPORTED GLOBAL)
        set_target_properties(udfkit::nvptxcompiler PROPERTIES
          IMPORTED_LOCATION "${UDFKIT_NVPTXCOMPILER_LIBRARY}"
          INTERFACE_INCLUDE_DIRECTORIES "${UDFKIT_NVPTXCOMPILER_INCLUDE_DIR}"
          INTERFACE_LINK_LIBRARIES "Threads::Threads;m")
      endif()
      continue()
    else()
      add_library(udfkit_cuda::${_name} SHARED IMPORTED)
    endif()
    set_target_properties(udfkit_cuda::${_name} PROPERTIES
      IMPORTED_LOCATION "${UDFKIT_${_part}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${UDFKIT_${_part}_INCLUDE_DIR}")
  endif()
endforeach()
list(REMOVE_DUPLICATES UDFKIT_CUDA_LIBRARY_DIRS)
