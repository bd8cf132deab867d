# KERNELS entries: "map(f)", or, unquoted, the two arguments "map" "(f)" that CMake makes
# of map(f); reassembled here, up to the parenthesis that closes the entry (a type with
# parameters may stand second: "reduce_by_key(add, decimal128(38,2))", timestamp[us]).
include_guard(GLOBAL)

# The second argument of an entry: an identifier, a type with its unit or precision and scale.
set(_UDFKIT_ENTRY_SECOND "[A-Za-z_][A-Za-z0-9_]*(\\[[A-Za-z]+\\]|\\([0-9]+,[0-9]+\\))?")

function(_udfkit_kernel_entries fn target out_var)
  set(_entries)
  set(_pending "")
  foreach(_word IN LISTS ARGN)
    string(STRIP "${_word}" _word)
    if(_pending)
      string(APPEND _pending "${_word}")
    else()
      set(_pending "${_word}")
    endif()
    string(REPLACE " " "" _pending "${_pending}")
    string(REGEX REPLACE "[^(]" "" _opens "${_pending}")
    string(REGEX REPLACE "[^)]" "" _closes "${_pending}")
    string(LENGTH "${_opens}" _opens)
    string(LENGTH "${_closes}" _closes)
    if(_pending MATCHES "\\)$" AND _opens EQUAL _closes)
      if(NOT _pending MATCHES "^([A-Za-z_][A-Za-z0-9_]*)\\(([A-Za-z_][A-Za-z0-9_]*)(,${_UDFKIT_ENTRY_SECOND})?\\)$")
        message(FATAL_ERROR "${fn}: KERNELS entry '${_pending}' of target '${target}' is not of the form "
                            "template(function) or template(function, second), e.g. map(scale) or "
                            "reduce_by_key(add, int32)")
      endif()
      list(APPEND _entries "${_pending}")
      set(_pending "")
    endif()
  endforeach()
  if(_pending)
    message(FATAL_ERROR "${fn}: KERNELS entry '${_pending}' of target '${target}' is not of the form "
                        "template(function) or template(function, second), e.g. map(scale) or "
                        "reduce_by_key(add, int32)")
  endif()
  set(${out_var} "${_entries}" PARENT_SCOPE)
endfunction()

# The manifest of an add_ptx_udf target, built here or imported from an installed package:
# it sits beside the directory of the target's header.
function(_udfkit_udf_manifest fn target udf out_var)
  if(NOT TARGET ${udf})
    message(FATAL_ERROR "${fn}: UDFS entry '${udf}' of target '${target}' is not a target")
  endif()
  get_target_property(_name ${udf} UDFKIT_MANIFEST_NAME)
  if(NOT _name)
    message(FATAL_ERROR "${fn}: UDFS entry '${udf}' of target '${target}' was not made by add_ptx_udf")
  endif()
  get_target_property(_manifest ${udf} UDFKIT_MANIFEST)
  if(NOT _manifest)
    get_target_property(_includes ${udf} INTERFACE_INCLUDE_DIRECTORIES)
    list(GET _includes 0 _include)
    get_filename_component(_manifest "${_include}/../${_name}" ABSOLUTE)
  endif()
  set(${out_var} "${_manifest}" PARENT_SCOPE)
endfunction()

# The launcher's name after "<target>_" for a normalized KERNELS entry (no blanks):
# <template>_<f>; reduce_by_key(op,K): reduce_by_key_<op>_by_<K>; transform_reduce(f,op):
# transform_reduce_<f>_<op>; filter(p,indices32) and filter(p,values): filter_<p>_<option>
# (as `udfkit kernels` names them). K is named by its kind: reduce_by_key(op,timestamp[us]) is
# reduce_by_key_<op>_by_timestamp, reduce_by_key(op,decimal128(38,2)) _by_decimal128.
function(_udfkit_kernel_launcher entry out_var)
  string(REGEX MATCH "^([A-Za-z_0-9]+)\\(([A-Za-z_0-9]+)(,([A-Za-z_0-9]+)(\\[[A-Za-z]+\\]|\\([0-9]+,[0-9]+\\))?)?\\)$"
         _parts "${entry}")
  set(_template "${CMAKE_MATCH_1}")
  set(_option "${CMAKE_MATCH_4}")
  set(_launcher "${CMAKE_MATCH_1}_${CMAKE_MATCH_2}")
  if(_template STREQUAL "reduce_by_key" AND _option)
    string(APPEND _launcher "_by_${_option}")
  elseif(_template STREQUAL "transform_reduce" AND _option)
    string(APPEND _launcher "_${_option}")
  elseif(_template STREQUAL "filter" AND _option MATCHES "^(indices32|values)$")
    string(APPEND _launcher "_${_option}")
  endif()
  set(${out_var} "${_launcher}" PARENT_SCOPE)
endfunction()
