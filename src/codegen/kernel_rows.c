#include "codegen/kernel_rows.h"

#include "base/types.h"
#include "frontend/exporter.h"

#include <stdio.h>

bool udfkit_rows_nullable(udfkit_kernel_template tpl)
{
    return udfkit_template_info(tpl)->nullable;
}

size_t udfkit_rows_input_count(const udfkit_kernel_entry *e)
{
    const udfkit_signature *s = &e->fn->sig;
    return udfkit_kernel_entry_row(e)->outputs && UDFKIT_MAP_HAS_OUTPUTS(s) ? udfkit_kernel_map_inputs(s) : s->nparams;
}

/* A column's element type: T of T, T?, T* and T?*, as C or as the C ABI spells it in CUDA
 * (a row's string in CUDA: udfkit::string_view). */
static void column_type(udfkit_type t, bool cuda, udfkit_buf *out)
{
    udfkit_type value = udfkit_type_value(t);
    const char *element = udfkit_kind_info(t.kind)->element_cuda;
    if (cuda && element)
        udfkit_buf_puts(out, element);
    else if (cuda)
        udfkit_exporter_abi_type(value, out);
    else
        udfkit_type_c(value, out);
}

/* An input column "[const] T *<name><i>", or the kind's own column ("udfkit_strings a1" in C,
 * "udfkit::strings_column a1" in CUDA). */
static void column_param(udfkit_type t, bool cuda, bool is_const, const char *name, size_t i, udfkit_buf *out)
{
    const udfkit_kind_row *row = udfkit_kind_info(t.kind);
    if (row->column_c) {
        udfkit_buf_printf(out, "%s %s%zu", cuda ? row->column_cuda : row->column_c, name, i);
        return;
    }
    udfkit_buf_puts(out, is_const ? "const " : "");
    column_type(t, cuda, out);
    udfkit_buf_printf(out, " *%s%zu", name, i);
}

/* Whether a column's rows are values of one size, which can be staged and vector-loaded. */
static bool fixed_size(udfkit_type t)
{
    return udfkit_kind_size(t.kind) > 0;
}

void udfkit_rows_inputs(const udfkit_kernel_entry *e, bool cuda, udfkit_buf *out)
{
    bool masks = udfkit_rows_nullable(e->tpl);
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        udfkit_buf_puts(out, i ? ", " : "");
        column_param(e->fn->sig.params[i], cuda, true, "a", i + 1, out);
        if (masks)
            udfkit_buf_printf(out, ", %s m%zu", cuda ? "udfkit_detail::mask" : "udfkit_mask", i + 1);
    }
}

void udfkit_rows_input_args(const udfkit_kernel_entry *e, bool pointers, udfkit_buf *out)
{
    const char *amp = pointers ? "&" : "";
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        udfkit_buf_printf(out, "%s%sa%zu", i ? ", " : "", amp, i + 1);
        if (udfkit_rows_nullable(e->tpl))
            udfkit_buf_printf(out, ", %sm%zu", amp, i + 1);
    }
}

void udfkit_rows_dense_args(const udfkit_kernel_entry *e, udfkit_buf *out)
{
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++)
        udfkit_buf_printf(out, "%sa%zu, udfkit_detail::mask()", i ? ", " : "", i + 1);
}

void udfkit_rows_no_bitmaps(const udfkit_kernel_entry *e, udfkit_buf *out)
{
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++)
        udfkit_buf_printf(out, "%sm%zu.bits == NULL", i ? " && " : "", i + 1);
}

size_t udfkit_rows_output_count(const udfkit_kernel_entry *e)
{
    const udfkit_signature *s = &e->fn->sig;
    return UDFKIT_MAP_HAS_OUTPUTS(s) ? s->nparams - udfkit_kernel_map_inputs(s) : 1;
}

/* Output j (0-based): its type, and its name ("out" alone, else "out1", ...). */
static udfkit_type output_type(const udfkit_kernel_entry *e, size_t j)
{
    const udfkit_signature *s = &e->fn->sig;
    return UDFKIT_MAP_HAS_OUTPUTS(s) ? s->params[udfkit_kernel_map_inputs(s) + j] : s->ret;
}

bool udfkit_rows_output_text(const udfkit_kernel_entry *e, size_t j)
{
    return udfkit_kind_info(output_type(e, j).kind)->flags & UDFKIT_KIND_TEXT;
}

