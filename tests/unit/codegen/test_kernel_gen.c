/* udfkit kernels: entries parsed and checked against signatures, and what is rendered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/fs.h"
#include "base/spec.h"
#include "codegen/kernel_entry.h"
#include "codegen/kernel_gen.h"

static void parses_entries(void **state)
{
    (void)state;
    udfkit_kernel_entry e;
    assert_int_equal(udfkit_kernel_entry_parse("map(f)", &e), UDFKIT_RC_OK);
    assert_int_equal(e.tpl, UDFKIT_KERNEL_MAP);
    assert_string_equal(e.c_name, "f");
    udfkit_kernel_entry_free(&e);
    assert_int_equal(udfkit_kernel_entry_parse("  filter ( is_even ) ", &e), UDFKIT_RC_OK);
    assert_int_equal(e.tpl, UDFKIT_KERNEL_FILTER);
    assert_string_equal(e.c_name, "is_even");
    udfkit_kernel_entry_free(&e);
    assert_int_equal(udfkit_kernel_entry_parse("reduce(_op2)", &e), UDFKIT_RC_OK);
    assert_int_equal(e.tpl, UDFKIT_KERNEL_REDUCE);
    udfkit_kernel_entry_free(&e);

    assert_int_equal(udfkit_kernel_entry_parse("scan(f)", &e), UDFKIT_RC_INPUT);
    assert_string_equal(udfkit_diag_message(),
                        "udfkit: error: unknown kernel template 'scan' in 'scan(f)' (templates: map, filter, reduce, nullable_map, nullable_filter, nullable_reduce, inclusive_scan, exclusive_scan, reduce_by_key, transform_reduce, segmented_reduce, sort)");
    udfkit_kernel_entry_free(&e);
    const char *malformed[] = {"map", "map(", "map()", "map(f", "map(f g)", "map(f))", "(f)", "map(1f)", "map(f)x", ""};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        assert_int_equal(udfkit_kernel_entry_parse(malformed[i], &e), UDFKIT_RC_INPUT);
        assert_non_null(strstr(udfkit_diag_message(), "is not of the form template(c_name), e.g. map(f)"));
        udfkit_kernel_entry_free(&e);
    }
}

/* Binds `entry` to the function of `spec`; returns the message, or "" where it fits. */
static const char *bind_with(const char *entry, const char *spec, bool return_may_be_unknown)
{
    udfkit_spec s;
    udfkit_kernel_entry e;
    assert_int_equal(udfkit_spec_parse(spec, &s), UDFKIT_RC_OK);
    assert_int_equal(udfkit_kernel_entry_parse(entry, &e), UDFKIT_RC_OK);
    udfkit_diag_clear();
    udfkit_rc rc = udfkit_kernel_entry_bind(&e, &s, 1, return_may_be_unknown);
    assert_true(rc == UDFKIT_RC_OK || rc == UDFKIT_RC_INPUT);
    udfkit_kernel_entry_free(&e);
    udfkit_spec_free(&s);
    return rc ? udfkit_diag_message() : "";
}

static const char *bind_message(const char *entry, const char *spec)
{
    return bind_with(entry, spec, false);
}

static void checks_signatures(void **state)
{
    (void)state;
    assert_string_equal(bind_message("map(f)", "f:float32(float32, int64)"), "");
    assert_string_equal(bind_message("map(f)", "f:bool(float16)"), "");
    assert_string_equal(bind_message("filter(f)", "f:bool(int32, float64)"), "");
    assert_string_equal(bind_message("reduce(f)", "f:float16(float16, float16)"), "");
    assert_string_equal(bind_message("reduce(f)", "f:bool(bool, bool)"), "");

    assert_string_equal(bind_message("map(g)", "f:float32(float32)"),
                        "udfkit: error: kernel entry 'map(g)': no function 'g' among the inputs (functions: f)");
    assert_string_equal(bind_message("map(f)", "f:void(float32)"),
                        "udfkit: error: kernel entry 'map(f)': 'f' is void(float32), but map needs R(A1..An) with R "
                        "not void, or void(A1..An, O1*, ..., Ok*) writing k outputs");
    /* A map with outputs: inputs first, then pointers to values. */
    assert_string_equal(bind_message("map(f)", "f:void(float32, int32*, float64*)"), "");
    assert_string_equal(bind_message("map(f)", "f:void(float32, int32*, float64)"),
                        "udfkit: error: kernel entry 'map(f)': 'f' is void(float32, int32*, float64), but a map with "
                        "outputs takes its inputs first, then only its outputs (O1*, ..., Ok*)");
    assert_string_equal(bind_message("map(f)", "f:float32*(float32)"),
                        "udfkit: error: kernel entry 'map(f)': 'f' is float32*(float32), but map needs R(A1..An) with "
                        "R a value, not a pointer");
    assert_string_equal(bind_message("map(f)", "f:float32(float32, int32*)"),
                        "udfkit: error: kernel entry 'map(f)': 'f' is float32(float32, int32*), but map passes one "
                        "element of each input array, not a pointer: parameter 2 is int32*");
    assert_string_equal(bind_message("map(f)", "f:float32()"),
                        "udfkit: error: kernel entry 'map(f)': 'f' is float32(), but map needs at least one parameter, "
                        "one input array each");
    assert_string_equal(bind_message("map(f)", "f:(float32)"),
                        "udfkit: error: kernel entry 'map(f)': 'f' is (float32), but its return type is not declared; "
                        "give one in the spec");
    assert_string_equal(bind_message("filter(f)", "f:int32(int32)"),
                        "udfkit: error: kernel entry 'filter(f)': 'f' is int32(int32), but filter needs a predicate "
                        "bool(A1..An)");
    assert_string_equal(bind_message("filter(f)", "f:bool(void*)"),
                        "udfkit: error: kernel entry 'filter(f)': 'f' is bool(void*), but filter passes one element of "
                        "each input array, not a pointer: parameter 1 is void*");
    assert_string_equal(bind_message("reduce(f)", "f:int64(int64, int32)"),
                        "udfkit: error: kernel entry 'reduce(f)': 'f' is int64(int64, int32), but reduce needs T(T, T): "
                        "two parameters of the type it returns");
    assert_string_equal(bind_message("reduce(f)", "f:int64(int64, int64, int64)"),
                        "udfkit: error: kernel entry 'reduce(f)': 'f' is int64(int64, int64, int64), but reduce needs "
                        "T(T, T): two parameters of the type it returns");
    assert_string_equal(bind_message("reduce(f)", "f:float32*(float32*, float32*)"),
                        "udfkit: error: kernel entry 'reduce(f)': 'f' is float32*(float32*, float32*), but reduce needs "
                        "T(T, T) with T a value, not void or a pointer");
    assert_string_equal(bind_message("reduce(f)", "f:void(int32, int32)"),
                        "udfkit: error: kernel entry 'reduce(f)': 'f' is void(int32, int32), but reduce needs T(T, T) "
                        "with T a value, not void or a pointer");
}

