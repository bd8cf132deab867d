# The Python interpreter for a target's Python UDFs, checked for a usable numba-cuda at
# configure time so that a missing one is reported before any build.
include_guard(GLOBAL)

set(UDFKIT_PYTHON "" CACHE FILEPATH "Python interpreter with numba-cuda for Python UDFs (default: udfkit's own)")

function(_udfkit_python_check fn target sources out_var)
  set(_python "${UDFKIT_PYTHON}")
  if(NOT _python)
    set(_python "${UDFKIT_PYTHON_EXECUTABLE}")
  endif()
  if(NOT _python)
    find_program(_udfkit_python3 python3)
    set(_python "${_udfkit_python3}")
  endif()
  list(JOIN sources ", " _shown)
  string(MD5 _key "${_python}")
  if(NOT DEFINED _UDFKIT_NUMBA_OK_${_key})
    execute_process(
      COMMAND "${_python}" -c
              "import importlib.metadata as m, sys\nv = m.version('numba-cuda')\nt = tuple(int(x) for x in v.split('.')[:3] if x.isdigit())\nif t < (0, 30, 1): sys.exit('numba-cuda ' + v + ' is older than 0.30.1')\nimport numba.cuda\nprint(v)"
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _version ERROR_VARIABLE _error
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
    if(NOT _rc EQUAL 0)
      string(REGEX REPLACE ".*\n" "" _error "${_error}")
      message(FATAL_ERROR "${fn}: SOURCES of target '${target}' has Python UDFs (${_shown}), but '${_python}' has no "
                          "usable numba-cuda (${_error}); install it with: ${_python} -m pip install --no-deps "
                          "${UDFKIT_PIP_PINS} (udfkit's pinned numba-cuda and CUDA 13.0 wheels), or set UDFKIT_PYTHON "
                          "to an interpreter that has it")
    endif()
    set(_UDFKIT_NUMBA_OK_${_key} "${_version}" CACHE INTERNAL "numba-cuda version of ${_python}")
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