bool udfkit_rows_text_results(const udfkit_kernel_entry *e)
{
    bool any = false;
    for (size_t j = 0; udfkit_kernel_entry_row(e)->outputs && j < udfkit_rows_output_count(e); j++)
        any |= udfkit_rows_output_text(e, j);
    return any;
}

static void output_name(const udfkit_kernel_entry *e, size_t j, udfkit_buf *out)
{
    if (UDFKIT_MAP_HAS_OUTPUTS(&e->fn->sig))
        udfkit_buf_printf(out, "out%zu", j + 1);
    else
        udfkit_buf_puts(out, "out");
}

void udfkit_rows_outputs(const udfkit_kernel_entry *e, bool cuda, udfkit_buf *out)
{
    bool bits = udfkit_rows_nullable(e->tpl);
    for (size_t j = 0; j < udfkit_rows_output_count(e); j++) {
        udfkit_buf_puts(out, j ? ", " : "");
        column_type(output_type(e, j), cuda, out);
        udfkit_buf_puts(out, " *");
        output_name(e, j, out);
        if (!bits)
            continue;
        udfkit_buf_printf(out, ", %s *", cuda ? "unsigned char" : "uint8_t");
        output_name(e, j, out);
        udfkit_buf_puts(out, "_bits");
    }
}

void udfkit_rows_output_args(const udfkit_kernel_entry *e, bool pointers, bool bits, udfkit_buf *out)
{
    for (size_t j = 0; j < udfkit_rows_output_count(e); j++) {
        udfkit_buf_printf(out, "%s%s", j ? ", " : "", pointers ? "&" : "");
        output_name(e, j, out);
        if (bits) {
            udfkit_buf_printf(out, ", %s", pointers ? "&" : "");
            output_name(e, j, out);
            udfkit_buf_puts(out, "_bits");
        }
    }
}

void udfkit_rows_output_args_at(const udfkit_kernel_entry *e, const char *offset, udfkit_buf *out)
{
    for (size_t j = 0; j < udfkit_rows_output_count(e); j++) {
        udfkit_buf_puts(out, j ? ", " : "");
        output_name(e, j, out);
        udfkit_buf_printf(out, " + %s", offset);
    }
}

/* The struct of one row's inputs (values, and validity under the nullable templates) and
 * the function loading it: every load of a row at once, before anything depends on them, so
 * that a kernel keeps the loads of several rows in flight. */
static void input_struct(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    bool masks = udfkit_rows_nullable(e->tpl);
    udfkit_buf_printf(out, "struct %s_in {\n", prefix);
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        udfkit_buf_puts(out, "    ");
        column_type(e->fn->sig.params[i], true, out);
        udfkit_buf_printf(out, " a%zu;\n", i + 1);
        if (masks)
            udfkit_buf_printf(out, "    bool v%zu;\n", i + 1);
    }
    udfkit_buf_puts(out, "};\n\n");
    /* How many rows a thread loads before it computes any: four numbers (their loads in
     * flight together), one string (a row's work is a loop over its text, whose speed is the
     * warps in flight: the registers four rows' views hold cost more than they save). */
    udfkit_buf_printf(out, "enum : unsigned { %s_batch = %u };\n\n", prefix,
                      udfkit_signature_has(&e->fn->sig, UDFKIT_KIND_TEXT) ? 1u : 4u);
    udfkit_buf_printf(out, "__device__ __forceinline__ void %s_load(unsigned long long i, ", prefix);
    udfkit_rows_inputs(e, true, out);
    udfkit_buf_printf(out, ", %s_in *x)\n{\n", prefix);
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        udfkit_buf_printf(out, "    x->a%zu = a%zu[i];\n", i + 1, i + 1);
        if (masks)
            udfkit_buf_printf(out, "    x->v%zu = udfkit_detail::valid(m%zu, i);\n", i + 1, i + 1);
    }
    udfkit_buf_puts(out, "}\n\n");
    if (!masks)
        return;
    /* _validity: row i's input bits alone (the dense nullable_map's tiles hold the values);
     * no load where a column has no bitmap, which a kernel given empty masks sees when
     * compiled. */
    udfkit_buf_printf(out, "__device__ __forceinline__ void %s_validity(unsigned long long i, ", prefix);
    udfkit_rows_inputs(e, true, out);
    udfkit_buf_printf(out, ", %s_in *x)\n{\n", prefix);
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++)
        udfkit_buf_printf(out, "    (void)a%zu;\n    x->v%zu = udfkit_detail::valid_or_all(m%zu, i);\n", i + 1, i + 1,
                          i + 1);
    udfkit_buf_puts(out, "}\n\n");
}