/* At configure time a Python function's return type is not known yet: its parameters are
 * checked, and the build-time run checks the rest. */
static void checks_parameters_where_the_return_type_is_unknown(void **state)
{
    (void)state;
    assert_string_equal(bind_with("map(f)", "f:(float32, int8)", true), "");
    assert_string_equal(bind_with("filter(f)", "f:(int32)", true), "");
    assert_string_equal(bind_with("reduce(f)", "f:(int64, int64)", true), "");
    assert_string_equal(bind_with("map(f)", "f:(float32*)", true),
                        "udfkit: error: kernel entry 'map(f)': 'f' is (float32*), but map passes one element of each "
                        "input array, not a pointer: parameter 1 is float32*");
    assert_string_equal(bind_with("reduce(f)", "f:(int64, int32)", true),
                        "udfkit: error: kernel entry 'reduce(f)': 'f' is (int64, int32), but reduce needs T(T, T): two "
                        "parameters of the type it returns");
    assert_string_equal(bind_with("reduce(f)", "f:()", true),
                        "udfkit: error: kernel entry 'reduce(f)': 'f' is (), but reduce needs T(T, T): two parameters "
                        "of the type it returns");
    assert_string_equal(bind_with("reduce(f)", "f:(void*, void*)", true),
                        "udfkit: error: kernel entry 'reduce(f)': 'f' is (void*, void*), but reduce needs T(T, T) with "
                        "T a value, not void or a pointer");
}

typedef struct rendered {
    udfkit_spec specs[8];
    udfkit_kernel_entry entries[8];
    size_t nentries;
    udfkit_kernels_text text;
} rendered;

/* Whether render asks for `_arrow` launchers (udfkit kernels --arrow). */
static bool render_arrow;

static void render(rendered *r, const char *const *specs, size_t nspecs, const char *const *entries, size_t nentries)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < nspecs; i++)
        assert_int_equal(udfkit_spec_parse(specs[i], &r->specs[i]), UDFKIT_RC_OK);
    for (size_t i = 0; i < nentries; i++) {
        assert_int_equal(udfkit_kernel_entry_parse(entries[i], &r->entries[i]), UDFKIT_RC_OK);
        assert_int_equal(udfkit_kernel_entry_bind(&r->entries[i], r->specs, nspecs, false), UDFKIT_RC_OK);
    }
    r->nentries = nentries;
    assert_int_equal(udfkit_kernels_render_arrow("lib", "lib_fatbin", "lib.h", r->entries, nentries, NULL, 0, 0,
                                                 render_arrow, &r->text),
                     UDFKIT_RC_OK);
}

static void rendered_free(rendered *r)
{
    for (size_t i = 0; i < r->nentries; i++)
        udfkit_kernel_entry_free(&r->entries[i]);
    for (size_t i = 0; i < sizeof r->specs / sizeof *r->specs; i++)
        udfkit_spec_free(&r->specs[i]);
    udfkit_kernels_text_free(&r->text);
}

