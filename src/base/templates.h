/* The files of templates/, compiled into the tool (see src/CMakeLists.txt). */
#ifndef UDFKIT_TEMPLATES_H
#define UDFKIT_TEMPLATES_H

extern const char udfkit_tpl_export_prelude[];
extern const char udfkit_tpl_export_optional[];
extern const char udfkit_tpl_udf_header[];
extern const char udfkit_tpl_embed_c[];
extern const char udfkit_tpl_embed_h[];
extern const char udfkit_py_worker[];
/* str in Python UDFs (numba-cuda), which udfkit writes beside each request for the worker. */
extern const char udfkit_py_strings[];
/* udfkit kernels: templates/kernels/ */
extern const char udfkit_tpl_kernel_prelude[];
extern const char udfkit_tpl_kernel_arrow_bits[];
extern const char udfkit_tpl_kernel_arrow_text[];
extern const char udfkit_tpl_launcher_arrow[];
extern const char udfkit_tpl_kernel_map[];
extern const char udfkit_tpl_kernel_filter[];
extern const char udfkit_tpl_kernel_select_helpers[];
extern const char udfkit_tpl_kernel_carried_helpers[];
extern const char udfkit_tpl_kernel_string_helpers[];
extern const char udfkit_tpl_kernel_text_sizes[];
extern const char udfkit_tpl_kernel_map_text[];
extern const char udfkit_tpl_kernel_nullable_map_text[];
extern const char udfkit_tpl_kernel_offsets_scan[];
extern const char udfkit_tpl_launcher_text_sizes[];
extern const char udfkit_tpl_launcher_map_text[];
extern const char udfkit_tpl_launcher_nullable_map_text[];
extern const char udfkit_tpl_launcher_offsets[];
extern const char udfkit_tpl_launcher_sort_text[];
extern const char udfkit_tpl_kernel_sort_text[];
extern const char udfkit_tpl_launcher_filter_text[];
extern const char udfkit_tpl_launcher_filter_select[];
extern const char udfkit_tpl_kernel_filter_text[];
extern const char udfkit_tpl_kernel_filter_values[];
extern const char udfkit_tpl_kernel_nullable_filter[];
extern const char udfkit_tpl_kernel_filter_scan[];
extern const char udfkit_tpl_kernel_reduce[];
/* <udfkit/udf.h>, pre-included in every CUDA C/C++ UDF compile */
extern const char udfkit_tpl_udf_device_h[];
/* <udfkit/string.cuh> and the headers it includes, there to include in every compile */
extern const char udfkit_tpl_string_cuh[];
extern const char udfkit_tpl_string_unicode_cuh[];
extern const char udfkit_tpl_string_pow5_cuh[];
extern const char udfkit_tpl_string_chars_cuh[];
extern const char udfkit_tpl_string_text_cuh[];
extern const char udfkit_tpl_string_case_cuh[];
extern const char udfkit_tpl_string_number_cuh[];
/* <udfkit/decimal.cuh> and <udfkit/datetime.cuh>, given to every CUDA C/C++ UDF compile to include */
extern const char udfkit_tpl_decimal_cuh[];
extern const char udfkit_tpl_datetime_cuh[];
/* the exporter's checks of string parameters and results (templates/export_strings.cuh) */
extern const char udfkit_tpl_export_strings[];
extern const char udfkit_tpl_kernel_nullable_map[];
extern const char udfkit_tpl_kernel_nullable_reduce[];
extern const char udfkit_tpl_launcher_nullable_map[];
extern const char udfkit_tpl_launcher_nullable_reduce[];
extern const char udfkit_tpl_kernel_scan[];
extern const char udfkit_tpl_launcher_scan[];
extern const char udfkit_tpl_kernel_reduce_by_key[];
extern const char udfkit_tpl_launcher_reduce_by_key[];
extern const char udfkit_tpl_kernel_transform_reduce[];
extern const char udfkit_tpl_kernel_reduce_helpers[];
extern const char udfkit_tpl_kernel_segmented_reduce[];
extern const char udfkit_tpl_launcher_segmented_reduce[];
extern const char udfkit_tpl_kernel_sort[];
extern const char udfkit_tpl_launcher_sort[];
extern const char udfkit_tpl_kernel_launchers[];
extern const char udfkit_tpl_launcher_common[];
extern const char udfkit_tpl_launcher_common_slots[];
extern const char udfkit_tpl_kernel_launchers_slots[];
extern const char udfkit_tpl_kernel_library_slots_h[];
extern const char udfkit_tpl_launcher_blocks[];
extern const char udfkit_tpl_launcher_chunks[];
extern const char udfkit_tpl_launcher_tiles[];
extern const char udfkit_tpl_launcher_checks[];
extern const char udfkit_tpl_launcher_map[];
extern const char udfkit_tpl_launcher_filter[];
extern const char udfkit_tpl_launcher_nullable_filter[];
extern const char udfkit_tpl_launcher_reduce[];
extern const char udfkit_tpl_launcher_reduce_small[];
extern const char udfkit_tpl_kernel_library_h[];

#endif