/* `void <prefix>_load4(i, <inputs>, <prefix>_in *x)`: rows i..i+3 (i a multiple of 4, all
 * below n), each column with one vector load where it is aligned. */
static void input_load4(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    bool masks = udfkit_rows_nullable(e->tpl);
    udfkit_buf_printf(out, "__device__ __forceinline__ void %s_load4(unsigned long long i, ", prefix);
    udfkit_rows_inputs(e, true, out);
    udfkit_buf_printf(out, ", %s_in *x)\n{\n", prefix);
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        udfkit_buf_puts(out, "    {\n        ");
        column_type(e->fn->sig.params[i], true, out);
        udfkit_buf_printf(out, " v[4];\n        udfkit_detail::load4(a%zu, i, v);\n", i + 1);
        for (int k = 0; k < 4; k++)
            udfkit_buf_printf(out, "        x[%d].a%zu = v[%d];\n", k, i + 1, k);
        if (masks) {
            udfkit_buf_printf(out, "        const unsigned b = udfkit_detail::valid4(m%zu, i);\n", i + 1);
            for (int k = 0; k < 4; k++)
                udfkit_buf_printf(out, "        x[%d].v%zu = (b >> %d) & 1u;\n", k, i + 1, k);
        }
        udfkit_buf_puts(out, "    }\n");
    }
    udfkit_buf_puts(out, "}\n\n");
}

/* Where some parameter takes no null: the return that skips the UDF for a row with a null
 * there. */
static void validity(const udfkit_kernel_entry *e, const char *skip, udfkit_buf *out)
{
    bool gate = false;
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        if (e->fn->sig.params[i].nullable)
            continue;
        udfkit_buf_printf(out, gate ? " && x.v%zu" : "    if (!(x.v%zu", i + 1);
        gate = true;
    }
    if (gate)
        udfkit_buf_printf(out, "))\n        %s\n", skip);
}

/* The UDF's arguments: "x.a1, x.a2, x.v2" (a T? parameter passes its validity, a string its
 * parts: "x.a1.data(), x.a1.size()"). */
static void call_args(const udfkit_kernel_entry *e, udfkit_buf *out)
{
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        const udfkit_kind_row *row = udfkit_kind_info(e->fn->sig.params[i].kind);
        char x[32];
        snprintf(x, sizeof x, "x.a%zu", i + 1);
        udfkit_buf_puts(out, i ? ", " : "");
        for (unsigned p = 0; row->parts && p < row->c_params; p++) {
            udfkit_buf_puts(out, p ? ", " : "");
            udfkit_buf_printf(out, row->parts[p].arg, x);
        }
        if (!row->parts)
            udfkit_buf_puts(out, x);
        if (e->fn->sig.params[i].nullable)
            udfkit_buf_printf(out, ", x.v%zu", i + 1);
    }
}

void udfkit_rows_keep_function(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    bool nullable = udfkit_rows_nullable(e->tpl);
    udfkit_buf_printf(out, "\n/* %s(%s): row i's inputs, and whether the row is kept. */\n",
                      udfkit_kernel_template_name(e->tpl), e->c_name);
    input_struct(prefix, e, out);
    input_load4(prefix, e, out);
    udfkit_buf_printf(out, "__device__ __forceinline__ bool %s_keep(unsigned long long i, const %s_in &x)\n{\n", prefix,
                      prefix);
    if (nullable)
        validity(e, "return false;", out);
    if (e->fn->sig.ret.nullable) {
        udfkit_buf_printf(out, "    bool result = false;\n    const bool known = ::%s(&result, ", e->c_name);
        call_args(e, out);
        udfkit_buf_puts(out, ");\n    const bool keep = known && result;\n");
    } else {
        udfkit_buf_printf(out, "    const bool keep = ::%s(", e->c_name);
        call_args(e, out);
        udfkit_buf_puts(out, ");\n");
    }
    udfkit_buf_puts(out, "    return keep;\n}\n");
}

