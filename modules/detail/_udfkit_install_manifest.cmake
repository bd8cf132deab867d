# Run at install time (udfkit_install_udf): every "source" of the installed manifest (of
# functions, artifacts and link records) and every "path" of its "sources" becomes the
# file's name alone. udfkit writes them relative to the build directory, which an installed
# package must not carry, nor the source tree's paths; the name still tells a message's
# reader which file it was. Nothing else changes. Variable: _UDFKIT_INSTALLED (the
# installed copy).
file(READ "${_UDFKIT_INSTALLED}" _json)
foreach(_list_key IN ITEMS functions:source artifacts:source link:source sources:path)
  string(REPLACE ":" ";" _list_key "${_list_key}")
  list(GET _list_key 0 _list)
  list(GET _list_key 1 _key)
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
    string(JSON _path ERROR_VARIABLE _none GET "${_json}" ${_list} ${_i} ${_key})
    if(_none)
      continue()
    endif()
    get_filename_component(_name "${_path}" NAME)
    string(REPLACE "\\" "\\\\" _name "${_name}")
    string(REPLACE "\"" "\\\"" _name "${_name}")
    string(JSON _json SET "${_json}" ${_list} ${_i} ${_key} "\"${_name}\"")
  endforeach()
endforeach()
file(WRITE "${_UDFKIT_INSTALLED}" "${_json}\n")
