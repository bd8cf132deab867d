#include "codegen/arrow_gen.h"

#include "base/template.h"
#include "base/templates.h"
#include "base/types.h"
#include "codegen/kernel_rows.h"

#include <stdio.h>
#include <string.h>

bool udfkit_arrow_entry(const udfkit_kernel_entry *e)
{
    if (e->tpl == UDFKIT_KERNEL_FILTER)
        return true;
    return e->tpl == UDFKIT_KERNEL_MAP || e->tpl == UDFKIT_KERNEL_NULLABLE_MAP;
}

/* Column i of the entry: its inputs, then its outputs (a map's result, or the UDF's output
 * parameters). */
/* A filter's outputs are its inputs' kept rows. */
static size_t output_count(const udfkit_kernel_entry *e)
{
    return e->tpl == UDFKIT_KERNEL_FILTER ? udfkit_rows_input_count(e) : udfkit_rows_output_count(e);
}

static size_t column_count(const udfkit_kernel_entry *e)
{
    return udfkit_rows_input_count(e) + output_count(e);
}

static udfkit_type column_type(const udfkit_kernel_entry *e, size_t i)
{
    const udfkit_signature *s = &e->fn->sig;
    size_t inputs = udfkit_rows_input_count(e);
    if (e->tpl == UDFKIT_KERNEL_FILTER)
        return udfkit_type_value(s->params[i % inputs]);
    if (i < inputs || UDFKIT_MAP_HAS_OUTPUTS(s))
        return udfkit_type_value(s->params[i]);
    return udfkit_type_value(s->ret);
}

bool udfkit_arrow_has_bools(const udfkit_kernel_entry *e)
{
    for (size_t i = 0; i < column_count(e); i++)
        if (column_type(e, i).kind == UDFKIT_BOOL)
            return true;
    return false;
}

/* One row of a launcher's udfkit_arrow_type table: {"f", "float32", UDFKIT_ARROW_FIXED, 4}. A
 * string input takes any of Arrow's three layouts ("u" stands for them); a string result (a
 * map's, or a filter's kept strings) is large_utf8 ("U"), its offsets as the sizes launch
 * writes them. */
static void type_row(udfkit_type t, bool result, udfkit_buf *out)
{
    udfkit_buf format = UDFKIT_BUF_INIT, name = UDFKIT_BUF_INIT;
    if (result && (udfkit_kind_info(t.kind)->flags & UDFKIT_KIND_TEXT))
        udfkit_buf_puts(&format, "U");
    else
        udfkit_type_arrow(t, &format);
    t.nullable = false;
    udfkit_type_name(t, &name);
    const unsigned flags = udfkit_kind_info(t.kind)->flags;
    const char *layout = t.kind == UDFKIT_BOOL            ? "UDFKIT_ARROW_BOOLEAN"
                         : (flags & UDFKIT_KIND_TEXT) ? "UDFKIT_ARROW_STRING"
                                                      : "UDFKIT_ARROW_FIXED";
    udfkit_buf_printf(out, "        {\"%s\", \"%s\", %s, %zu},\n", format.data ? format.data : "", name.data, layout,
                      udfkit_kind_size(t.kind));
    udfkit_buf_free(&format);
    udfkit_buf_free(&name);
}

/* How a raw launcher is called (raw_call). */
enum { CALL_VALUES, CALL_SIZES, CALL_TEXT };

/* The raw launcher's call on the call's columns, with bitmaps (nullable_map, nullable_filter)
 * or without; a filter's writes the kept rows' numbers and their count; a string result's
 * two launches write its offsets (CALL_SIZES), then its bytes (CALL_TEXT). */