/* The call of a nullable_map's UDF, setting r->r<j> and r->valid. */
static void map_call(const udfkit_kernel_entry *e, udfkit_buf *out)
{
    const udfkit_signature *s = &e->fn->sig;
    if (!UDFKIT_MAP_HAS_OUTPUTS(s)) {
        if (udfkit_kind_info(s->ret.kind)->result_out) {
            /* A result through an out-parameter (a string's builder, a decimal128): r1; the
             * function returns void (bool: valid). */
            udfkit_buf_printf(out, s->ret.nullable ? "    r->valid = ::%s(&r->r1, " : "    ::%s(&r->r1, ", e->c_name);
            call_args(e, out);
            udfkit_buf_puts(out, s->ret.nullable ? ") ? 1u : 0u;\n" : ");\n    r->valid = 1u;\n");
        } else if (s->ret.nullable) {
            udfkit_buf_printf(out, "    r->valid = ::%s(&r->r1, ", e->c_name);
            call_args(e, out);
            udfkit_buf_puts(out, ") ? 1u : 0u;\n");
        } else {
            udfkit_buf_printf(out, "    r->r1 = ::%s(", e->c_name);
            call_args(e, out);
            udfkit_buf_puts(out, ");\n    r->valid = 1u;\n");
        }
        return;
    }
    /* A T* output is valid where the UDF runs; a T?* output where the UDF says so. */
    size_t k = udfkit_rows_output_count(e);
    for (size_t j = 0; j < k; j++)
        udfkit_buf_printf(out, "    bool w%zu = %s;\n", j + 1, output_type(e, j).nullable ? "false" : "true");
    udfkit_buf_printf(out, "    ::%s(", e->c_name);
    call_args(e, out);
    for (size_t j = 0; j < k; j++) {
        udfkit_buf_printf(out, ", &r->r%zu", j + 1);
        if (output_type(e, j).nullable)
            udfkit_buf_printf(out, ", &w%zu", j + 1);
    }
    udfkit_buf_puts(out, ");\n    r->valid = ");
    for (size_t j = 0; j < k; j++)
        udfkit_buf_printf(out, "%s(w%zu ? %uu : 0u)", j ? " | " : "", j + 1, 1u << j);
    udfkit_buf_puts(out, ";\n");
}

/* The names of a string output's columns: "out_offsets" ("out<j>_offsets"), ... */
static void text_column(const udfkit_kernel_entry *e, size_t j, const char *what, udfkit_buf *out)
{
    output_name(e, j, out);
    udfkit_buf_printf(out, "_%s", what);
}

void udfkit_rows_text_sizes(const udfkit_kernel_entry *e, const char *off, bool pointers, udfkit_buf *out)
{
    for (size_t j = 0; j < udfkit_rows_output_count(e); j++) {
        if (!udfkit_rows_output_text(e, j))
            continue;
        udfkit_buf_printf(out, "%s%s%s", out->size ? ", " : "", off ? off : "", off ? " *" : pointers ? "&" : "");
        text_column(e, j, "offsets", out);
    }
}

void udfkit_rows_text_cast(const udfkit_kernel_entry *e, const char *off, bool places, udfkit_buf *out)
{
    for (size_t j = 0; j < udfkit_rows_output_count(e); j++) {
        if (!udfkit_rows_output_text(e, j))
            continue;
        udfkit_buf_printf(out, "%s(%s%s *)", out->size ? ", " : "", places ? "const " : "", off);
        text_column(e, j, "offsets", out);
        if (places) {
            udfkit_buf_puts(out, ", ");
            text_column(e, j, "chars", out);
        }
    }
}

void udfkit_rows_text_outputs(const udfkit_kernel_entry *e, bool cuda, const char *off, udfkit_buf *out)
{
    bool bits = udfkit_rows_nullable(e->tpl);
    for (size_t j = 0; j < udfkit_rows_output_count(e); j++) {
        udfkit_buf_puts(out, j ? ", " : "");
        if (udfkit_rows_output_text(e, j)) {
            udfkit_buf_printf(out, "const %s *", off);
            text_column(e, j, "offsets", out);
            udfkit_buf_puts(out, ", char *");
            text_column(e, j, "chars", out);
        } else {
            column_type(output_type(e, j), cuda, out);
            udfkit_buf_puts(out, " *");
            output_name(e, j, out);
        }
        if (bits) {
            udfkit_buf_printf(out, ", %s *", cuda ? "unsigned char" : "uint8_t");
            output_name(e, j, out);
            udfkit_buf_puts(out, "_bits");
        }
    }
}