static size_t occurrences(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

static void renders_launchers_and_kernels(void **state)
{
    (void)state;
    const char *specs[] = {"scale:float32(float32, float32)", "is_even:bool(int32)", "add:int64(int64, int64)",
                           "h:float16(float16, float16)"};
    const char *entries[] = {"map(scale)", "filter(is_even)", "reduce(add)", "map(h)", "reduce(h)"};
    rendered r;
    render_arrow = true;
    render(&r, specs, 4, entries, 5);
    render_arrow = false;
    const char *h = r.text.header.data, *c = r.text.c.data, *cu = r.text.cuda.data;

    /* SPEC.md's signatures; float16 is its bit pattern. */
    assert_non_null(strstr(h, "\nudfkit_status lib_load(void);\n"));
    assert_non_null(strstr(h, "\nvoid lib_unload(void);\n"));
    assert_non_null(strstr(h, "udfkit_library *lib_library(void);\n"));
    assert_non_null(strstr(
        h, "\nudfkit_status lib_map_scale(udfkit_stream s, size_t n, const float *a1, const float *a2, float *out);\n"));
    assert_non_null(strstr(
        h, "\nudfkit_status lib_filter_is_even(udfkit_stream s, size_t n, const int32_t *a1, uint64_t *indices, "
           "uint64_t *count);\n"));
    assert_non_null(strstr(
        h, "\nudfkit_status lib_reduce_add(udfkit_stream s, size_t n, const int64_t *in, int64_t init, int64_t *out);\n"));
    assert_non_null(strstr(
        h, "\nudfkit_status lib_map_h(udfkit_stream s, size_t n, const uint16_t *a1, const uint16_t *a2, uint16_t *out);\n"));
    assert_non_null(strstr(h, " *   udfkit-kernel filter is_even bool(int32) lib_filter_is_even\n"));
    assert_int_equal(occurrences(h, " *   udfkit-kernel "), 5);
    assert_non_null(strstr(h, "Generated by udfkit"));
    assert_non_null(strstr(h, "do not edit"));
    assert_non_null(strstr(h, "#include <udfkit/runtime.h>"));
    assert_null(strstr(h, "cuda"));

    /* One kernel per map and filter, two per reduce, one init for the filters' tiles. */
    assert_non_null(strstr(cu, "extern \"C\" __global__ void __launch_bounds__(UDFKIT_BLOCK) udfkit_lib_map_scale("
                               "unsigned long long n, unsigned long long tiles, unsigned per_thread, const float *a1, const float *a2, float *out)"));
    /* The map's tile staged in shared memory: each input at its own 128-byte boundary. */
    assert_non_null(strstr(cu, "bytes += udfkit_detail::stage_column(smem, &at, a2 + begin, 4u * stride, issue, bar, &base[1]);"));
    assert_non_null(strstr(cu, "x->a2 = reinterpret_cast<const float *>(base[1])[t];"));
    assert_non_null(strstr(cu, "udfkit_lib_map_h(unsigned long long n, unsigned long long tiles, unsigned per_thread, const unsigned short *a1, "
                               "const unsigned short *a2, unsigned short *out)"));
    assert_non_null(strstr(cu, "extern \"C\" __global__ void __launch_bounds__(384)\nudfkit_lib_filter_is_even("
                               "const int *a1, unsigned long long *indices, unsigned long long *count, "));
    assert_non_null(strstr(cu, "udfkit_detail::select_rows<policy>(udfkit_detail::row_iterator<unsigned long long>{0}, keep, "
                               "udfkit_lib_filter_is_even_stencil{a1, 0}, indices, count, "));
    assert_non_null(strstr(cu, "bool udfkit_lib_filter_is_even_keep(unsigned long long i, "));
    assert_non_null(strstr(cu, "udfkit_lib_select_init("));
    assert_int_equal(occurrences(cu, "#include <cub/agent/agent_select_if.cuh>"), 1);
    /* The filter's `_arrow` launcher selects through nullable_filter where inputs have nulls
     * (its kernels and their shared scan), then gathers the kept rows (arrow_bits.cu.in);
     * without nulls through a hidden filter(is_even, values), which writes the kept values at
     * once: no row numbers, no gather. */
    assert_non_null(strstr(cu, "udfkit_lib_filter_scan("));
    assert_non_null(strstr(cu, "udfkit_lib_arrow_gather("));
    assert_non_null(strstr(c, "udfkit_arrow_begin_filter(&c, \"lib_filter_is_even_arrow\", s, "));
    assert_non_null(strstr(c, "st = c.indices ? lib_nullable_filter_is_even_arrow_masked(s, c.n, c.values[0], c.masks[0], "
                              "c.indices, c.count)\n                      : lib_filter_is_even_arrow_values(s, c.n, "
                              "c.values[0], c.out_values[0], c.count);\n"));
    assert_non_null(strstr(c, "\nstatic udfkit_status lib_filter_is_even_arrow_values(udfkit_stream s, size_t n, "
                              "const int32_t *a1, int32_t *out1, uint64_t *count)"));
    assert_non_null(strstr(c, "    if (!st && c.indices)\n        st = udfkit_arrow_gather(&c, gather);\n"));
    assert_null(strstr(h, "lib_filter_is_even_arrow_values"));
    assert_non_null(strstr(h, "\nudfkit_status lib_filter_is_even_arrow(udfkit_stream s, const struct ArrowDeviceArray *a1, "
                              "const struct ArrowSchema *t1, struct ArrowDeviceArray *out1, struct ArrowSchema *out_type1);\n"));
    assert_non_null(strstr(cu, "udfkit_lib_reduce_add_partials("));
    assert_non_null(strstr(cu, "udfkit_lib_reduce_h_final("));
    /* Seven kernels of the entries, the two of nullable_map's for each map's `_arrow` launcher
     * and of nullable_filter's for the filter's (inputs with nulls), the hidden filter(is_even,
     * values)'s one (inputs without), the nullable filters' scan,
     * the three of arrow_bits.cu.in, and the marker that code compiled for compute_90 or later
     * has: the launchers start a pass after the first through udfkit_launch_dependent, which asks
     * per device whether the code there has it; nothing decided once at load. */
    assert_int_equal(occurrences(cu, "extern \"C\" __global__"), 8 + 2 * 2 + 2 + 1 + 1 + 3 + 1);
    /* Those nullable_map launchers are the file's own: neither declared nor marked. */
    assert_non_null(strstr(c, "\nstatic udfkit_status lib_nullable_map_scale_arrow_masked(udfkit_stream s, size_t n, "));
    assert_null(strstr(h, "lib_nullable_map_scale"));
    assert_non_null(strstr(h, "\nudfkit_status lib_map_scale_arrow(udfkit_stream s, const struct ArrowDeviceArray *a1, "
                              "const struct ArrowSchema *t1, const struct ArrowDeviceArray *a2, const struct ArrowSchema "
                              "*t2, struct ArrowDeviceArray *out, struct ArrowSchema *out_type);\n"));
    assert_non_null(strstr(c, "        {\"e\", \"float16\", UDFKIT_ARROW_FIXED, 2},\n"));
    assert_null(strstr(h, "lib_reduce_add_arrow"));
    assert_non_null(strstr(cu, "#if __CUDA_ARCH__ >= 900\nextern \"C\" __global__ void udfkit_dependent_launch() {}\n#endif"));
    assert_null(strstr(r.text.c.data, "udfkit_library_has_kernel"));
    assert_non_null(strstr(r.text.c.data, "    return udfkit_launch_dependent(k, grid, block, 0, s, args);\n"));
    assert_non_null(strstr(r.text.c.data, "st = n ? udfkit_lib_launch_next(NULL, final_k, one, block, s, args)"));
    /* The UDFs' prototypes, each once, and no header: NVRTC needs none. */
    assert_non_null(strstr(cu, "__device__ unsigned short h(unsigned short a0, unsigned short a1);\n"));
    assert_non_null(strstr(cu, "__device__ long add(long a0, long a1);\n"));
    assert_int_equal(occurrences(cu, " h(unsigned short a0"), 1);
    assert_int_equal(occurrences(cu, "#include"), 1); /* CUB's agent, for the filter */
    assert_non_null(strstr(cu, "#define UDFKIT_BLOCK 256\n"));

    assert_non_null(strstr(c, "#include \"lib.h\"\n"));
    assert_non_null(strstr(c, "extern const unsigned char lib_fatbin[];\nextern const size_t lib_fatbin_size;\n"));
    assert_non_null(strstr(c, "udfkit_runtime_check_abi(1, "));
    assert_non_null(strstr(c, "static udfkit_kernel udfkit_lib_kernels[19 + 1];"));
    /* The entries' kernels, the hidden nullable_maps' after them, then the shared init. */
    assert_non_null(strstr(c, "    \"udfkit_lib_reduce_h_final\",\n    \"udfkit_lib_nullable_map_scale_arrow_masked\",\n"));
    assert_non_null(strstr(c, "    \"udfkit_lib_nullable_map_h_arrow_masked_dense\",\n    \"udfkit_lib_filter_scan\",\n"
                              "    \"udfkit_lib_select_init\",\n    \"udfkit_lib_arrow_unpack\",\n"));
    /* The filter's launcher: the shared init (index 15), then its own kernel (index 1). */
    assert_non_null(strstr(c, "udfkit_lib_kernel(self, 15, &init_k);"));
    assert_non_null(strstr(c, "udfkit_lib_kernel(self, 1, &select_k);"));
    assert_null(strstr(c, "if (total > 0x100000000ull)"));
    assert_non_null(strstr(c, "udfkit_lib_chunks("));
    /* The maps' tiles: shared memory for two inputs of 4 (scale) and 2 bytes (h) a row. */
    assert_non_null(strstr(c, "bytes = tile * 8 + 2 * 128;"));
    assert_non_null(strstr(c, "bytes = tile * 4 + 2 * 128;"));
    /* load, udf_error, 5 launchers and the maps' and filter's `_arrow` launchers */
    assert_int_equal(occurrences(c, "\nudfkit_status lib_"), 10);
    rendered_free(&r);
}

/* filter's options: 32-bit row numbers, and the kept rows' values of every input (an output
 * iterator copying them); each its own launcher beside the plain one, over one UDF. */
static void renders_filter_outputs(void **state)
{
    (void)state;
    const char *specs[] = {"p:bool(int32, float64)"};
    const char *entries[] = {"filter(p)", "filter(p, indices32)", "filter( p , values )"};
    rendered r;
    render(&r, specs, 1, entries, 3);
    const char *h = r.text.header.data, *c = r.text.c.data, *cu = r.text.cuda.data;
    assert_non_null(strstr(h, "\nudfkit_status lib_filter_p(udfkit_stream s, size_t n, const int32_t *a1, "
                              "const double *a2, uint64_t *indices, uint64_t *count);\n"));
    assert_non_null(strstr(h, "\nudfkit_status lib_filter_p_indices32(udfkit_stream s, size_t n, const int32_t *a1, "
                              "const double *a2, uint32_t *indices, uint64_t *count);\n"));
    assert_non_null(strstr(h, "\nudfkit_status lib_filter_p_values(udfkit_stream s, size_t n, const int32_t *a1, "
                              "const double *a2, int32_t *out1, double *out2, uint64_t *count);\n"));
    assert_non_null(strstr(h, " * n > 2^32 is UDFKIT_ERROR_INVALID_ARGUMENT. */\n"));
    assert_non_null(strstr(h, " *   udfkit-kernel filter p bool(int32, float64) lib_filter_p_values\n"));
    /* 32-bit rows: CUB's tile for 4-byte items, and no more than 2^32 rows. */
    assert_non_null(strstr(cu, "udfkit_detail::select_rows<policy>(udfkit_detail::row_iterator<unsigned>{0}, keep, "
                               "udfkit_lib_filter_p_indices32_stencil{a1, a2, 0}, indices, "));
    assert_non_null(strstr(cu, "auto keep = [=](const udfkit_lib_filter_p_indices32_item &it) -> bool {"));
    assert_int_equal(occurrences(c, "if (total > 0x100000000ull)"), 1);
    assert_non_null(strstr(c, "tiles of 6528 rows"));
    assert_non_null(strstr(c, "tiles of 4224 rows"));
    /* values: the gather iterator over both columns. */
    assert_non_null(strstr(cu, "struct udfkit_lib_filter_p_values_gather {\n    const int *a1;\n    const double *a2;\n"
                               "    int *out1;\n    double *out2;\n"));
    assert_non_null(strstr(cu, "        out1[pos] = a1[r];\n        out2[pos] = a2[r];\n"));
    assert_non_null(strstr(cu, "select_rows<policy>(udfkit_detail::row_iterator<unsigned long long>{0}, keep, "
                               "udfkit_lib_filter_p_values_stencil{a1, a2, 0}, udfkit_lib_filter_p_values_gather{a1, a2, out1, "
                               "out2, 0}, count, "));
    assert_non_null(strstr(c, "void *args[] = {&a1, &a2, &out1, &out2, &count, "));
    assert_int_equal(occurrences(cu, "udfkit_lib_select_init("), 1);
    /* 32-bit rows in the stencil where they are what is selected. */
    assert_non_null(strstr(cu, "struct udfkit_lib_filter_p_indices32_item {\n    udfkit_lib_filter_p_indices32_in x;\n"
                               "    unsigned row;\n};"));
    rendered_free(&r);

    /* values of one column: the agent selects the column's values themselves, no gather. */
    const char *one_spec[] = {"q:bool(float32)"};
    const char *one_entry[] = {"filter(q, values)"};
    render(&r, one_spec, 1, one_entry, 1);
    assert_non_null(strstr(r.text.cuda.data, "udfkit_detail::select_rows<policy>(a1, keep, (cub::NullType *)NULL, out1, "
                                             "count, "));
    assert_non_null(strstr(r.text.cuda.data, "typedef udfkit_detail::value_policy<sizeof(*a1)>::type policy;"));
    assert_non_null(strstr(r.text.cuda.data, "== 6528, \"the launcher's tile\");"));
    assert_non_null(strstr(r.text.c.data, "st = udfkit_lib_launch_next(self, select_k, (udfkit_dim3){(unsigned)tiles, 1, 1},"));
    assert_non_null(strstr(r.text.c.data, "(udfkit_dim3){384, 1, 1}, s, args);"));
    assert_null(strstr(r.text.cuda.data, "_values_gather"));
    assert_null(strstr(r.text.cuda.data, "_stencil"));
    assert_non_null(strstr(r.text.header.data, "lib_filter_q_values(udfkit_stream s, size_t n, const float *a1, float *out1, "
                                               "uint64_t *count);"));
    rendered_free(&r);
    /* 1-byte values: CUB's 256 threads of 22. */
    const char *byte_spec[] = {"b:bool(int8)"};
    const char *byte_entry[] = {"filter(b, values)"};
    render(&r, byte_spec, 1, byte_entry, 1);
    assert_non_null(strstr(r.text.cuda.data, "== 5632, \"the launcher's tile\");"));
    assert_non_null(strstr(r.text.c.data, "(udfkit_dim3){256, 1, 1}, s, args);"));
    rendered_free(&r);

    /* The same launcher twice, and options filter does not have. */
    assert_string_equal(bind_message("filter(f, values)", "f:bool(int32)"), "");
    udfkit_kernel_entry e;
    assert_int_equal(udfkit_kernel_entry_parse("filter(f, rows)", &e), UDFKIT_RC_INPUT);
    assert_string_equal(udfkit_diag_message(),
                        "udfkit: error: kernel entry 'filter(f, rows)': unknown option 'rows' (filter takes "
                        "'indices32': 32-bit row numbers, or 'values': the kept rows' values of every input)");
    udfkit_kernel_entry_free(&e);
    assert_int_equal(udfkit_kernel_entry_parse("nullable_filter(f, values)", &e), UDFKIT_RC_INPUT);
    assert_string_equal(udfkit_diag_message(),
                        "udfkit: error: kernel entry 'nullable_filter(f, values)': nullable_filter takes no option "
                        "('values')");
    udfkit_kernel_entry_free(&e);
}

/* Helpers appear only where launchers use them: an unused static function is a warning. */
static void renders_only_what_is_used(void **state)
{
    (void)state;
    rendered r;
    render(&r, NULL, 0, NULL, 0);
    assert_null(strstr(r.text.c.data, "udfkit_lib_blocks"));
    assert_null(strstr(r.text.c.data, "udfkit_lib_kernel("));
    assert_non_null(strstr(r.text.c.data, "static udfkit_kernel udfkit_lib_kernels[0 + 1];"));
    assert_non_null(strstr(r.text.header.data, " *   (none)\n"));
    assert_int_equal(occurrences(r.text.cuda.data, "__global__"), 1); /* udfkit_dependent_launch */
    rendered_free(&r);

    /* A map sizes its grid by tiles itself: no blocks helper (which it once left unused), no
     * chunks helper; with `_arrow` launchers, the blocks helper only for the nullable_map
     * launcher its `_arrow` launcher runs (which uses it), and no bit kernels without bool
     * columns. */
    const char *specs[] = {"f:int8(int8)"};
    const char *entries[] = {"map(f)"};
    for (int arrow = 0; arrow < 2; arrow++) {
        render_arrow = arrow;
        render(&r, specs, 1, entries, 1);
        render_arrow = false;
        assert_int_equal(occurrences(r.text.c.data, "udfkit_lib_blocks("), arrow ? 2 : 0);
        assert_null(strstr(r.text.c.data, "udfkit_lib_chunks("));
        assert_null(strstr(r.text.cuda.data, "arrow_unpack"));
        assert_null(strstr(r.text.cuda.data, "filter_scan"));
        assert_null(strstr(r.text.cuda.data, "select_init"));
        assert_null(strstr(r.text.cuda.data, "#include"));
        rendered_free(&r);
    }
}

/* A filter over a string column: its `_arrow` launcher gathers the kept strings as large_utf8
 * ("U"): their sizes, the library's offsets scan, then the bytes (arrow_text.cu.in). */
static void renders_a_string_filters_arrow_launcher(void **state)
{
    (void)state;
    const char *specs[] = {"t:bool(string, int32)"};
    const char *entries[] = {"filter(t)"};
    rendered r;
    render_arrow = true;
    render(&r, specs, 1, entries, 1);
    render_arrow = false;
    const char *h = r.text.header.data, *c = r.text.c.data, *cu = r.text.cuda.data;
    assert_non_null(strstr(h, "\nudfkit_status lib_filter_t_arrow(udfkit_stream s, const struct ArrowDeviceArray *a1, "));
    assert_non_null(strstr(cu, "udfkit_lib_arrow_text_sizes(udfkit::strings_column in, "));
    assert_non_null(strstr(cu, "udfkit_lib_arrow_text_copy(udfkit::strings_column in, "));
    assert_non_null(strstr(c, "    \"udfkit_lib_arrow_text_sizes\",\n    \"udfkit_lib_arrow_text_copy\",\n"));
    assert_non_null(strstr(c, "        {\"U\", \"string\", UDFKIT_ARROW_STRING, 0},\n        {\"i\", \"int32\", UDFKIT_ARROW_FIXED, 4},\n"));
    assert_non_null(strstr(c, "st = udfkit_lib_offsets(NULL, s, c.n, c.out_offsets[0], 1);\n"));
    assert_null(strstr(c, "c.out_offsets[1]"));
    assert_non_null(strstr(c, "st = udfkit_arrow_gather_copy(&c, text_copy);\n"));
    rendered_free(&r);
    /* Without --arrow: none of it. */
    render(&r, specs, 1, entries, 1);
    assert_null(strstr(r.text.cuda.data, "arrow_text"));
    assert_null(strstr(r.text.cuda.data, "offsets_scan"));
    rendered_free(&r);
}

/* A map with several outputs, strings among them: the sizes launch takes each string output's
 * offsets, the second launch each output (a string's offsets and bytes), as the raw launchers
 * take them. */
static void renders_a_string_among_outputs_arrow_launcher(void **state)
{
    (void)state;
    const char *specs[] = {"two2:void(int32, int64*, string*, string*)"};
    const char *entries[] = {"map(two2)"};
    rendered r;
    render_arrow = true;
    render(&r, specs, 1, entries, 1);
    render_arrow = false;
    const char *c = r.text.c.data;
    assert_non_null(strstr(r.text.header.data, "lib_map_two2_arrow(udfkit_stream s, const struct ArrowDeviceArray *a1, "
                                               "const struct ArrowSchema *t1, struct ArrowDeviceArray *out1, "));
    assert_non_null(strstr(c, ": lib_map_two2_sizes(s, c.n, c.values[0], c.out_offsets[1], c.out_offsets[2]);\n"));
    assert_non_null(strstr(c, ": lib_map_two2(s, c.n, c.values[0], c.out_values[0], c.out_offsets[1], c.out_chars[1], "
                              "c.out_offsets[2], c.out_chars[2]);\n"));
    assert_non_null(strstr(c, "lib_nullable_map_two2_arrow_masked(s, c.n, c.values[0], c.masks[0], c.out_values[0], "
                              "c.out_bits[0], c.out_offsets[1], c.out_chars[1], c.out_bits[1], c.out_offsets[2], "
                              "c.out_chars[2], c.out_bits[2], NULL)"));
    assert_non_null(strstr(c, "        {\"l\", \"int64\", UDFKIT_ARROW_FIXED, 8},\n        {\"U\", \"string\", "
                              "UDFKIT_ARROW_STRING, 0},\n"));
    rendered_free(&r);
}

/* Without --arrow (the default), a library has no `_arrow` launchers, none of the nullable
 * kernels they run where inputs have nulls, and no bit kernels: the entries' kernels alone, as
 * many as a library had before `_arrow` launchers existed. */
static void renders_no_arrow_launchers_unless_asked(void **state)
{
    (void)state;
    const char *specs[] = {"scale:float32(float32, float32)", "is_even:bool(int32)", "add:int64(int64, int64)",
                           "h:float16(float16, float16)", "b:bool(bool)"};
    const char *entries[] = {"map(scale)", "filter(is_even)", "reduce(add)", "map(h)", "reduce(h)", "map(b)"};
    rendered r;
    render(&r, specs, 5, entries, 6);
    const char *h = r.text.header.data, *c = r.text.c.data, *cu = r.text.cuda.data;
    assert_null(strstr(h, "_arrow"));
    assert_null(strstr(c, "_arrow"));
    assert_null(strstr(cu, "_arrow"));
    assert_null(strstr(cu, "udfkit_lib_nullable_"));
    assert_null(strstr(cu, "filter_scan"));
    /* Eight kernels of the entries and map(b)'s, and the dependent-launch marker. */
    assert_int_equal(occurrences(cu, "extern \"C\" __global__"), 8 + 1 + 1);
    assert_non_null(strstr(c, "static udfkit_kernel udfkit_lib_kernels[9 + 1];"));
    rendered_free(&r);
}

/* A map's `_arrow` launcher runs nullable_map(f)'s launcher where inputs have nulls: the entry's
 * where given, else a hidden one of its own names, apart from nullable_map(f, nullify)'s (whose
 * failing rows become nulls: not map's semantics). */
static void renders_the_arrow_launchers_masked_path(void **state)
{
    (void)state;
    const char *specs[] = {"f:int32(int32)", "g:int32(int32)", "p:bool(int32)"};
    const char *entries[] = {"map(f)", "nullable_map(f, nullify)", "map(g)", "nullable_map(g)", "filter(p)",
                             "filter(p, values)"};
    rendered r;
    render_arrow = true;
    render(&r, specs, 3, entries, 6);
    render_arrow = false;
    const char *c = r.text.c.data, *h = r.text.header.data;
    assert_non_null(strstr(c, "\nstatic udfkit_status lib_nullable_map_f_arrow_masked(udfkit_stream s, size_t n, "));
    assert_non_null(strstr(c, "c.masked ? lib_nullable_map_f_arrow_masked(s, c.n, c.values[0], c.masks[0], "));
    assert_non_null(strstr(c, "c.masked ? lib_nullable_map_g(s, c.n, c.values[0], c.masks[0], "));
    assert_null(strstr(c, "lib_nullable_map_g_arrow_masked"));
    /* One hidden nullable_filter serves both filters' `_arrow` launchers. */
    assert_int_equal(occurrences(c, "static udfkit_status lib_nullable_filter_p_arrow_masked("), 1);
    assert_non_null(strstr(h, "lib_filter_p_arrow(udfkit_stream s"));
    assert_non_null(strstr(h, "lib_filter_p_values_arrow(udfkit_stream s"));
    /* The entry filter(p, values) serves both where no input has nulls: no hidden one. */
    assert_null(strstr(c, "lib_filter_p_arrow_values"));
    assert_int_equal(occurrences(c, "\n                      : lib_filter_p_values(s, c.n, c.values[0], "
                                    "c.out_values[0], c.count);\n"), 2);
    assert_non_null(strstr(h, "lib_nullable_map_f_nullify_arrow(udfkit_stream s"));
    assert_null(strstr(h, "_arrow_masked"));
    rendered_free(&r);
}

/* nullable_map: two kernels, the general one (a warp taking 256 rows, validity read with the
 * values) and, for inputs without bitmaps, a dense one in map's tiles that passes empty masks
 * to the row functions; the launcher picks by the inputs' bitmaps and sizes the dense one's
 * tiles (its shared memory: 8 bytes of values a row). */
static void renders_nullable_map_kernels(void **state)
{
    (void)state;
    const char *specs[] = {"nsum:float32?(float32?, float32)"};
    const char *entries[] = {"nullable_map(nsum)"};
    rendered r;
    render(&r, specs, 1, entries, 1);
    const char *c = r.text.c.data, *cu = r.text.cuda.data;
    assert_int_equal(occurrences(cu, "extern \"C\" __global__"), 2 + 1); /* and udfkit_dependent_launch */
    assert_non_null(strstr(cu, "\nudfkit_lib_nullable_map_nsum(unsigned long long n, const float *a1, "
                               "udfkit_detail::mask m1, const float *a2, udfkit_detail::mask m2, float *out, "
                               "unsigned char *out_bits, unsigned long long *null_count)"));
    assert_non_null(strstr(cu, "\nudfkit_lib_nullable_map_nsum_dense(unsigned long long n, unsigned long long tiles, "
                               "unsigned per_thread, const float *a1, udfkit_detail::mask m1, const float *a2, "
                               "udfkit_detail::mask m2, float *out, unsigned char *out_bits,\n"
                               "               unsigned long long *null_count)"));
    assert_non_null(strstr(cu, "udfkit_lib_nullable_map_nsum_load4(4 * g, a1, m1, a2, m2, x);"));
    /* The dense kernel: values from the tile, validity from empty masks. */
    assert_non_null(strstr(cu, "struct udfkit_lib_nullable_map_nsum_staged {"));
    assert_non_null(strstr(cu, "udfkit_lib_nullable_map_nsum_validity(begin + t, a1, udfkit_detail::mask(), a2, "
                               "udfkit_detail::mask(), &x);"));
    assert_non_null(strstr(cu, "    x->v1 = udfkit_detail::valid_or_all(m1, i);\n"));
    assert_non_null(strstr(c, "    \"udfkit_lib_nullable_map_nsum\",\n    \"udfkit_lib_nullable_map_nsum_dense\",\n"
                              "    NULL,\n"));
    assert_non_null(strstr(c, "static udfkit_kernel udfkit_lib_kernels[2 + 1];"));
    assert_non_null(strstr(c, "const unsigned dense = m1.bits == NULL && m2.bits == NULL;"));
    assert_non_null(strstr(c, "udfkit_lib_kernel(NULL, 0 + dense, &k);"));
    assert_non_null(strstr(c, "udfkit_lib_blocks(k, n / 4 + 1, &blocks)"));
    assert_non_null(strstr(c, "size_t smem = (size_t)UDFKIT_LIB_BLOCK * 8 + 2 * 128;"));
    assert_null(strstr(c, "udfkit_lib_chunks("));
    rendered_free(&r);
}

static udfkit_rc generate(const char *dir, const char *name, const char *const *functions, size_t nfunctions,
                          const char *const *kernels, size_t nkernels, bool check)
{
    char *cu = udfkit_path_join(dir, "k.cu"), *c = udfkit_path_join(dir, "k.c"), *h = udfkit_path_join(dir, "k.h");
    udfkit_kernels_request req = {
        .functions = functions,
        .nfunctions = nfunctions,
        .kernels = kernels,
        .nkernels = nkernels,
        .name = name,
        .check = check,
        .cuda_output = cu,
        .c_output = c,
        .header_output = h,
    };
    udfkit_rc rc = udfkit_kernels_generate(&req);
    free(cu);
    free(c);
    free(h);
    return rc;
}

static size_t files_in(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void generates_atomically(void **state)
{
    (void)state;
    char dir[] = "/tmp/udfkit-kernel-gen-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *fns[] = {"scale:float32(float32, float32)", "is_even:bool(int32)"};
    const char *good[] = {"map(scale)", "filter(is_even)"};
    assert_int_equal(generate(dir, "lib", fns, 2, good, 2, true), UDFKIT_RC_OK);
    assert_int_equal(files_in(dir), 0);
    assert_int_equal(generate(dir, "lib", fns, 2, good, 2, false), UDFKIT_RC_OK);
    assert_int_equal(files_in(dir), 3);

    /* A failure in either mode gives the same message; in build mode it leaves nothing, not
     * even the outputs of the run before. */
    const char *bad[] = {"map(scale)", "filter(scale)"};
    assert_int_equal(generate(dir, "lib", fns, 2, bad, 2, true), UDFKIT_RC_INPUT);
    char *checked = strdup(udfkit_diag_message());
    assert_int_equal(generate(dir, "lib", fns, 2, bad, 2, false), UDFKIT_RC_INPUT);
    assert_string_equal(udfkit_diag_message(), checked);
    assert_non_null(strstr(checked, "kernel entry 'filter(scale)': 'scale' is float32(float32, float32)"));
    free(checked);
    assert_int_equal(files_in(dir), 0);

    const char *twice[] = {"map(scale)", " map( scale )"};
    assert_int_equal(generate(dir, "lib", fns, 2, twice, 2, true), UDFKIT_RC_INPUT);
    assert_string_equal(udfkit_diag_message(), "udfkit: error: kernel entry ' map( scale )' is given twice (also as 'map(scale)')");
    const char *dup[] = {"scale:float32(float32, float32)", "scale:float32(float32, float32)"};
    assert_int_equal(generate(dir, "lib", dup, 2, good, 1, true), UDFKIT_RC_INPUT);
    assert_non_null(strstr(udfkit_diag_message(), "function 'scale' is given twice"));
    assert_int_equal(generate(dir, "my-lib", fns, 2, good, 2, true), UDFKIT_RC_INPUT);
    assert_non_null(strstr(udfkit_diag_message(), "--name 'my-lib' is not a C identifier"));
    assert_int_equal(generate(dir, "udfkit", fns, 2, good, 2, true), UDFKIT_RC_INPUT);
    assert_non_null(strstr(udfkit_diag_message(), "--name 'udfkit' cannot name a library (udfkit_load)"));
    rmdir(dir);
}

/* sort(less): less is bool(T, T) with T a value; the launcher takes in, out and the order; five
 * kernels (the block sorts, the partition, the merges) in the name table, CUB's tile for T's
 * size in the kernels' static_assert and in the launcher. */
static void sort_entries(void **state)
{
    (void)state;
    udfkit_kernel_entry e;
    assert_int_equal(udfkit_kernel_entry_parse("sort(less)", &e), UDFKIT_RC_OK);
    assert_int_equal(e.tpl, UDFKIT_KERNEL_SORT);
    assert_string_equal(e.c_name, "less");
    udfkit_kernel_entry_free(&e);
    assert_int_equal(udfkit_kernel_entry_parse("sort(less, stable)", &e), UDFKIT_RC_INPUT);
    assert_string_equal(udfkit_diag_message(),
                        "udfkit: error: kernel entry 'sort(less, stable)': sort takes no option ('stable')");
    udfkit_kernel_entry_free(&e);

    assert_string_equal(bind_message("sort(f)", "f:bool(int32, int32)"), "");
    assert_string_equal(bind_message("sort(f)", "f:bool(float16, float16)"), "");
    assert_string_equal(bind_message("sort(f)", "f:bool(bool, bool)"), "");
    assert_string_equal(bind_message("sort(f)", "f:int32(int32, int32)"),
                        "udfkit: error: kernel entry 'sort(f)': 'f' is int32(int32, int32), but sort needs a comparator "
                        "bool(T, T), true where the first value goes before the second: it must return bool");
    assert_string_equal(bind_message("sort(f)", "f:bool(int32, int64)"),
                        "udfkit: error: kernel entry 'sort(f)': 'f' is bool(int32, int64), but sort needs a comparator "
                        "bool(T, T): two parameters of the type it sorts");
    assert_string_equal(bind_message("sort(f)", "f:bool(float64)"),
                        "udfkit: error: kernel entry 'sort(f)': 'f' is bool(float64), but sort needs a comparator "
                        "bool(T, T): two parameters of the type it sorts");
    assert_string_equal(bind_message("sort(f)", "f:bool(int32*, int32*)"),
                        "udfkit: error: kernel entry 'sort(f)': 'f' is bool(int32*, int32*), but sort needs a "
                        "comparator bool(T, T) with T a value, not void or a pointer");
    assert_string_equal(bind_message("sort(f)", "f:bool(int32?, int32?)"),
                        "udfkit: error: kernel entry 'sort(f)': 'f' is bool(int32?, int32?), but sort takes no "
                        "nullable (T?) types: it passes dense columns, with no validity");
    /* A Python comparator's return type is known at build time only. */
    assert_string_equal(bind_with("sort(f)", "f:(int64, int64)", true), "");
    assert_string_equal(bind_with("sort(f)", "f:(int64, float64)", true),
                        "udfkit: error: kernel entry 'sort(f)': 'f' is (int64, float64), but sort needs a comparator "
                        "bool(T, T): two parameters of the type it sorts");

    rendered r;
    const char *specs[] = {"less:bool(int32, int32)", "desc:bool(float64, float64)", "h:bool(float16, float16)"};
    const char *entries[] = {"sort(less)", "sort(desc)", "sort(h)"};
    render(&r, specs, 3, entries, 3);
    assert_non_null(strstr(r.text.header.data, "udfkit_status lib_sort_less(udfkit_stream s, size_t n, const int32_t "
                                               "*in, int32_t *out, uint64_t *order);"));
    assert_non_null(strstr(r.text.header.data, "udfkit_status lib_sort_desc(udfkit_stream s, size_t n, const double "
                                               "*in, double *out, uint64_t *order);"));
    assert_non_null(strstr(r.text.header.data, "udfkit_status lib_sort_h(udfkit_stream s, size_t n, const uint16_t "
                                               "*in, uint16_t *out, uint64_t *order);"));
    assert_non_null(strstr(r.text.header.data, "/* sort(less): in[0], ..., in[n - 1] into out in the order less"));
    assert_non_null(strstr(r.text.header.data, "stable: rows less leaves equivalent keep their input"));
    assert_non_null(strstr(r.text.header.data, "in\n * and out may be the same array (a sort in place)"));
    assert_non_null(strstr(r.text.header.data, " *   udfkit-kernel sort less bool(int32, int32) lib_sort_less\n"));
    /* Five kernels each, in the name table's order. */
    const char *suffixes[] = {"_block_keys", "_block_pairs", "_partition", "_merge_keys", "_merge_pairs"};
    for (size_t i = 0; i < 5; i++) {
        char name[96], quoted[100];
        snprintf(name, sizeof name, "udfkit_lib_sort_less%s(", suffixes[i]);
        snprintf(quoted, sizeof quoted, "    \"udfkit_lib_sort_less%s\",\n", suffixes[i]);
        assert_int_equal(occurrences(r.text.cuda.data, name), 1);
        assert_int_equal(occurrences(r.text.c.data, quoted), 1);
    }
    assert_non_null(strstr(r.text.c.data, "udfkit_lib_kernels[15 + 1]"));
    /* CUB's tiles: 256 x 17 rows for 4-byte and 2-byte T, 256 x 8 for 8-byte T. */
    assert_non_null(strstr(r.text.cuda.data, "static_assert(sort_policy_udfkit_lib_sort_less::ITEMS_PER_TILE == 4352,"));
    assert_non_null(strstr(r.text.cuda.data, "static_assert(sort_policy_udfkit_lib_sort_desc::ITEMS_PER_TILE == 2048,"));
    assert_non_null(strstr(r.text.cuda.data, "static_assert(sort_policy_udfkit_lib_sort_h::ITEMS_PER_TILE == 4352,"));
    assert_int_equal(occurrences(r.text.c.data, "const unsigned long long tile = 4352ull, t_bytes = 4ull;"), 1);
    assert_int_equal(occurrences(r.text.c.data, "const unsigned long long tile = 2048ull, t_bytes = 8ull;"), 1);
    assert_int_equal(occurrences(r.text.c.data, "const unsigned long long tile = 4352ull, t_bytes = 2ull;"), 1);
    /* The row numbers' iterator under a guard (compiled once), the comparator's functor per
     * entry; temporary memory in stream order; grids by tiles, so no udfkit_lib_blocks helper. */
    assert_int_equal(occurrences(r.text.cuda.data, "#ifndef UDFKIT_SORT_ROW_NUMBERS\n#define UDFKIT_SORT_ROW_NUMBERS"),
                     3);
    assert_non_null(strstr(r.text.cuda.data, "return ::desc(a, b);"));
    assert_int_equal(occurrences(r.text.c.data, "udfkit_device_alloc_async("), 3);
    assert_int_equal(occurrences(r.text.c.data, "udfkit_device_free_async("), 3);
    assert_null(strstr(r.text.c.data, "udfkit_lib_blocks("));
    assert_null(strstr(r.text.c.data, "udfkit_synchronize"));
    rendered_free(&r);
}

/* Every row of the template table, and every option word: an entry of it over a function of
 * its shape renders its launcher (declared in the header and defined in the C source under
 * the row's name and the entry's suffix), and each kernel the row names, in the name table
 * and defined in the CUDA source. A row added without its texts fails here. */
static void renders_every_template_row(void **state)
{
    (void)state;
    /* A function of each shape, and what follows it in an entry. */
    static const char *const shape_fn[UDFKIT_SHAPE_COUNT] = {
        [UDFKIT_SHAPE_MAP] = "f", [UDFKIT_SHAPE_PREDICATE] = "p", [UDFKIT_SHAPE_OP] = "op",
        [UDFKIT_SHAPE_TRANSFORM] = "t", [UDFKIT_SHAPE_LESS] = "less"};
    const char *specs[] = {"f:float32(float32, int32)", "p:bool(float32)", "op:int64(int64, int64)", "t:int64(int32)",
                           "less:bool(float64, float64)"};
    for (int k = 0; k < UDFKIT_KERNEL_TEMPLATE_COUNT; k++) {
        const udfkit_template_row *row = udfkit_template_info((udfkit_kernel_template)k);
        udfkit_kernel_template found;
        assert_true(udfkit_template_find(row->name, strlen(row->name), &found));
        assert_int_equal(found, k);
        assert_non_null(row->kernels[0]);
        assert_non_null(row->cuda);
        assert_non_null(row->c);
        size_t variants = 1;
        while (row->extra == UDFKIT_EXTRA_WORD && row->words[variants - 1].word)
            variants++;
        for (size_t w = 0; w < variants; w++) {
            char entry[128], launcher[128], kernel[192];
            const char *extra = row->extra == UDFKIT_EXTRA_KEY ? ", int32" : row->extra == UDFKIT_EXTRA_FUNCTION ? ", op" : "";
            if (w > 0)
                snprintf(entry, sizeof entry, "%s(%s, %s)", row->name, shape_fn[row->shape], row->words[w - 1].word);
            else
                snprintf(entry, sizeof entry, "%s(%s%s)", row->name, shape_fn[row->shape], extra);
            const char *entries[] = {entry};
            rendered r;
            render(&r, specs, 5, entries, 1);
            udfkit_buf suffix = UDFKIT_BUF_INIT;
            udfkit_kernel_entry_suffix(&r.entries[0], &suffix);
            snprintf(launcher, sizeof launcher, "lib_%s_%s(", row->name, suffix.data);
            assert_non_null(strstr(r.text.header.data, launcher));
            assert_non_null(strstr(r.text.c.data, launcher));
            for (const char *const *kn = row->kernels; *kn; kn++) {
                snprintf(kernel, sizeof kernel, "\"udfkit_lib_%s_%s%s\"", row->name, suffix.data, *kn);
                assert_non_null(strstr(r.text.c.data, kernel)); /* the name table */
                snprintf(kernel, sizeof kernel, "udfkit_lib_%s_%s%s(", row->name, suffix.data, *kn);
                assert_non_null(strstr(r.text.cuda.data, kernel));
            }
            assert_null(strchr(r.text.header.data, '@'));
            /* The launcher's definition begins with its argument checks (docs/security.md). */
            snprintf(launcher, sizeof launcher, "udfkit_status lib_%s_%s(udfkit_stream s, size_t %s, ", row->name,
                     suffix.data, row->count);
            const char *def = strstr(r.text.c.data, launcher), *body = def ? strstr(def, ")\n{\n") : NULL;
            assert_non_null(body);
            const char *checks = "    /* The arguments, checked before anything is loaded or queued";
            assert_true(strncmp(body + 4, checks, strlen(checks)) == 0);
            snprintf(kernel, sizeof kernel, "    if (%s > 0x", row->count);
            assert_non_null(strstr(body, kernel));
            udfkit_buf_free(&suffix);
            rendered_free(&r);
        }
    }
}

/* reduce_by_key runs CUB's agent with its last tile guarded: every unloaded place heads a run
 * of its own in the scan, so the op never takes one (CUB flags only the first, and combined
 * the rest with the op: an op that checks its operands recorded errors no row caused). */
static void reduce_by_key_guards_the_last_tile(void **state)
{
    (void)state;
    rendered r;
    const char *specs[] = {"add:int64(int64, int64)", "mx:int32(int32, int32)"};
    const char *entries[] = {"reduce_by_key(add, int32)", "reduce_by_key(mx, uint8)"};
    render(&r, specs, 2, entries, 2);
    const char *cu = r.text.cuda.data;
    /* The guarded agent with each kernel, defined once (its guard), used by each. */
    assert_int_equal(occurrences(cu, "#ifndef UDFKIT_RBK_GUARDED_AGENT\n#define UDFKIT_RBK_GUARDED_AGENT"), 2);
    assert_int_equal(occurrences(cu, "template <class Agent> struct rbk_guarded : Agent {"), 2);
    assert_non_null(strstr(cu, "scan_items[i].key = place > loaded ? 1 : heads[i];"));
    assert_non_null(strstr(cu, "const u64 tile_runs = block_aggregate.key - extra;"));
    assert_int_equal(occurrences(cu, ".ConsumeRangeGuarded(n, ts, start_tile);"), 2);
    assert_null(strstr(cu, ".ConsumeRange(n, ts, start_tile);"));
    assert_non_null(strstr(cu, "udfkit_detail::rbk_guarded<udfkit_detail::rbk_agent_udfkit_lib_reduce_by_key_add_by_int32>("));
    rendered_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_entries),
        cmocka_unit_test(renders_every_template_row),
        cmocka_unit_test(checks_signatures),
        cmocka_unit_test(checks_parameters_where_the_return_type_is_unknown),
        cmocka_unit_test(renders_launchers_and_kernels),
        cmocka_unit_test(renders_filter_outputs),
        cmocka_unit_test(renders_only_what_is_used),
        cmocka_unit_test(renders_the_arrow_launchers_masked_path),
        cmocka_unit_test(renders_no_arrow_launchers_unless_asked),
        cmocka_unit_test(renders_a_string_filters_arrow_launcher),
        cmocka_unit_test(renders_a_string_among_outputs_arrow_launcher),
        cmocka_unit_test(renders_nullable_map_kernels),
        cmocka_unit_test(generates_atomically),
        cmocka_unit_test(sort_entries),
        cmocka_unit_test(reduce_by_key_guards_the_last_tile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