static void raw_call(const udfkit_kernel_entry *e, const char *launcher, const char *self, bool masks, int how,
                     udfkit_buf *out)
{
    bool filter = e->tpl == UDFKIT_KERNEL_FILTER;
    size_t inputs = udfkit_rows_input_count(e), outputs = filter ? 0 : udfkit_rows_output_count(e);
    udfkit_buf_printf(out, "%s%s(%s%ss, c.n", launcher, how == CALL_SIZES ? "_sizes" : "", self ? self : "",
                      self ? ", " : "");
    for (size_t i = 0; i < inputs; i++) {
        bool text = udfkit_kind_info(column_type(e, i).kind)->flags & UDFKIT_KIND_TEXT;
        udfkit_buf_printf(out, text ? ", c.strings[%zu]" : ", c.values[%zu]", i);
        if (masks)
            udfkit_buf_printf(out, ", c.masks[%zu]", i);
    }
    /* The sizes launch takes each string output's offsets; the second launch each output, a
     * string one as its offsets and bytes. */
    for (size_t j = 0; j < outputs; j++) {
        bool text = udfkit_kind_info(column_type(e, inputs + j).kind)->flags & UDFKIT_KIND_TEXT;
        if (how == CALL_SIZES) {
            if (text)
                udfkit_buf_printf(out, ", c.out_offsets[%zu]", j);
            continue;
        }
        if (how == CALL_TEXT && text)
            udfkit_buf_printf(out, ", c.out_offsets[%zu], c.out_chars[%zu]", j, j);
        else
            udfkit_buf_printf(out, ", c.out_values[%zu]", j);
        if (masks)
            udfkit_buf_printf(out, ", c.out_bits[%zu]", j);
    }
    if (how == CALL_SIZES) {
        udfkit_buf_puts(out, ")");
        return;
    }
    udfkit_buf_puts(out, filter ? ", c.indices, c.count)" : masks ? ", NULL)" : ")");
}

/* filter(p, values)'s launcher on the call's columns: each input's kept rows' values into its
 * output, their number into c.count. */
static void values_call(const udfkit_kernel_entry *e, const char *values, const char *self, udfkit_buf *out)
{
    const size_t inputs = udfkit_rows_input_count(e);
    udfkit_buf_printf(out, "%s(%s%ss, c.n", values, self ? self : "", self ? ", " : "");
    for (size_t i = 0; i < inputs; i++)
        udfkit_buf_printf(out, ", c.values[%zu]", i);
    for (size_t j = 0; j < inputs; j++)
        udfkit_buf_printf(out, ", c.out_values[%zu]", j);
    udfkit_buf_puts(out, ", c.count)");
}

/* The launch: the raw launcher (nullable_map's), or where inputs have nulls the masked one; a
 * filter's without string columns selects the values where udfkit_arrow_begin_filter left no
 * room for row numbers (no input has nulls), else the rows through the masked one. */
static void launch_call(const udfkit_kernel_entry *e, const char *raw, const char *masked, const char *values,
                        const char *self, int how, udfkit_buf *out)
{
    if (values) {
        udfkit_buf_puts(out, "c.indices ? ");
        raw_call(e, masked, self, true, how, out);
        udfkit_buf_puts(out, "\n                      : ");
        values_call(e, values, self, out);
    } else if (e->tpl == UDFKIT_KERNEL_NULLABLE_MAP) {
        raw_call(e, raw, self, true, how, out);
    } else if (e->tpl == UDFKIT_KERNEL_FILTER && e->word) {
        /* filter(p, indices32) and filter(p, values) write other outputs: their _arrow
         * launchers select through the nullable_filter launcher, with or without nulls. */
        raw_call(e, masked, self, true, how, out);
    } else {
        udfkit_buf_puts(out, "c.masked ? ");
        raw_call(e, masked, self, true, how, out);
        udfkit_buf_puts(out, "\n                   : ");
        raw_call(e, raw, self, false, how, out);
    }
}