void udfkit_rows_text_output_args(const udfkit_kernel_entry *e, int which, udfkit_buf *out)
{
    bool bits = udfkit_rows_nullable(e->tpl);
    const char *amp = which == UDFKIT_ROWS_POINTERS ? "&" : "";
    for (size_t j = 0; j < udfkit_rows_output_count(e); j++) {
        bool text = udfkit_rows_output_text(e, j);
        if (which == UDFKIT_ROWS_STORED && text)
            continue;
        if (which == UDFKIT_ROWS_STORED) {
            output_name(e, j, out);
            udfkit_buf_puts(out, ", ");
            continue;
        }
        udfkit_buf_printf(out, "%s%s", out->size ? ", " : "", amp);
        if (text) {
            text_column(e, j, "offsets", out);
            udfkit_buf_printf(out, ", %s", amp);
            text_column(e, j, "chars", out);
        } else {
            output_name(e, j, out);
        }
        if (bits) {
            udfkit_buf_printf(out, ", %s", amp);
            output_name(e, j, out);
            udfkit_buf_puts(out, "_bits");
        }
    }
}

/* The row functions of string results (the two launches): _measure (pass 1's builders, which
 * count bytes), _sizes (a row's result sizes, 0 where null, into the offsets), _sizes_end
 * (0 after the last row), _place (pass 2's builders, each at its row's place), _check (a
 * result that does not fill its place fails the row). OFF: the offsets' type. */
static void text_functions(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    size_t k = udfkit_rows_output_count(e);
    udfkit_buf sizes = UDFKIT_BUF_INIT, places = UDFKIT_BUF_INIT;
    for (size_t j = 0; j < k; j++)
        if (udfkit_rows_output_text(e, j)) {
            udfkit_buf_printf(&sizes, "%sOFF *o%zu", sizes.size ? ", " : "", j + 1);
            udfkit_buf_printf(&places, "%sconst OFF *o%zu, char *c%zu", places.size ? ", " : "", j + 1, j + 1);
        }
    udfkit_buf_printf(out, "__device__ __forceinline__ void %s_measure(%s_row *r)\n{\n", prefix, prefix);
    for (size_t j = 0; j < k; j++)
        if (udfkit_rows_output_text(e, j))
            udfkit_buf_printf(out, "    r->r%zu = udfkit_string_out{nullptr, 0, 0, 0};\n", j + 1);
    udfkit_buf_printf(out, "}\n\ntemplate <class OFF>\n__device__ __forceinline__ void %s_sizes(unsigned long long i, %s, "
                           "const %s_row *r)\n{\n", prefix, sizes.data, prefix);
    for (size_t j = 0; j < k; j++)
        if (udfkit_rows_output_text(e, j))
            udfkit_buf_printf(out, "    o%zu[i] = (r->valid >> %zuu) & 1u ? udfkit_detail::text_size<OFF>(r->r%zu.size) : 0;\n",
                              j + 1, j, j + 1);
    udfkit_buf_printf(out, "}\n\ntemplate <class OFF>\n__device__ __forceinline__ void %s_sizes_end(unsigned long long n, %s)\n{\n",
                      prefix, sizes.data);
    for (size_t j = 0; j < k; j++)
        if (udfkit_rows_output_text(e, j))
            udfkit_buf_printf(out, "    o%zu[n] = 0;\n", j + 1);
    udfkit_buf_printf(out, "}\n\ntemplate <class OFF>\n__device__ __forceinline__ void %s_place(unsigned long long i, %s, "
                           "%s_row *r)\n{\n", prefix, places.data, prefix);
    for (size_t j = 0; j < k; j++)
        if (udfkit_rows_output_text(e, j))
            udfkit_buf_printf(out, "    r->r%zu = udfkit_string_out{c%zu + o%zu[i], 0, (long long)o%zu[i + 1] - o%zu[i], 0};\n",
                              j + 1, j + 1, j + 1, j + 1, j + 1);
    udfkit_buf_printf(out, "}\n\n__device__ __forceinline__ void %s_check(unsigned long long i, const %s_row *r)\n{\n", prefix,
                      prefix);
    for (size_t j = 0; j < k; j++)
        if (udfkit_rows_output_text(e, j))
            udfkit_buf_printf(out,
                              "    if (((r->valid >> %zuu) & 1u) && (r->r%zu.overflowed || r->r%zu.size != r->r%zu.capacity))\n"
                              "        udfkit_detail::record_error(i, UDFKIT_ROW_ERROR_STRING_CHANGED);\n",
                              j, j + 1, j + 1, j + 1);
    udfkit_buf_puts(out, "}\n\n");
    udfkit_buf_free(&sizes);
    udfkit_buf_free(&places);
}

