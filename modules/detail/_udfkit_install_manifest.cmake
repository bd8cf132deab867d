# Run at install time (udfkit_install_udf): the installed manifest's "source" entries, which
# udfkit writes relative to the manifest's build directory, become the absolute paths of
# the sources they name, so that they still name those files after the install, wherever
# the prefix goes. Variables: _UDFKIT_BUILT (the manifest in the build tree),
# _UDFKIT_INSTALLED (the installed copy).
get_filename_component(_built_dir "${_UDFKIT_BUILT}" DIRECTORY)
file(READ "${_UDFKIT_INSTALLED}" _json)
foreach(_list IN ITEMS functions artifacts link)
  string(JSON _count ERROR_VARIABLE _none LENGTH "${_json}" ${_list})
  if(_none OR _count EQUAL 0)
    continue()
  endif()
  math(EXPR _last "${_count} - 1")
  foreach(_i RANGE ${_last})
    string(JSON _type ERROR_VARIABLE _none TYPE "${_json}" ${_list} ${_i})
    if(NOT _type STREQUAL "OBJECT")
      continue()
    endif()
    string(JSON _source ERROR_VARIABLE _none GET "${_json}" ${_list} ${_i} source)
    if(_none OR IS_ABSOLUTE "${_source}")
      continue()
    endif()
    get_filename_component(_source "${_source}" ABSOLUTE BASE_DIR "${_built_dir}")
    string(JSON _json SET "${_json}" ${_list} ${_i} source "\"${_source}\"")
  endforeach()
endforeach()
file(WRITE "${_UDFKIT_INSTALLED}" "${_json}\n")