udfkit_rc udfkit_arrow_render(const char *lib, const udfkit_kernel_entry *e, const char *raw, const char *masked,
                              const char *values, const char *bits_index, bool slotted, udfkit_buf *decls,
                              udfkit_buf *defs)
{
    /* A SLOTS library's launchers, and its kernels' lookups, take the bound instance. */
    const char *self = slotted ? "inst" : NULL, *lookup = slotted ? "inst" : "NULL";
    const bool filter = e->tpl == UDFKIT_KERNEL_FILTER;
    size_t inputs = udfkit_rows_input_count(e), outputs = output_count(e);
    udfkit_buf proto = UDFKIT_BUF_INIT, in_types = UDFKIT_BUF_INIT, out_types = UDFKIT_BUF_INIT,
               in_arrays = UDFKIT_BUF_INIT, in_schemas = UDFKIT_BUF_INIT, out_arrays = UDFKIT_BUF_INIT,
               out_schemas = UDFKIT_BUF_INIT, call = UDFKIT_BUF_INIT, bits = UDFKIT_BUF_INIT, name = UDFKIT_BUF_INIT,
               sig = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&name, "%s_arrow", raw);
    if (slotted)
        udfkit_buf_printf(&proto, "udfkit_status %s(%s_instance *inst, udfkit_stream s", name.data, lib);
    else
        udfkit_buf_printf(&proto, "udfkit_status %s(udfkit_stream s", name.data);
    for (size_t i = 0; i < inputs; i++) {
        udfkit_buf_printf(&proto, ", const struct ArrowDeviceArray *a%zu, const struct ArrowSchema *t%zu", i + 1, i + 1);
        type_row(column_type(e, i), false, &in_types);
        udfkit_buf_printf(&in_arrays, "%sa%zu", i ? ", " : "", i + 1);
        udfkit_buf_printf(&in_schemas, "%st%zu", i ? ", " : "", i + 1);
    }
    for (size_t j = 0; j < outputs; j++) {
        char arr[32], sch[32];
        snprintf(arr, sizeof arr, outputs == 1 && !filter ? "out" : "out%zu", j + 1);
        snprintf(sch, sizeof sch, outputs == 1 && !filter ? "out_type" : "out_type%zu", j + 1);
        udfkit_buf_printf(&proto, ", struct ArrowDeviceArray *%s, struct ArrowSchema *%s", arr, sch);
        type_row(column_type(e, inputs + j), true, &out_types);
        udfkit_buf_printf(&out_arrays, "%s%s", j ? ", " : "", arr);
        udfkit_buf_printf(&out_schemas, "%s%s", j ? ", " : "", sch);
    }
    udfkit_buf_puts(&proto, ")");
    bool nullable = e->tpl == UDFKIT_KERNEL_NULLABLE_MAP, bools = udfkit_arrow_has_bools(e);
    if (udfkit_rows_text_results(e)) {
        /* A string result in two launches: its offsets, then (once udfkit_arrow_text has read
         * their total and allocated the bytes) its bytes. */
        launch_call(e, raw, masked, NULL, self, CALL_SIZES, &call);
        udfkit_buf_puts(&call, ";\n    if (!st)\n        st = udfkit_arrow_text(&c);\n    if (!st)\n        st = ");
        launch_call(e, raw, masked, NULL, self, CALL_TEXT, &call);
    } else {
        launch_call(e, raw, masked, values, self, CALL_VALUES, &call);
    }
    if (bools)
        udfkit_buf_printf(&bits,
                          "    /* Arrow's bit-packed booleans to udfkit's byte columns and back (arrow_bits.cu.in). */\n"
                          "    udfkit_kernel unpack = NULL, pack = NULL;\n"
                          "    st = udfkit_%s_kernel(%s, %s, &unpack);\n"
                          "    if (!st)\n        st = udfkit_%s_kernel(%s, %s + 1, &pack);\n"
                          "    if (!st)\n        st = udfkit_arrow_unpack(&c, unpack, in);\n",
                          lib, lookup, bits_index, lib, lookup, bits_index);
    /* A filter that selected row numbers gathers each input's kept rows after its launch; a
     * string column's as a large_utf8 column: the kept rows' sizes, their offsets (the library's
     * offsets scan over n + 1 entries), then the bytes, once udfkit_arrow_text has read their
     * total. */
    if (filter)
        udfkit_buf_printf(&call,
                          ";\n    udfkit_kernel gather = NULL;\n    if (!st%s)\n        st = udfkit_%s_kernel(%s, %s + 2, "
                          "&gather);\n    if (!st%s)\n        st = udfkit_arrow_gather(&c, gather)",
                          values ? " && c.indices" : "", lib, lookup, bits_index, values ? " && c.indices" : "");
    if (filter && udfkit_signature_has(&e->fn->sig, UDFKIT_KIND_TEXT)) {
        udfkit_buf_printf(&call,
                          ";\n    udfkit_kernel text_sizes = NULL, text_copy = NULL;\n    if (!st)\n        st = "
                          "udfkit_%s_kernel(%s, %s + 3, &text_sizes);\n    if (!st)\n        st = udfkit_%s_kernel(%s, "
                          "%s + 4, &text_copy);\n    if (!st)\n        st = udfkit_arrow_gather_sizes(&c, text_sizes)",
                          lib, lookup, bits_index, lib, lookup, bits_index);
        for (size_t i = 0; i < inputs; i++)
            if (udfkit_kind_info(column_type(e, i).kind)->flags & UDFKIT_KIND_TEXT)
                udfkit_buf_printf(&call, ";\n    if (!st)\n        st = udfkit_%s_offsets(%s, s, c.n, c.out_offsets[%zu], 1)",
                                  lib, lookup, i);
        udfkit_buf_puts(&call, ";\n    if (!st)\n        st = udfkit_arrow_text(&c);\n    if (!st)\n        st = "
                               "udfkit_arrow_gather_copy(&c, text_copy)");
    }
    char nin[16], nout[16];
    snprintf(nin, sizeof nin, "%zu", inputs);
    snprintf(nout, sizeof nout, "%zu", outputs);
    const udfkit_template_var vars[] = {
        {"PROTOTYPE", proto.data},     {"IN_TYPES", in_types.data},       {"OUT_TYPES", out_types.data},
        {"IN_ARRAYS", in_arrays.data}, {"IN_SCHEMAS", in_schemas.data},   {"OUT_ARRAYS", out_arrays.data},
        {"OUT_SCHEMAS", out_schemas.data}, {"LAUNCHER", name.data},       {"NIN", nin},
        {"NOUT", nout},
        {"BEGIN", filter ? "udfkit_arrow_begin_filter" : "udfkit_arrow_begin"},
        {"MODE", filter ? "" : nullable ? ", true, false" : ", false, false"},
        {"BITS", bits.data ? bits.data : ""}, {"RAW_CALL", call.data},    {"PACK", bools ? "pack" : "NULL"},
    };
    udfkit_rc rc = udfkit_template_render(udfkit_tpl_launcher_arrow, vars, sizeof vars / sizeof *vars, defs);
    udfkit_signature_format(&e->fn->sig, &sig);
    if (filter)
        udfkit_buf_printf(decls,
                          "\n/* %s over Arrow device arrays (docs/arrow.md): %s's columns as Arrow arrays a1, ... with\n"
                          " * their schemas t1, ..., of the UDF's types %s; the rows where %s holds (a row\n"
                          " * with a null input is dropped) as new arrays out1, out_type1, ..., one per input, of\n"
                          " * its type and without nulls, which the caller releases. Waits for the inputs' sync\n"
                          " * events on s, then for s itself once the rows are counted (Arrow's length is a host\n"
                          " * number). A wrong type, device, length or layout is UDFKIT_ERROR_INVALID_ARGUMENT\n"
                          " * naming the argument, before anything is queued. */\n%s;\n",
                          raw, e->c_name, sig.data, e->c_name, proto.data);
    else
        udfkit_buf_printf(decls,
                          "\n/* %s over Arrow device arrays (docs/arrow.md): %s's columns as Arrow arrays a1, ... with\n"
                          " * their schemas t1, ..., of the UDF's types %s; the result%s as new arrays with\n"
                          " * their schemas, which the caller releases. %s\n"
                          " * Waits for the inputs' sync events on s; the results' sync_event is recorded on s after\n"
                          " * the work. A wrong type, device, length or layout is UDFKIT_ERROR_INVALID_ARGUMENT\n"
                          " * naming the argument, before anything is queued. */\n%s;\n",
                          raw, e->c_name, sig.data, outputs > 1 ? "s" : "",
                          nullable ? "Nulls as nullable_map's launcher takes them."
                                   : "A row with a null input is null (f is not called for it).",
                          proto.data);
    udfkit_buf *bufs[] = {&proto, &in_types, &out_types, &in_arrays, &in_schemas, &out_arrays,
                          &out_schemas, &call, &bits, &name, &sig};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        udfkit_buf_free(bufs[i]);
    return rc;
}