void udfkit_rows_map_functions(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    size_t k = udfkit_rows_output_count(e);
    udfkit_buf_printf(out, "\n/* %s(%s%s): one row's inputs, its outputs and their validity (bit j: output j + 1). */\n",
                      udfkit_kernel_template_name(e->tpl), e->c_name, e->nullify ? ", nullify" : "");
    udfkit_buf_printf(out, "struct %s_row {\n", prefix);
    for (size_t j = 0; j < k; j++) {
        udfkit_buf_puts(out, "    ");
        /* A string result's builder, placed by the kernel before each call. */
        if (udfkit_rows_output_text(e, j))
            udfkit_buf_puts(out, "udfkit_string_out");
        else
            column_type(output_type(e, j), true, out);
        udfkit_buf_printf(out, " r%zu;\n", j + 1);
    }
    udfkit_buf_puts(out, "    unsigned valid;\n};\n\n");
    input_struct(prefix, e, out);
    input_load4(prefix, e, out);
    /* check: whether a failure of the row is looked for here (a map's bulk path looks once
     * for all of a thread's rows of a tile, and calls again only where one failed). */
    udfkit_buf_printf(out,
                      "__device__ __forceinline__ void %s_compute(unsigned long long i, const %s_in &x, %s_row *r, "
                      "bool check = true)\n{\n",
                      prefix, prefix, prefix);
    for (size_t j = 0; j < k; j++)
        if (!udfkit_rows_output_text(e, j))
            udfkit_buf_printf(out, "    r->r%zu = {};\n", j + 1);
    udfkit_buf_puts(out, "    r->valid = 0u;\n");
    if (udfkit_rows_nullable(e->tpl))
        validity(e, "return;", out);
    map_call(e, out);
    udfkit_buf_printf(out, "    if (check && udfkit_detail::row_failed(i, %s))\n        r->valid = 0u;\n}\n\n",
                      e->nullify ? "true" : "false");
    /* _store (one row) and _store4 (rows i..i+3, a vector store per column where aligned), of
     * the outputs that are values (a string result is built in place). */
    for (int four = 0; four < 2; four++) {
        udfkit_buf_printf(out, "__device__ __forceinline__ void %s_store%s(unsigned long long i, ", prefix, four ? "4" : "");
        for (size_t j = 0; j < k; j++) {
            if (udfkit_rows_output_text(e, j))
                continue;
            column_type(output_type(e, j), true, out);
            udfkit_buf_printf(out, " *o%zu, ", j + 1);
        }
        udfkit_buf_printf(out, "const %s_row *r)\n{\n", prefix);
        for (size_t j = 0; j < k; j++) {
            if (udfkit_rows_output_text(e, j))
                continue;
            if (!four) {
                udfkit_buf_printf(out, "    o%zu[i] = r->r%zu;\n", j + 1, j + 1);
                continue;
            }
            udfkit_buf_puts(out, "    {\n        const ");
            column_type(output_type(e, j), true, out);
            udfkit_buf_printf(out, " v[4] = {r[0].r%zu, r[1].r%zu, r[2].r%zu, r[3].r%zu};\n", j + 1, j + 1, j + 1, j + 1);
            udfkit_buf_printf(out, "        udfkit_detail::store4(o%zu, i, v);\n    }\n", j + 1);
        }
        udfkit_buf_puts(out, udfkit_rows_text_results(e) ? "    (void)i, (void)r;\n}\n\n" : "}\n\n");
    }
    if (udfkit_rows_text_results(e))
        text_functions(prefix, e, out);
}

