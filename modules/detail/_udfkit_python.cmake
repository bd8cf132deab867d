# The Python interpreter for a target's Python UDFs, checked at configure time for a usable
# Python frontend (numba-cuda, numba-cuda-mlir, or auto: numba-cuda where it is installed,
# else numba-cuda-mlir), so that a missing one is reported before any build.
include_guard(GLOBAL)

set(UDFKIT_PYTHON "" CACHE FILEPATH
    "Python interpreter with numba-cuda or numba-cuda-mlir for Python UDFs (default: $ENV{UDFKIT_PYTHON}, else udfkit's own)")

function(_udfkit_python_check fn target sources frontend out_var)
  # Exits with the reason where the frontend (argv[1]) cannot be used; prints "<name> <version>".
  set(_check [=[
import importlib.metadata as m, sys
minimum = {"numba-cuda": (0, 30, 1), "numba-cuda-mlir": (0, 6, 0)}
module = {"numba-cuda": "numba.cuda", "numba-cuda-mlir": "numba_cuda_mlir.cuda"}
def version(name):
    try:
        return m.version(name)
    except Exception:
        return None
name = sys.argv[1]
if name == "auto":
    name = next((n for n in minimum if version(n)), None)
    if name is None:
        sys.exit("neither numba-cuda nor numba-cuda-mlir is installed")
v = version(name)
if v is None:
    sys.exit(name + " is not installed")
if tuple(int(x) for x in v.split(".")[:3] if x.isdigit()) < minimum[name]:
    sys.exit(name + " " + v + " is older than " + ".".join(str(x) for x in minimum[name]))
__import__(module[name])
print(name + " " + v)
]=])
  # The tool's order (base/locate.h): UDFKIT_PYTHON, then udfkit's own environment, then python3.
  set(_python "${UDFKIT_PYTHON}")
  if(NOT _python)
    set(_python "$ENV{UDFKIT_PYTHON}")
  endif()
  if(NOT _python)
    set(_python "${UDFKIT_PYTHON_EXECUTABLE}")
  endif()
  if(NOT _python)
    find_program(_udfkit_python3 python3)
    set(_python "${_udfkit_python3}")
  endif()
  list(JOIN sources ", " _shown)
  string(MD5 _key "${_python}|${frontend}")
  if(NOT DEFINED _UDFKIT_FRONTEND_OK_${_key})
    execute_process(
      COMMAND "${_python}" -c "${_check}" "${frontend}"
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _version ERROR_VARIABLE _error
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
    if(NOT _rc EQUAL 0)
      string(REGEX REPLACE ".*\n" "" _error "${_error}")
      set(_wanted "numba-cuda")
      if(frontend STREQUAL "numba-cuda-mlir")
        set(_wanted "numba-cuda-mlir (PYTHON_FRONTEND numba-cuda-mlir)")
      elseif(frontend STREQUAL "auto")
        set(_wanted "numba-cuda or numba-cuda-mlir")
      endif()
      message(FATAL_ERROR "${fn}: SOURCES of target '${target}' has Python UDFs (${_shown}), but '${_python}' has no "
                          "usable ${_wanted} (${_error}); install it with: ${_python} -m pip install --no-deps "
                          "${UDFKIT_PIP_PINS} (udfkit's pinned Python frontends and CUDA 13.0 wheels), make "
                          "udfkit's own environment with `udfkit setup-python`, or set UDFKIT_PYTHON to an "
                          "interpreter that has it")
    endif()
    set(_UDFKIT_FRONTEND_OK_${_key} "${_version}" CACHE INTERNAL "Python frontend ${frontend} of ${_python}")
  endif()
  set(${out_var} "${_python}" PARENT_SCOPE)
endfunction()

# Python compiles run in a Ninja job pool of half the cores: the first one waits about a
# second for udfkit's Python frontend to start (src/frontend/python_server.h), and compiles
# waiting for it must not hold every job slot while CUDA compiles could run. The option
# for add_custom_command, empty for other generators.
function(_udfkit_python_job_pool var)
  set(${var} "" PARENT_SCOPE)
  if(NOT CMAKE_GENERATOR MATCHES "Ninja")
    return()
  endif()
  get_property(_pools GLOBAL PROPERTY JOB_POOLS)
  if(NOT _pools MATCHES "(^|;)udfkit_python=")
    cmake_host_system_information(RESULT _cores QUERY NUMBER_OF_LOGICAL_CORES)
    math(EXPR _size "${_cores} / 2")
    if(_size LESS 1)
      set(_size 1)
    endif()
    set_property(GLOBAL APPEND PROPERTY JOB_POOLS "udfkit_python=${_size}")
  endif()
  set(${var} JOB_POOL udfkit_python PARENT_SCOPE)
endfunction()