void udfkit_rows_call_wrapper(const udfkit_spec *fn, const char *name, udfkit_buf *out)
{
    const udfkit_signature *s = &fn->sig;
    bool through_out = udfkit_kind_info(s->ret.kind)->result_out;
    udfkit_buf_printf(out, "\n/* %s as the templates call it: its values through its C ABI. */\n__device__ __forceinline__ ",
                      fn->c_name);
    column_type(s->ret, true, out);
    udfkit_buf_printf(out, " %s(", name);
    for (size_t i = 0; i < s->nparams; i++) {
        udfkit_buf_puts(out, i ? ", const " : "const ");
        column_type(s->params[i], true, out);
        udfkit_buf_printf(out, " &p%zu", i);
    }
    udfkit_buf_puts(out, ")\n{\n    ");
    if (through_out) {
        column_type(s->ret, true, out);
        udfkit_buf_printf(out, " r;\n    ::%s(&r", fn->c_name);
    } else {
        udfkit_buf_printf(out, "return ::%s(", fn->c_name);
    }
    for (size_t i = 0; i < s->nparams; i++) {
        const udfkit_kind_row *row = udfkit_kind_info(s->params[i].kind);
        char x[32];
        snprintf(x, sizeof x, "p%zu", i);
        udfkit_buf_puts(out, i || through_out ? ", " : "");
        for (unsigned p = 0; row->parts && p < row->c_params; p++) {
            udfkit_buf_puts(out, p ? ", " : "");
            udfkit_buf_printf(out, row->parts[p].arg, x);
        }
        if (!row->parts)
            udfkit_buf_puts(out, x);
    }
    udfkit_buf_puts(out, through_out ? ");\n    return r;\n}\n" : ");\n}\n");
}

void udfkit_rows_filter_outputs(const udfkit_kernel_entry *e, bool cuda, udfkit_buf *out)
{
    if (e->filter_out != UDFKIT_FILTER_VALUES) {
        bool wide = e->filter_out == UDFKIT_FILTER_INDICES;
        udfkit_buf_puts(out, cuda ? (wide ? "unsigned long long *indices" : "unsigned *indices")
                                  : (wide ? "uint64_t *indices" : "uint32_t *indices"));
        return;
    }
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        udfkit_buf_puts(out, i ? ", " : "");
        column_type(e->fn->sig.params[i], cuda, out);
        udfkit_buf_printf(out, " *out%zu", i + 1);
    }
}

void udfkit_rows_filter_output_args(const udfkit_kernel_entry *e, udfkit_buf *out)
{
    if (e->filter_out != UDFKIT_FILTER_VALUES) {
        udfkit_buf_puts(out, "&indices");
        return;
    }
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++)
        udfkit_buf_printf(out, "%s&out%zu", i ? ", " : "", i + 1);
}

/* A struct's column pointers, one per input: "    [const ]T *<name><i>;" (CUDA spelling). */
static void column_members(const udfkit_kernel_entry *e, bool is_const, const char *name, udfkit_buf *out)
{
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        udfkit_buf_puts(out, "    ");
        column_param(e->fn->sig.params[i], true, is_const, name, i + 1, out);
        udfkit_buf_puts(out, ";\n");
    }
}

void udfkit_rows_gather(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    size_t n = udfkit_rows_input_count(e);
    udfkit_buf_printf(out,
                      "\n/* filter(%s, values): what the agent writes kept row numbers through; writing row r\n"
                      " * at position pos copies every input's row r to its output's pos. */\n"
                      "struct %s_gather {\n",
                      e->c_name, prefix);
    column_members(e, true, "a", out);
    column_members(e, false, "out", out);
    udfkit_buf_printf(out,
                      "    unsigned long long pos;\n"
                      "    __device__ __forceinline__ %s_gather operator+(unsigned long long d) const\n"
                      "    {\n        %s_gather g = *this;\n        g.pos += d;\n        return g;\n    }\n"
                      "    __device__ __forceinline__ const %s_gather &operator*() const { return *this; }\n"
                      "    __device__ __forceinline__ void operator=(unsigned long long r) const\n    {\n",
                      prefix, prefix, prefix);
    for (size_t i = 0; i < n; i++)
        udfkit_buf_printf(out, "        out%zu[pos] = a%zu[r];\n", i + 1, i + 1);
    udfkit_buf_puts(out, "    }\n};\n");
}

void udfkit_rows_gather_init(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    size_t n = udfkit_rows_input_count(e);
    udfkit_buf_printf(out, "%s_gather{", prefix);
    for (size_t i = 0; i < n; i++)
        udfkit_buf_printf(out, "a%zu, ", i + 1);
    for (size_t i = 0; i < n; i++)
        udfkit_buf_printf(out, "out%zu, ", i + 1);
    udfkit_buf_puts(out, "0}");
}

void udfkit_rows_stencil(const char *prefix, const char *row_t, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    size_t n = udfkit_rows_input_count(e);
    udfkit_buf_printf(out,
                      "\n/* filter(%s)'s stencil: a row's inputs and its number, loaded for all of a thread's rows\n"
                      " * of a tile before %s runs on any (so that the loads are in flight together). */\n"
                      "struct %s_item {\n    %s_in x;\n    %s row;\n};\n"
                      "struct %s_stencil {\n"
                      "    typedef %s_item value_type;\n    typedef long long difference_type;\n"
                      "    typedef const %s_item *pointer;\n    typedef %s_item reference;\n"
                      "    typedef ::cuda::std::random_access_iterator_tag iterator_category;\n",
                      e->c_name, e->c_name, prefix, prefix, row_t, prefix, prefix, prefix, prefix);
    column_members(e, true, "a", out);
    udfkit_buf_printf(out,
                      "    unsigned long long first;\n"
                      "    __device__ __forceinline__ %s_item operator[](difference_type i) const\n    {\n"
                      "        %s_item it;\n        it.row = (%s)(first + (unsigned long long)i);\n        %s_load(it.row, ",
                      prefix, prefix, row_t, prefix);
    for (size_t i = 0; i < n; i++)
        udfkit_buf_printf(out, "a%zu, ", i + 1);
    udfkit_buf_printf(out,
                      "&it.x);\n        return it;\n    }\n"
                      "    __device__ __forceinline__ %s_item operator*() const { return (*this)[0]; }\n"
                      "    __device__ __forceinline__ %s_stencil operator+(difference_type d) const\n    {\n"
                      "        %s_stencil s = *this;\n        s.first += (unsigned long long)d;\n        return s;\n    }\n"
                      "};\n",
                      prefix, prefix, prefix);
}

void udfkit_rows_stencil_init(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    udfkit_buf_printf(out, "%s_stencil{", prefix);
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++)
        udfkit_buf_printf(out, "a%zu, ", i + 1);
    udfkit_buf_puts(out, "0}");
}

void udfkit_rows_map_staged(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out, size_t *row_bytes)
{
    size_t inputs = udfkit_rows_input_count(e);
    bool ok = true;
    for (size_t i = 0; i < inputs; i++)
        ok &= fixed_size(e->fn->sig.params[i]);
    *row_bytes = 0;
    /* Columns of values of any size (strings) are read from global memory, never staged: ok
     * says so to the kernel, which then takes the direct path for every tile. */
    udfkit_buf_printf(out, "/* %s(%s): a tile of its inputs' values in shared memory. */\nstruct %s_staged {\n",
                      udfkit_kernel_template_name(e->tpl), e->c_name, prefix);
    udfkit_buf_printf(out, "    static constexpr bool ok = %s;\n    const char *base[%zu];\n\n", ok ? "true" : "false", inputs);
    udfkit_buf_puts(out, "    __device__ __forceinline__ unsigned stage(char *smem, unsigned long long begin, unsigned stride, ");
    udfkit_rows_inputs(e, true, out);
    udfkit_buf_puts(out, ok ? ", bool issue, unsigned long long *bar)\n    {\n        unsigned at = 0, bytes = 0;\n"
                            : ", bool issue, unsigned long long *bar)\n    {\n        unsigned bytes = 0;\n");
    for (size_t i = 0; ok && i < inputs; i++) {
        size_t size = udfkit_kind_size(e->fn->sig.params[i].kind);
        *row_bytes += size;
        udfkit_buf_printf(out,
                          "        bytes += udfkit_detail::stage_column(smem, &at, a%zu + begin, %zuu * stride, issue, bar, "
                          "&base[%zu]);\n",
                          i + 1, size, i);
    }
    if (!ok)
        udfkit_buf_puts(out, "        (void)smem, (void)begin, (void)stride, (void)issue, (void)bar;\n");
    udfkit_buf_printf(out, "        return bytes;\n    }\n\n    __device__ __forceinline__ void load(unsigned t, %s_in *x) const\n    {\n",
                      prefix);
    for (size_t i = 0; ok && i < inputs; i++) {
        udfkit_buf_printf(out, "        x->a%zu = reinterpret_cast<const ", i + 1);
        column_type(e->fn->sig.params[i], true, out);
        udfkit_buf_printf(out, " *>(base[%zu])[t];\n", i);
    }
    if (!ok)
        udfkit_buf_puts(out, "        (void)t, (void)x;\n");
    udfkit_buf_puts(out, "    }\n");
    udfkit_buf_puts(out, "};\n\n");
}
