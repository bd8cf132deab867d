#include "codegen/kernel_gen.h"

#include "artifact/manifest.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/strset.h"
#include "base/templates.h"
#include "base/types.h"
#include "codegen/arrow_gen.h"
#include "codegen/kernel_rows.h"
#include "base/template.h"
#include "frontend/exporter.h"

/* For UDFKIT_RUNTIME_ABI_VERSION: the launchers check at load that the runtime they are
 * linked with has the ABI they were generated for. */
#include <udfkit/runtime.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "a1[i], a2[i]", and a map's outputs "&out1[i], ...", for the header's words. */
static void element_args(const udfkit_kernel_entry *e, udfkit_buf *out)
{
    size_t inputs = udfkit_rows_input_count(e);
    for (size_t i = 0; i < e->fn->sig.nparams; i++)
        if (i < inputs)
            udfkit_buf_printf(out, "%sa%zu[i]", i ? ", " : "", i + 1);
        else
            udfkit_buf_printf(out, ", &out%zu[i]", i - inputs + 1);
}

/* What the entries add up to, section by section of the generated files. */
typedef struct render_parts {
    const char *name;       /* the library's */
    bool slotted;           /* a SLOTS library: launchers take an instance */
    bool with_arrow;        /* `udfkit kernels --arrow`: `_arrow` launchers (docs/arrow.md) */
    bool arrow_text;        /* and one of a filter over string columns (arrow_text.cu.in) */
    const char *upper;      /* the same in capitals */
    udfkit_buf protos;      /* device prototypes of the UDFs the kernels call */
    udfkit_buf kernels;     /* CUDA C kernels */
    udfkit_buf names;       /* the name table */
    char scan_index[32];    /* the nullable filters' shared scan kernel in the name table, */
    char select_index[32];  /* and the filters' shared init kernel, */
    char offsets_index[32]; /* and the string results' offsets init kernel */
    udfkit_buf markers;     /* machine-readable lines, one per launcher */
    udfkit_buf decls;       /* launcher declarations for the header */
    udfkit_buf launchers;   /* launcher definitions */
    char bits_index[32];    /* the `_arrow` launchers' bit kernels in the name table */
    udfkit_buf arrow;       /* `_arrow` launcher definitions, after every launcher they run */
    const udfkit_kernel_entry *all; /* the entries and the hidden ones (udfkit_kernels_render) */
    size_t nall;
    json_t *units;          /* the link units: each entry's kernels and the UDFs they call */
} render_parts;

/* The hidden nullable_map and nullable_filter entries' names: "<name>_nullable_map_<f>_arrow_masked",
 * apart from any entry's (nullable_map(f, nullify) has nullable_map(f)'s names). */
static const udfkit_template_word arrow_masked = {"", "", "_arrow_masked", NULL, false, UDFKIT_FILTER_INDICES};
/* The hidden filter(p, values) entries' names: "<name>_filter_<p>_arrow_values". */
static const udfkit_template_word arrow_values = {"", "", "_arrow_values", NULL, false, UDFKIT_FILTER_VALUES};

/* The entry over f of template tpl that serves an `_arrow` launcher: for `values`, a filter(p,
 * values), given or hidden; else one given without a word (nullable_map(f, nullify) has other
 * semantics), before a hidden one. NULL where none. */
static const udfkit_kernel_entry *serving_entry(const udfkit_kernel_entry *all, size_t nall, udfkit_kernel_template tpl,
                                                bool values, const char *f)
{
    const udfkit_kernel_entry *serving = NULL;
    for (size_t j = 0; j < nall; j++) {
        const udfkit_kernel_entry *a = &all[j];
        if (a->tpl != tpl || strcmp(a->c_name, f) != 0)
            continue;
        if (values ? !serving && a->filter_out == UDFKIT_FILTER_VALUES
                   : (!a->word || a->hidden) && (!serving || serving->hidden))
            serving = a;
    }
    return serving;
}

/* The launcher of entry `serving` (none where NULL) into out. */
static void launcher_name(const render_parts *r, const udfkit_kernel_entry *serving, udfkit_buf *out)
{
    if (!serving)
        return;
    udfkit_buf_printf(out, "%s_%s_", r->name, udfkit_kernel_entry_row(serving)->name);
    udfkit_kernel_entry_suffix(serving, out);
}

/* The launcher a map's or filter's `_arrow` launcher runs where inputs have nulls: the entry
 * nullable_map(f) or nullable_filter(p) where given, else the hidden one (into out). */
static void masked_launcher(const render_parts *r, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    const udfkit_kernel_template tpl =
        e->tpl == UDFKIT_KERNEL_FILTER ? UDFKIT_KERNEL_NULLABLE_FILTER : UDFKIT_KERNEL_NULLABLE_MAP;
    launcher_name(r, serving_entry(r->all, r->nall, tpl, false, e->c_name), out);
}

/* Whether a filter's `_arrow` launcher selects the kept rows' values with a filter(p, values)
 * launcher where no input has nulls: a filter without string columns (udfkit_arrow_begin_filter
 * allocates no row numbers for it then). */
static bool selects_values(const udfkit_kernel_entry *e)
{
    return e->tpl == UDFKIT_KERNEL_FILTER && !udfkit_signature_has(&e->fn->sig, UDFKIT_KIND_TEXT);
}

/* The filter(p, values) launcher a filter's `_arrow` launcher runs where no input has nulls:
 * the entry's own (filter(p, values)), another entry filter(p, values), else the hidden one. */
static void values_launcher(const render_parts *r, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    launcher_name(r,
                  e->filter_out == UDFKIT_FILTER_VALUES
                      ? e
                      : serving_entry(r->all, r->nall, UDFKIT_KERNEL_FILTER, true, e->c_name),
                  out);
}

/* The UDF's C-ABI prototype for device code (T? as its pair, a string as its parts), once per
 * function. */
static void declare_udf(const udfkit_spec *fn, udfkit_strset *declared, udfkit_buf *protos)
{
    if (!udfkit_strset_add(declared, fn->c_name))
        return;
    udfkit_buf_puts(protos, "__device__ ");
    udfkit_exporter_declaration(&fn->sig, fn->c_name, protos);
    udfkit_buf_puts(protos, ";\n");
}

/* The texts an entry's templates fill in. */
typedef struct entry_texts {
    const char *cuda;    /* the kernel's text: the row's, or one the rows chose */
    udfkit_buf kernel;   /* the kernel's name (the name table adds suffixes) */
    udfkit_buf params;   /* the kernel's input parameters (maps and filters) */
    udfkit_buf args;     /* what the kernels pass to the row functions */
    udfkit_buf dense;    /* nullable_map: the same with every mask empty (filter: its stencil), */
    udfkit_buf no_bits;  /*   and the launcher's test for no input bitmap */
    udfkit_buf ptrs;     /* the launcher's kernel arguments for the inputs */
    udfkit_buf ret;      /* T, the value type, as the C ABI spells it in CUDA */
    udfkit_buf fn;       /* what the kernels call for a row */
    udfkit_buf prefix;   /* maps: the prefix of their row functions */
    udfkit_buf outs;     /* maps: the kernel's output parameters, */
    udfkit_buf out_vals; /*   the value columns, */
    udfkit_buf outs_at;  /*   the same from a tile's first row (map), */
    udfkit_buf bits;     /*   the bitmaps (nullable_map), */
    udfkit_buf out_ptrs; /*   and the launcher's kernel arguments for them */
    udfkit_buf rows;     /* device functions the kernels call, before them */
    udfkit_buf out_iter; /* filter: what the agent writes through, */
    udfkit_buf items;    /*   and what it selects */
    char k[16];          /* maps: outputs, */
    char row_bytes[16];  /*   map: its inputs' bytes a row, */
    char inputs[16];     /*   and their number */
    /* filter's texts by what it writes: 64-bit row numbers, 32-bit ones (R = unsigned, CUB's
     * tile for 4-byte items, at most 2^32 rows) or values (of several columns selected as 64-bit
     * row numbers, of one column the values themselves). */
    const char *variant, *what, *row_t, *rows_check;
    char filter_tile[16], filter_threads[16];
    char select_policy[96]; /* filter.cu.in's agent policy (select_helpers.cu.in) */
    /* String results (the two launches): the sizes' parameters in CUDA and C (void *), cast
     * to the sizes kernel's OFF, their names and arguments, the offsets scans; the write
     * launches' outputs likewise (the width a kernel argument), the strings' places at either
     * width and the stored values. */
    udfkit_buf size_params, sizes_off, size_args, size_ptrs, c_sizes_any, scans;
    char text_count[16]; /* how many string results */
    udfkit_buf text_outs, text_out_args, text_out_ptrs, c_text_outs_any, places64, places32, stored;
    udfkit_buf c_inputs; /* the launcher's input columns in C */
    udfkit_buf op;       /* transform_reduce: what its kernels call for op */
    /* filter: what its selection writes (C parameters and names), and over string columns the
     * kept rows' gathering: the sizes kernel's outputs and body, the copy kernel's. */
    udfkit_buf selected, selected_names, gather, gather_ptrs, copies, copy_ptrs, sizes_body, copy_body;
} entry_texts;

/* The texts of string results, where the entry's map has any. */
static void text_rows(const render_parts *r, const udfkit_kernel_entry *e, entry_texts *t)
{
    if (!udfkit_rows_text_results(e))
        return;
    udfkit_rows_text_sizes(e, "void", false, &t->size_params);
    udfkit_rows_text_cast(e, "OFF", false, &t->sizes_off);
    udfkit_rows_text_sizes(e, NULL, false, &t->size_args);
    udfkit_rows_text_sizes(e, NULL, true, &t->size_ptrs);
    udfkit_rows_text_sizes(e, "void", false, &t->c_sizes_any);
    /* How many string results ("out_offsets, out2_offsets": the names, in order); the sizes
     * kernel scans each one's offsets itself (text_sizes.cu.in). */
    size_t count = 0;
    for (const char *name = t->size_args.data; name && *name; count++) {
        size_t len = strcspn(name, ",");
        name += len + (name[len] == ',' ? 2 : 0);
    }
    snprintf(t->text_count, sizeof t->text_count, "%zu", count);
    (void)r;
    udfkit_rows_text_outputs(e, true, "void", &t->text_outs);
    udfkit_rows_text_outputs(e, false, "void", &t->c_text_outs_any);
    udfkit_rows_text_output_args(e, UDFKIT_ROWS_PLAIN, &t->text_out_args);
    udfkit_rows_text_output_args(e, UDFKIT_ROWS_POINTERS, &t->text_out_ptrs);
    udfkit_rows_text_cast(e, "long long", true, &t->places64);
    udfkit_rows_text_cast(e, "int", true, &t->places32);
    udfkit_rows_text_output_args(e, UDFKIT_ROWS_STORED, &t->stored);
}

/* UDFKIT_ROWS_MAP: a map's row functions and its tile of inputs. */
static void map_rows(const render_parts *r, const udfkit_kernel_entry *e, entry_texts *t)
{
    const udfkit_template_row *row = udfkit_kernel_entry_row(e);
    text_rows(r, e, t);
    udfkit_rows_inputs(e, true, &t->params);
    udfkit_rows_input_args(e, false, &t->args);
    udfkit_rows_input_args(e, true, &t->ptrs);
    udfkit_rows_outputs(e, true, &t->outs);
    udfkit_rows_output_args(e, false, false, &t->out_vals);
    udfkit_rows_output_args_at(e, "begin", &t->outs_at);
    udfkit_rows_output_args(e, true, row->nullable, &t->out_ptrs);
    if (row->nullable) {
        udfkit_rows_dense_args(e, &t->dense);
        udfkit_rows_no_bitmaps(e, &t->no_bits);
    }
    for (size_t j = 0; j < udfkit_rows_output_count(e); j++)
        udfkit_buf_printf(&t->bits, j ? ", out%zu_bits" : (UDFKIT_MAP_HAS_OUTPUTS(&e->fn->sig) ? "out%zu_bits" : "out_bits"),
                          j + 1);
    snprintf(t->k, sizeof t->k, "%zu", udfkit_rows_output_count(e));
    udfkit_buf_puts(&t->fn, e->c_name);
    udfkit_buf_puts(&t->prefix, t->kernel.data);
    udfkit_rows_map_functions(t->prefix.data, e, &t->rows);
    /* The tiles of map and of the dense nullable_map. */
    size_t row_bytes = 0;
    udfkit_rows_map_staged(t->prefix.data, e, &t->rows, &row_bytes);
    snprintf(t->row_bytes, sizeof t->row_bytes, "%zu", row_bytes);
    /* The staged columns' number (none where they cannot be staged: strings). */
    snprintf(t->inputs, sizeof t->inputs, "%zu", row_bytes ? udfkit_rows_input_count(e) : (size_t)0);
}

/* UDFKIT_ROWS_NULLABLE_FILTER: the template calls <kernel>_load(i, a1, ..., &x) and
 * <kernel>_keep(i, x). */
static void nullable_filter_rows(const render_parts *r, const udfkit_kernel_entry *e, entry_texts *t)
{
    (void)r;
    udfkit_rows_inputs(e, true, &t->params);
    udfkit_rows_input_args(e, false, &t->args);
    udfkit_rows_input_args(e, true, &t->ptrs);
    udfkit_buf_puts(&t->fn, t->kernel.data);
    udfkit_rows_keep_function(t->fn.data, e, &t->rows);
}

/* The selection's policy (select_helpers.cu.in): select_policy, 384 threads of 11 8-byte or 17
 * 4-byte rows, or text_select_policy, 256 threads of 1, where the predicate takes text. */
static void select_shape(entry_texts *t, bool text, bool narrow)
{
    const int threads = text ? 256 : 384, items = text ? 1 : narrow ? 17 : 11;
    snprintf(t->select_policy, sizeof t->select_policy, "udfkit_detail::%sselect_policy<%s>::type", text ? "text_" : "",
             t->row_t);
    snprintf(t->filter_tile, sizeof t->filter_tile, "%d", threads * items);
    snprintf(t->filter_threads, sizeof t->filter_threads, "%d", threads);
}

/* UDFKIT_ROWS_FILTER: the same, and what it writes. filter(p, values) of one column has its
 * own kernel (filter_values.cu.in: the agent selects the column's values); filter.cu.in's
 * agent selects row numbers, by the predicate over the stencil. */
static void filter_rows(const render_parts *r, const udfkit_kernel_entry *e, entry_texts *t)
{
    nullable_filter_rows(r, e, t);
    udfkit_rows_filter_outputs(e, true, &t->outs);
    udfkit_rows_filter_output_args(e, &t->out_ptrs);
    udfkit_rows_filter_outputs(e, false, &t->selected);
    for (const char *p = t->out_ptrs.data; *p; p++)
        if (*p != '&')
            udfkit_buf_append(&t->selected_names, p, 1);
    bool narrow = e->filter_out == UDFKIT_FILTER_INDICES32, values = e->filter_out == UDFKIT_FILTER_VALUES;
    t->variant = narrow ? ", indices32" : values ? ", values" : "";
    t->what = narrow ? "rows' 32-bit numbers" : values ? "rows' values" : "rows' numbers";
    t->row_t = narrow ? "unsigned" : "unsigned long long";
    t->rows_check = narrow ? "    if (total > 0x100000000ull) /* row numbers past 2^32 - 1 */\n"
                             "        return udfkit_report(UDFKIT_ERROR_INVALID_ARGUMENT, \"more than 2^32 rows for 32-bit row numbers\");\n"
                           : "";
    select_shape(t, udfkit_signature_has(&e->fn->sig, UDFKIT_KIND_TEXT), narrow);
    if (values && udfkit_rows_input_count(e) == 1) {
        /* The values of one column: value_policy, by their size. */
        size_t size = udfkit_kind_size(e->fn->sig.params[0].kind);
        int threads = size <= 2 || size == 16 ? 256 : 384, items = size <= 2 ? 22 : size == 4 ? 17 : size == 16 ? 8 : 11;
        snprintf(t->filter_tile, sizeof t->filter_tile, "%d", threads * items);
        snprintf(t->filter_threads, sizeof t->filter_threads, "%d", threads);
        t->cuda = udfkit_tpl_kernel_filter_values;
    } else {
        udfkit_rows_stencil(t->fn.data, t->row_t, e, &t->rows);
        udfkit_rows_stencil_init(t->fn.data, e, &t->dense);
        udfkit_buf_printf(&t->items, "udfkit_detail::row_iterator<%s>{0}", t->row_t);
        if (values) {
            udfkit_rows_gather(t->fn.data, e, &t->rows);
            udfkit_rows_gather_init(t->fn.data, e, &t->out_iter);
        } else {
            udfkit_buf_puts(&t->out_iter, "indices");
        }
    }
}

/* filter(p, values)'s new columns as its launcher takes them in C: a string column's
 * "int64_t *out<j>_offsets, char *out<j>_chars", a value column's "T *out<j>". */
static void gathered_columns(const udfkit_kernel_entry *e, udfkit_buf *out)
{
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        udfkit_type c = udfkit_type_value(e->fn->sig.params[i]);
        udfkit_buf_puts(out, i ? ", " : "");
        if (udfkit_kind_info(c.kind)->flags & UDFKIT_KIND_TEXT) {
            udfkit_buf_printf(out, "int64_t *out%zu_offsets, char *out%zu_chars", i + 1, i + 1);
        } else {
            udfkit_type_c(c, out);
            udfkit_buf_printf(out, " *out%zu", i + 1);
        }
    }
}

/* UDFKIT_ROWS_FILTER_TEXT: filter(p, values) over string columns. The selection writes the kept
 * rows' numbers (filter.cu.in, as filter(p) does), then each input column is gathered at
 * them: a string column's sizes into its offsets, then its bytes; a value column's values. */
static void filter_text_rows(const render_parts *r, const udfkit_kernel_entry *e, entry_texts *t)
{
    nullable_filter_rows(r, e, t);
    udfkit_buf_puts(&t->outs, "unsigned long long *indices");
    udfkit_buf_puts(&t->out_ptrs, "&indices");
    udfkit_buf_puts(&t->selected, "uint64_t *indices");
    udfkit_buf_puts(&t->selected_names, "indices");
    t->variant = ", values";
    t->what = "rows' numbers";
    t->row_t = "unsigned long long";
    udfkit_rows_stencil(t->fn.data, t->row_t, e, &t->rows);
    udfkit_rows_stencil_init(t->fn.data, e, &t->dense);
    udfkit_buf_printf(&t->items, "udfkit_detail::row_iterator<%s>{0}", t->row_t);
    udfkit_buf_puts(&t->out_iter, "indices");
    select_shape(t, true, false);
    for (size_t i = 0; i < udfkit_rows_input_count(e); i++) {
        udfkit_type c = udfkit_type_value(e->fn->sig.params[i]);
        size_t j = i + 1;
        const char *sep = i ? ", " : "";
        if (udfkit_kind_info(c.kind)->flags & UDFKIT_KIND_TEXT) {
            udfkit_buf_printf(&t->gather, "%slong long *out%zu_offsets", sep, j);
            udfkit_buf_printf(&t->gather_ptrs, "%s&out%zu_offsets", sep, j);
            udfkit_buf_printf(&t->copies, "%sconst long long *out%zu_offsets, char *out%zu_chars", t->copies.size ? ", " : "",
                              j, j);
            udfkit_buf_printf(&t->copy_ptrs, "%s&out%zu_offsets, &out%zu_chars", t->copy_ptrs.size ? ", " : "", j, j);
            udfkit_buf_printf(&t->sizes_body, "        out%zu_offsets[pos] = here ? a%zu[r].size() : 0;\n", j, j);
            /* string_out's copy stores 4 bytes at a time from the first aligned word of the
             * place (the threads of a warp copy rows side by side). */
            udfkit_buf_printf(&t->copy_body,
                              "        {\n            const udfkit::string_view v = a%zu[r];\n"
                              "            udfkit_string_out to{out%zu_chars + out%zu_offsets[pos], 0, v.size(), 0};\n"
                              "            to.append(v.data(), v.size());\n"
                              "        }\n",
                              j, j, j);
            udfkit_buf_printf(&t->scans, "    if (!st)\n        st = udfkit_%s_offsets(self, s, n, out%zu_offsets, !narrow);\n",
                              r->name, j);
            continue;
        }
        udfkit_buf_printf(&t->gather, "%s", sep);
        udfkit_exporter_abi_type(c, &t->gather);
        udfkit_buf_printf(&t->gather, " *out%zu", j);
        udfkit_buf_printf(&t->gather_ptrs, "%s&out%zu", sep, j);
        udfkit_buf_printf(&t->sizes_body, "        if (here)\n            out%zu[pos] = a%zu[r];\n", j, j);
    }
}

/* UDFKIT_ROWS_COLUMN: the templates take T, the kernel and the UDF's name; the columns are fixed. */
static void column_rows(const render_parts *r, const udfkit_kernel_entry *e, entry_texts *t)
{
    (void)r;
    /* An op whose C ABI is expanded (decimal128) is called through a wrapper of its values. */
    if (udfkit_signature_expanded(&e->fn->sig) && !udfkit_signature_has(&e->fn->sig, UDFKIT_KIND_TEXT)) {
        udfkit_buf_printf(&t->fn, "%s_call", t->kernel.data);
        udfkit_rows_call_wrapper(e->fn, t->fn.data, &t->rows);
    } else {
        udfkit_buf_puts(&t->fn, e->c_name);
    }
    udfkit_buf_puts(&t->ptrs, "&in");
}

/* UDFKIT_ROWS_TRANSFORM: f's rows as a map's (its inputs loaded 4 rows at a time, its result
 * computed), as map's row functions make them. */
static void transform_rows(const render_parts *r, const udfkit_kernel_entry *e, entry_texts *t)
{
    (void)r;
    udfkit_kernel_entry as_map = *e;
    as_map.tpl = UDFKIT_KERNEL_MAP;
    udfkit_rows_inputs(e, true, &t->params);
    udfkit_rows_input_args(e, false, &t->args);
    udfkit_rows_input_args(e, true, &t->ptrs);
    udfkit_buf_puts(&t->fn, e->c_name);
    udfkit_buf_puts(&t->prefix, t->kernel.data);
    udfkit_rows_map_functions(t->prefix.data, &as_map, &t->rows);
    /* An op whose C ABI is expanded (decimal128) is called through a wrapper of its values. */
    if (udfkit_signature_expanded(&e->op->sig)) {
        udfkit_buf_printf(&t->op, "%s_op", t->kernel.data);
        udfkit_rows_call_wrapper(e->op, t->op.data, &t->rows);
    } else {
        udfkit_buf_puts(&t->op, e->op_name);
    }
}

static void (*const fill_rows[UDFKIT_ROWS_COUNT])(const render_parts *r, const udfkit_kernel_entry *e,
                                                   entry_texts *t) = {
    [UDFKIT_ROWS_MAP] = map_rows,
    [UDFKIT_ROWS_FILTER] = filter_rows,
    [UDFKIT_ROWS_FILTER_TEXT] = filter_text_rows,
    [UDFKIT_ROWS_NULLABLE_FILTER] = nullable_filter_rows,
    [UDFKIT_ROWS_COLUMN] = column_rows,
    [UDFKIT_ROWS_TRANSFORM] = transform_rows,
};

/* T: what the UDF returns (transform_reduce's f without one: op's), or its first parameter's
 * type where the row says so (sort's values). */
static udfkit_type value_type(const udfkit_kernel_entry *e)
{
    const udfkit_signature *s = &e->fn->sig;
    if (udfkit_kernel_entry_row(e)->t_is_parameter)
        return udfkit_type_value(s->params[0]);
    return udfkit_type_value(s->has_return || !e->op ? s->ret : e->op->sig.ret);
}

static void entry_texts_fill(const render_parts *r, const udfkit_kernel_entry *e, entry_texts *t)
{
    const udfkit_template_row *row = udfkit_kernel_entry_row(e);
    udfkit_buf_printf(&t->kernel, "udfkit_%s_%s_", r->name, row->name);
    udfkit_kernel_entry_suffix(e, &t->kernel);
    udfkit_exporter_abi_type(value_type(e), &t->ret);
    t->cuda = row->cuda;
    t->variant = t->what = t->row_t = t->rows_check = "";
    udfkit_rows_inputs(e, false, &t->c_inputs);
    fill_rows[row->rows](r, e, t);
}

/* The texts of the templates that run CUB's tiles (scans, reduce_by_key, sort): the scan's
 * kind and init, and the tile of T's size, which the kernel checks at build time. */
typedef struct tile_texts {
    const char *kind, *init_value, *init_arg;
    char init_t[64], init_param[80], tile_items[16], items[16], t_bytes[16], key[32], state_bytes[24];
} tile_texts;

static size_t round16(size_t n)
{
    return (n + 15) / 16 * 16;
}

static void tile_texts_fill(const udfkit_kernel_entry *e, const char *type, tile_texts *t)
{
    const udfkit_template_row *row = udfkit_kernel_entry_row(e);
    memset(t, 0, sizeof *t);
    t->kind = row->scan_kind ? row->scan_kind : "";
    snprintf(t->init_t, sizeof t->init_t, "%s", row->scan_init ? type : "cub::NullType");
    snprintf(t->init_param, sizeof t->init_param, "%s%s%s", row->scan_init ? ", " : "", row->scan_init ? type : "",
             row->scan_init ? " init" : "");
    t->init_value = row->scan_init ? "init" : "cub::NullType()";
    t->init_arg = row->scan_init ? ", &init" : "";
    /* T's size, or that of the row numbers a row sorts (index_keys). */
    size_t size = row->index_keys ? 8 : udfkit_kind_size(value_type(e).kind);
    snprintf(t->t_bytes, sizeof t->t_bytes, "%zu", size);
    /* A tile's look-back state: a status word and two values (scans) or two (offset, value)
     * pairs (reduce_by_key), each array padded; 48 bytes bound it for values of up to 8 bytes,
     * a decimal128 needs more (its pairs are 32 bytes). */
    size_t pair = row->extra == UDFKIT_EXTRA_KEY ? round16(8 + size) : round16(size);
    snprintf(t->state_bytes, sizeof t->state_bytes, "%zu", 16 + 2 * pair > 48 ? 16 + 2 * pair : (size_t)48);
    if (row->tile_items) {
        size_t items = row->tile_items(size);
        snprintf(t->items, sizeof t->items, "%zu", items);
        snprintf(t->tile_items, sizeof t->tile_items, "%zu", row->tile_threads * items);
    }
    if (row->extra == UDFKIT_EXTRA_KEY)
        snprintf(t->key, sizeof t->key, "%s", udfkit_kind_info(e->key)->cuda);
}

/* The texts of the launcher's prototype and documentation. */
typedef struct doc_texts {
    udfkit_buf suffix, elements, c_inputs, c_outputs, c_filter_outputs, c_t, c_k;
    udfkit_buf c_sizes64, c_sizes32, c_text_outputs64, c_text_outputs32; /* string results' launchers */
    udfkit_buf c_gather; /* filter(p, values) over strings */
    char output_count[16];
} doc_texts;

static void doc_texts_fill(const udfkit_kernel_entry *e, doc_texts *d)
{
    udfkit_kernel_entry_suffix(e, &d->suffix);
    element_args(e, &d->elements);
    udfkit_rows_inputs(e, false, &d->c_inputs);
    udfkit_rows_outputs(e, false, &d->c_outputs);
    udfkit_rows_filter_outputs(e, false, &d->c_filter_outputs);
    udfkit_type_c(value_type(e), &d->c_t);
    udfkit_type_c((udfkit_type){.kind = e->key}, &d->c_k);
    snprintf(d->output_count, sizeof d->output_count, "%zu", udfkit_rows_output_count(e));
    gathered_columns(e, &d->c_gather);
    if (udfkit_rows_text_results(e)) {
        udfkit_rows_text_sizes(e, "int64_t", false, &d->c_sizes64);
        udfkit_rows_text_sizes(e, "int32_t", false, &d->c_sizes32);
        udfkit_rows_text_outputs(e, false, "int64_t", &d->c_text_outputs64);
        udfkit_rows_text_outputs(e, false, "int32_t", &d->c_text_outputs32);
    }
}

static void doc_texts_free(doc_texts *d)
{
    udfkit_buf *bufs[] = {&d->suffix, &d->c_inputs,  &d->elements,  &d->c_outputs,        &d->c_filter_outputs,
                          &d->c_t,    &d->c_k,       &d->c_sizes64, &d->c_sizes32, &d->c_text_outputs64,
                          &d->c_text_outputs32, &d->c_gather};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        udfkit_buf_free(bufs[i]);
}

/* The placeholders of an entry's launchers' prototypes in its C text: one launcher's, or
 * those of the two launches of string results. */
static const char *const prototype_vars[] = {"PROTOTYPE", "PROTOTYPE_SIZES", "PROTOTYPE_SIZES32", "PROTOTYPE32"};
#define PROTOTYPES (sizeof prototype_vars / sizeof *prototype_vars)

/* The launchers' prototypes (SPEC.md's signatures, without the ';'; a SLOTS library's take
 * its instance first), by prototype_vars, and their declarations with their documentation
 * appended to decls, from the row's texts. */
static udfkit_rc launcher_texts(const render_parts *r, const udfkit_kernel_entry *e, const tile_texts *tile,
                                udfkit_buf protos[PROTOTYPES], udfkit_buf *decls)
{
    const udfkit_template_row *row = udfkit_kernel_entry_row(e);
    doc_texts d = {0};
    doc_texts_fill(e, &d);
#define TEXT(b) ((b).data ? (b).data : "")
    const udfkit_template_var vars[] = {
        {"NAME", r->name}, {"TEMPLATE", row->name}, {"SUFFIX", TEXT(d.suffix)}, {"UDF", e->c_name},
        {"OP", e->op_name ? e->op_name : ""}, {"K_NAME", udfkit_kind_name(e->key)}, {"TILE_ITEMS", tile->tile_items},
        {"ELEMENTS", TEXT(d.elements)}, {"C_INPUTS", TEXT(d.c_inputs)}, {"C_OUTPUTS", TEXT(d.c_outputs)},
        {"C_FILTER_OUTPUTS", TEXT(d.c_filter_outputs)}, {"C_T", TEXT(d.c_t)}, {"C_K", TEXT(d.c_k)},
        {"OUTPUT_COUNT", d.output_count}, {"OUTPUT_PLURAL", udfkit_rows_output_count(e) > 1 ? "s" : ""},
        {"NULLIFY", e->nullify ? ", nullify" : ""},
        {"NULL_RULE", udfkit_signature_nullable(&e->fn->sig) ? "no input without a T? parameter is null"
                                                             : "every input is valid"},
        {"C_SIZES64", TEXT(d.c_sizes64)}, {"C_SIZES32", TEXT(d.c_sizes32)},
        {"C_TEXT_OUTPUTS64", TEXT(d.c_text_outputs64)}, {"C_TEXT_OUTPUTS32", TEXT(d.c_text_outputs32)},
        {"TEXT_PLURAL", strchr(TEXT(d.c_sizes64), ',') ? "s" : ""}, {"C_TEXT_GATHER", TEXT(d.c_gather)},
    };
#undef TEXT
    size_t nvars = sizeof vars / sizeof *vars;
    /* One launcher (params, doc), or several (launchers). */
    const char *doc_text = e->word && e->word->doc                                        ? e->word->doc
                           : row->doc_outputs && UDFKIT_MAP_HAS_OUTPUTS(&e->fn->sig) ? row->doc_outputs
                                                                                     : row->doc;
    const udfkit_launcher_text one[] = {{"PROTOTYPE", "", row->params, doc_text}, {NULL}};
    udfkit_rc rc = UDFKIT_RC_OK;
    for (const udfkit_launcher_text *l = row->launchers ? row->launchers : one; l->var && !rc; l++) {
        size_t p = 0;
        while (p + 1 < PROTOTYPES && strcmp(prototype_vars[p], l->var) != 0)
            p++;
        udfkit_buf text = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&text, "udfkit_status @NAME@_@TEMPLATE@_@SUFFIX@%s(%sudfkit_stream s, size_t %s, %s)", l->suffix,
                          r->slotted ? "@NAME@_instance *inst, " : "", row->count, l->params);
        rc = udfkit_template_render(text.data, vars, nvars, &protos[p]);
        udfkit_buf_puts(decls, "\n");
        if (!rc)
            rc = udfkit_template_render(l->doc, vars, nvars, decls);
        udfkit_buf_printf(decls, "%s;\n", protos[p].data ? protos[p].data : "");
        udfkit_buf_free(&text);
    }
    doc_texts_free(&d);
    return rc;
}

/* The most rows (or segments) an entry's launchers take: UDFKIT_LAUNCH_MAX_ROWS, less where
 * the template's own numbers give less: 2^31 - 1 tiles of a scan, reduce_by_key or sort, of
 * the offsets scan of string results (n + 1 rows), 2^32 row numbers of 32 bits. */
static unsigned long long max_rows(const udfkit_kernel_entry *e)
{
    const udfkit_template_row *row = udfkit_kernel_entry_row(e);
    unsigned long long most = UDFKIT_LAUNCH_MAX_ROWS;
    if (row->tile_items) {
        size_t size = row->index_keys ? 8 : udfkit_kind_size(value_type(e).kind);
        unsigned long long tiles = UDFKIT_MAX_TILES * row->tile_threads * row->tile_items(size);
        most = tiles < most ? tiles : most;
    }
    if ((row->helpers & UDFKIT_NEEDS_OFFSETS) && UDFKIT_MAX_TILES * UDFKIT_OFFSETS_TILE_ROWS - 1 < most)
        most = UDFKIT_MAX_TILES * UDFKIT_OFFSETS_TILE_ROWS - 1;
    if (e->filter_out == UDFKIT_FILTER_INDICES32 && row->rows == UDFKIT_ROWS_FILTER && 0x100000000ull < most)
        most = 0x100000000ull;
    return most;
}

/* One parameter of a launcher's prototype: "const float *a1" is type "const float *", name
 * "a1". */
typedef struct proto_param {
    char type[96], name[64];
    bool pointer;
} proto_param;

static bool next_param(const char **p, proto_param *out)
{
    while (**p == ' ' || **p == ',')
        (*p)++;
    size_t len = strcspn(*p, ",)");
    if (!len)
        return false;
    const char *text = *p, *space = NULL;
    for (size_t i = 0; i < len; i++)
        if (text[i] == ' ')
            space = text + i;
    *p += len;
    if (!space)
        return false;
    const char *name = space + 1;
    while (*name == '*')
        name++;
    snprintf(out->type, sizeof out->type, "%.*s", (int)(name - text), text);
    snprintf(out->name, sizeof out->name, "%.*s", (int)(text + len - name), name);
    out->pointer = strchr(out->type, '*') != NULL;
    return true;
}

/* The checks of one launcher's arguments, from its prototype (docs/security.md, "Column data:
 * launcher arguments"): its count against the most it takes, then each parameter by its type and its
 * rule (udfkit_launcher_param_rule): a column's pointer, an input bitmap, a string column.
 * Each returns UDFKIT_ERROR_INVALID_ARGUMENT through udfkit_<name>_refuse, before the
 * launcher loads or queues anything. */
static udfkit_rc launcher_checks(const render_parts *r, const udfkit_kernel_entry *e, const char *proto,
                                 udfkit_buf *out)
{
    const udfkit_template_row *row = udfkit_kernel_entry_row(e);
    const char *open = strchr(proto, '('), *name = strchr(proto, ' ');
    if (!open || !name || name > open)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "a launcher prototype without a name: %s", proto);
    char launcher[128], k[16];
    snprintf(launcher, sizeof launcher, "%.*s", (int)(open - name - 1), name + 1);
    snprintf(k, sizeof k, "%zu", udfkit_rows_output_count(e));
    const char *count = row->count;
    unsigned long long most = max_rows(e);
    udfkit_buf_puts(out, "    /* The arguments, checked before anything is loaded or queued (docs/security.md). */\n");
    udfkit_buf_printf(out, "    if (%s > 0x%llxull)\n        return udfkit_%s_refuse(\"%s\", \"%s\", "
                           "\"is more than the launcher takes (%llu)\", \"%s\", %s);\n",
                      count, most, r->name, launcher, count, most, count, count);
    udfkit_buf body = UDFKIT_BUF_INIT, extent = UDFKIT_BUF_INIT;
    udfkit_rc rc = UDFKIT_RC_OK;
    const udfkit_template_var vars[] = {{"COUNT", count}, {"K", k}};
    proto_param p;
    for (const char *at = open + 1; !rc && next_param(&at, &p);) {
        /* The stream, the count, a SLOTS library's instance (udfkit_<name>_kernel checks it). */
        if (strcmp(p.name, "s") == 0 || strcmp(p.name, count) == 0 || strcmp(p.name, "inst") == 0)
            continue;
        const char *call = NULL;
        if (strcmp(p.type, "udfkit_mask ") == 0) {
            udfkit_buf_printf(&body, "    if ((refused = udfkit_%s_mask(%s, %s)) != NULL)\n", r->name, p.name, count);
            call = p.name;
        } else if (strcmp(p.type, "udfkit_strings ") == 0) {
            udfkit_buf_printf(&body, "    if ((refused = udfkit_%s_strings(%s, %s)) != NULL)\n", r->name, p.name, count);
            call = p.name;
        } else if (p.pointer) {
            const udfkit_param_rule *rule = udfkit_launcher_param_rule(row, p.name);
            udfkit_param_role role = rule ? rule->role : UDFKIT_PARAM_ROWS;
            if (role == UDFKIT_PARAM_UNCHECKED)
                continue;
            extent.size = 0;
            if (role == UDFKIT_PARAM_ALIGNED)
                udfkit_buf_puts(&extent, "0");
            else if (rule && rule->extent)
                rc = udfkit_template_render(rule->extent, vars, sizeof vars / sizeof *vars, &extent);
            else
                udfkit_buf_puts(&extent, count);
            /* Whether NULL is refused: where the count is not 0, always, or never. */
            char required[80];
            snprintf(required, sizeof required, "%s%s", role == UDFKIT_PARAM_ROWS ? count : "",
                     role == UDFKIT_PARAM_ROWS ? " > 0" : role == UDFKIT_PARAM_ALWAYS ? "1" : "0");
            udfkit_buf_printf(&body, "    if ((refused = udfkit_%s_column(%s, %s, sizeof *%s, %s)) != NULL)\n", r->name,
                              p.name, extent.data ? extent.data : "", p.name, required);
            call = p.name;
        }
        if (call)
            udfkit_buf_printf(&body, "        return udfkit_%s_refuse(\"%s\", \"%s\", refused, \"%s\", %s);\n", r->name,
                              launcher, call, count, count);
    }
    if (body.size) {
        udfkit_buf_puts(out, "    const char *refused = NULL;\n");
        udfkit_buf_puts(out, body.data);
    }
    udfkit_buf_free(&body);
    udfkit_buf_free(&extent);
    return rc;
}

/* How many kernels of its own an entry's launcher uses. */
static size_t kernel_count(const udfkit_template_row *row)
{
    size_t n = 0;
    while (row->kernels[n])
        n++;
    return n;
}

/* One entry's kernels, launcher, name table lines, marker and declaration; `index` is its
 * first kernel's place in the name table. */
/* The entry's kernels in the name table, and its link unit: those kernels and the UDFs they
 * call (docs/build-speed.md). */
static void add_names_and_unit(render_parts *r, const udfkit_kernel_entry *e, const udfkit_template_row *row,
                               const char *kernel)
{
    json_t *unit = json_object(), *kernels = json_array(), *calls = json_array();
    for (const char *const *k = row->kernels; *k; k++) {
        udfkit_buf_printf(&r->names, "    \"%s%s\",\n", kernel, *k);
        udfkit_buf name = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&name, "%s%s", kernel, *k);
        json_array_append_new(kernels, json_string(name.data));
        udfkit_buf_free(&name);
    }
    json_array_append_new(calls, json_string(e->c_name));
    if (e->op && strcmp(e->op->c_name, e->c_name) != 0)
        json_array_append_new(calls, json_string(e->op->c_name));
    json_object_set_new(unit, "entry", json_string(e->text ? e->text : "(generated)"));
    json_object_set_new(unit, "kernels", kernels);
    json_object_set_new(unit, "calls", calls);
    json_array_append_new(r->units, unit);
}

static udfkit_rc render_entry(render_parts *r, const udfkit_kernel_entry *e, size_t index)
{
    const udfkit_template_row *row = udfkit_kernel_entry_row(e);
    entry_texts t = {0};
    udfkit_buf protos[PROTOTYPES] = {UDFKIT_BUF_INIT}, decls = UDFKIT_BUF_INIT, sig = UDFKIT_BUF_INIT,
               small = UDFKIT_BUF_INIT;
    char index_text[32];
    entry_texts_fill(r, e, &t);
    udfkit_signature_format(&e->fn->sig, &sig);
    snprintf(index_text, sizeof index_text, "%zu", index);
    tile_texts tile;
    tile_texts_fill(e, t.ret.data, &tile);
    udfkit_rc rc = launcher_texts(r, e, &tile, protos, &decls);
    udfkit_buf checks[PROTOTYPES] = {UDFKIT_BUF_INIT};
    for (size_t i = 0; i < PROTOTYPES && !rc; i++)
        if (protos[i].data)
            rc = launcher_checks(r, e, protos[i].data, &checks[i]);
    /* A hidden entry's launchers are the generated file's own; of a string result's four, the
     * `_arrow` launcher runs two (64-bit offsets). */
    for (size_t i = 0; i < PROTOTYPES && !rc && e->hidden; i++)
        if (protos[i].data) {
            udfkit_buf text = UDFKIT_BUF_INIT;
            udfkit_buf_printf(&text, "static %s%s", row->launchers ? "__attribute__((unused)) " : "", protos[i].data);
            udfkit_buf_free(&protos[i]);
            protos[i] = text;
        }
    /* reduce's launcher reduces a few rows in one launch. */
    const udfkit_template_var small_vars[] = {{"UPPER_NAME", r->upper}};
    if (row->small_path)
        udfkit_template_render(udfkit_tpl_launcher_reduce_small, small_vars, 1, &small);
#define TEXT(b) ((b).data ? (b).data : "")
    const udfkit_template_var vars[] = {
        {"NAME", r->name},          {"UPPER_NAME", r->upper},      {"FN", TEXT(t.fn)},
        {"KERNEL", t.kernel.data},  {"PARAMS", TEXT(t.params)},    {"ARGS", TEXT(t.args)},
        {"RET", t.ret.data},        {"T", t.ret.data},             {"PROTOTYPE", TEXT(protos[0])},
        {"PROTOTYPE_SIZES", TEXT(protos[1])}, {"PROTOTYPE_SIZES32", TEXT(protos[2])}, {"PROTOTYPE32", TEXT(protos[3])},
        {"CHECKS", TEXT(checks[0])}, {"CHECKS_SIZES", TEXT(checks[1])}, {"CHECKS_SIZES32", TEXT(checks[2])},
        {"CHECKS32", TEXT(checks[3])},
        {"INDEX", index_text},      {"SCAN_INDEX", r->scan_index}, {"ARG_POINTERS", TEXT(t.ptrs)},
        {"SELF", r->slotted ? "inst" : "NULL"},
        {"TEMPLATE", row->name},    {"UDF", e->c_name},            {"PREFIX", TEXT(t.prefix)},
        {"OUT_PARAMS", TEXT(t.outs)}, {"OUTS", TEXT(t.out_vals)}, {"OUTS_AT", TEXT(t.outs_at)},  {"BITS", TEXT(t.bits)},
        {"OUT_POINTERS", TEXT(t.out_ptrs)}, {"K", t.k},    {"DENSE_ARGS", TEXT(t.dense)},
        {"NO_BITMAPS", TEXT(t.no_bits)}, {"ROW_BYTES", t.row_bytes}, {"INPUTS", t.inputs},
        {"ROUND_TILES", row->round_tiles ? row->round_tiles : ""},
        {"SCAN_KIND", tile.kind},   {"SCAN_INIT_T", tile.init_t},  {"INIT_PARAM", tile.init_param},
        {"INIT_VALUE", tile.init_value}, {"INIT_ARG", tile.init_arg}, {"TILE_ITEMS", tile.tile_items},
        {"TILE_STATE_BYTES", tile.state_bytes},
        {"ITEMS", tile.items},      {"T_BYTES", tile.t_bytes},     {"KEY_T", tile.key},
        {"K_NAME", udfkit_kind_name(e->key)},  {"OP", TEXT(t.op)},
        {"SMALL_PATH", TEXT(small)}, {"VARIANT", t.variant}, {"WHAT", t.what},
        {"ROW_T", t.row_t},    {"ROWS_CHECK", t.rows_check}, {"FILTER_TILE", t.filter_tile}, {"FILTER_THREADS", t.filter_threads},
        {"SELECT_POLICY", t.select_policy}, {"OUT_ITER", TEXT(t.out_iter)}, {"STENCIL", TEXT(t.dense)}, {"SELECT_ITEMS", TEXT(t.items)}, {"SELECT_INIT_INDEX", r->select_index},
        /* String results (the two launches). */
        {"SIZE_PARAMS_ANY", TEXT(t.size_params)}, {"SIZE_ARGS_OFF", TEXT(t.sizes_off)},
        {"SIZE_NAMES", TEXT(t.size_args)}, {"SIZE_POINTERS", TEXT(t.size_ptrs)},
        {"C_SIZES_ANY", TEXT(t.c_sizes_any)}, {"SCANS", TEXT(t.scans)}, {"TEXT_COUNT", t.text_count},
        {"OFFSETS_INDEX", r->offsets_index},
        {"TEXT_OUT_PARAMS_ANY", TEXT(t.text_outs)}, {"TEXT_OUT_NAMES", TEXT(t.text_out_args)},
        {"TEXT_OUT_POINTERS", TEXT(t.text_out_ptrs)}, {"C_TEXT_OUTPUTS_ANY", TEXT(t.c_text_outs_any)},
        {"PLACE_ARGS64", TEXT(t.places64)}, {"PLACE_ARGS32", TEXT(t.places32)}, {"STORE_OUTS", TEXT(t.stored)},
        {"C_INPUTS", TEXT(t.c_inputs)},
        {"C_SELECTED", TEXT(t.selected)}, {"SELECTED_NAMES", TEXT(t.selected_names)},
        {"GATHER_PARAMS", TEXT(t.gather)}, {"GATHER_POINTERS", TEXT(t.gather_ptrs)}, {"COPY_PARAMS", TEXT(t.copies)},
        {"COPY_POINTERS", TEXT(t.copy_ptrs)}, {"SIZES_BODY", TEXT(t.sizes_body)}, {"COPY_BODY", TEXT(t.copy_body)},
    };
#undef TEXT
    size_t nvars = sizeof vars / sizeof *vars;
    udfkit_buf_puts(&r->kernels, t.rows.data ? t.rows.data : "");
    if (!rc)
        rc = udfkit_template_render(t.cuda, vars, nvars, &r->kernels);
    if (!rc && row->cuda_more)
        rc = udfkit_template_render(row->cuda_more, vars, nvars, &r->kernels);
    if (!rc)
        rc = udfkit_template_render(row->c, vars, nvars, &r->launchers);
    if (!rc && row->c_more)
        rc = udfkit_template_render(row->c_more, vars, nvars, &r->launchers);
    if (!rc)
        add_names_and_unit(r, e, row, t.kernel.data);
    if (!rc && !e->hidden) {
        udfkit_buf_printf(&r->markers, " *   udfkit-kernel %s %s %s %s_%s_", row->name, e->c_name, sig.data, r->name,
                          row->name);
        udfkit_kernel_entry_suffix(e, &r->markers);
        udfkit_buf_puts(&r->markers, "\n");
        udfkit_buf_puts(&r->decls, decls.data);
    }
    /* Beside the launcher, its `_arrow` launcher (arrow_gen.c); a map's runs the UDF's
     * nullable_map launcher where an input has nulls. */
    if (!rc && !e->hidden && r->with_arrow && udfkit_arrow_entry(e)) {
        udfkit_buf raw = UDFKIT_BUF_INIT, masked = UDFKIT_BUF_INIT, values = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&raw, "%s_%s_", r->name, row->name);
        udfkit_kernel_entry_suffix(e, &raw);
        masked_launcher(r, e, &masked);
        if (selects_values(e))
            values_launcher(r, e, &values);
        rc = udfkit_arrow_render(r->name, e, raw.data, masked.data, values.data, r->bits_index, r->slotted, &r->decls,
                                 &r->arrow);
        udfkit_buf_free(&raw);
        udfkit_buf_free(&masked);
        udfkit_buf_free(&values);
    }
    udfkit_buf *bufs[] = {&t.kernel,   &t.params,    &t.args,      &t.dense,         &t.no_bits,   &t.ptrs,
                          &t.ret,      &t.fn,        &t.prefix,    &t.outs,          &t.out_vals,  &t.outs_at,
                          &t.bits,     &t.out_ptrs,  &t.rows,      &decls,           &sig,         &small,
                          &t.out_iter, &t.items,     &t.size_params, &t.sizes_off,   &t.size_args,
                          &t.size_ptrs, &t.c_sizes_any, &t.scans,  &t.text_outs,     &t.text_out_args, &t.text_out_ptrs,
                          &t.c_text_outs_any, &t.places64, &t.places32, &t.stored, &t.c_inputs,
                          &t.selected, &t.selected_names, &t.gather, &t.gather_ptrs, &t.copies, &t.copy_ptrs,
                          &t.sizes_body, &t.copy_body, &t.op};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        udfkit_buf_free(bufs[i]);
    for (size_t i = 0; i < PROTOTYPES; i++) {
        udfkit_buf_free(&protos[i]);
        udfkit_buf_free(&checks[i]);
    }
    return rc;
}

/* The slots: a table for the launchers and their optional flags, a marker line each for the
 * header (the last `noptional` optional: their markers end in "optional"). */
static void slot_texts(const udfkit_spec *slots, size_t nslots, size_t noptional, udfkit_buf *table,
                       udfkit_buf *flags, udfkit_buf *markers)
{
    for (size_t i = 0; i < nslots; i++) {
        udfkit_buf sig = UDFKIT_BUF_INIT;
        bool optional = i >= nslots - noptional;
        udfkit_signature_format(&slots[i].sig, &sig);
        udfkit_buf_printf(table, "    {\"%s\", \"%s\"},\n", slots[i].c_name, sig.data);
        udfkit_buf_printf(flags, "%s%d", i ? ", " : "", optional);
        udfkit_buf_printf(markers, "%s *   udfkit-slot %s %s%s", i ? "\n" : "", slots[i].c_name, sig.data,
                          optional ? " optional" : "");
        udfkit_buf_free(&sig);
    }
}

/* What the entries share: the kernels every filter, nullable filter or string result uses (after
 * the entries' in the name table: the nullable filters' scan, the filters' init, the offsets
 * scans), and the launchers' helpers, each only where a launcher uses it (an unused static
 * function is a warning). */
static udfkit_rc render_shared(render_parts *r, unsigned needs, bool any, const udfkit_template_var *vars, size_t nvars,
                               udfkit_buf *common)
{
    udfkit_rc rc = UDFKIT_RC_OK;
    if (needs & UDFKIT_NEEDS_FILTER_SCAN) {
        rc = udfkit_template_render(udfkit_tpl_kernel_filter_scan, vars, nvars, &r->kernels);
        udfkit_buf_printf(&r->names, "    \"udfkit_%s_filter_scan\",\n", r->name);
    }
    if (needs & UDFKIT_NEEDS_SELECT)
        udfkit_buf_printf(&r->names, "    \"udfkit_%s_select_init\",\n", r->name);
    if (!rc && (needs & UDFKIT_NEEDS_OFFSETS)) {
        rc = udfkit_template_render(udfkit_tpl_kernel_offsets_scan, vars, nvars, &r->kernels);
        udfkit_buf_printf(&r->names, "    \"udfkit_%s_offsets_init\",\n    \"udfkit_%s_offsets_scan\",\n"
                                     "    \"udfkit_%s_offsets_scan32\",\n", r->name, r->name, r->name);
    }
    if (!rc && any)
        rc = udfkit_template_render(r->slotted ? udfkit_tpl_launcher_common_slots : udfkit_tpl_launcher_common, vars,
                                    nvars, common);
    if (!rc && any)
        rc = udfkit_template_render(udfkit_tpl_launcher_checks, vars, nvars, common);
    if (!rc && (needs & UDFKIT_NEEDS_BLOCKS))
        rc = udfkit_template_render(udfkit_tpl_launcher_blocks, vars, nvars, common);
    if (!rc && (needs & UDFKIT_NEEDS_CHUNKS))
        rc = udfkit_template_render(udfkit_tpl_launcher_chunks, vars, nvars, common);
    if (!rc && (needs & UDFKIT_NEEDS_TILES))
        rc = udfkit_template_render(udfkit_tpl_launcher_tiles, vars, nvars, common);
    if (!rc && (needs & UDFKIT_NEEDS_OFFSETS_SCAN))
        rc = udfkit_template_render(udfkit_tpl_launcher_offsets, vars, nvars, common);
    if (!rc && (needs & UDFKIT_NEEDS_ARROW)) {
        rc = udfkit_template_render(udfkit_tpl_kernel_arrow_bits, vars, nvars, &r->kernels);
        udfkit_buf_printf(&r->names, "    \"udfkit_%s_arrow_unpack\",\n    \"udfkit_%s_arrow_pack\",\n"
                                     "    \"udfkit_%s_arrow_gather\",\n", r->name, r->name, r->name);
    }
    if (!rc && (needs & UDFKIT_NEEDS_ARROW) && r->arrow_text) {
        rc = udfkit_template_render(udfkit_tpl_kernel_arrow_text, vars, nvars, &r->kernels);
        udfkit_buf_printf(&r->names, "    \"udfkit_%s_arrow_text_sizes\",\n    \"udfkit_%s_arrow_text_copy\",\n",
                          r->name, r->name);
    }
    return rc;
}

/* A hidden entry "<tpl>(<f>)" (word: its names' suffix and what a filter writes) at the end of
 * all. */
static udfkit_rc add_hidden(udfkit_kernel_entry *all, size_t *nall, udfkit_kernel_template tpl, bool values,
                            const udfkit_kernel_entry *e)
{
    udfkit_buf text = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&text, "%s(%s%s)", udfkit_kernel_template_name(tpl), e->c_name, values ? ", values" : "");
    udfkit_kernel_entry *twin = &all[(*nall)++];
    udfkit_rc rc = udfkit_kernel_entry_parse(text.data, twin);
    if (!rc)
        rc = udfkit_kernel_entry_bind(twin, e->fn, 1, false);
    twin->hidden = true;
    twin->word = values ? &arrow_values : &arrow_masked;
    udfkit_buf_free(&text);
    return rc;
}

/* The entries, then the hidden nullable_map and nullable_filter entries that maps' and filters'
 * `_arrow` launchers run where inputs have nulls (one per UDF, unless such an entry is given:
 * its launcher serves), and the hidden filter(p, values) entries that filters' `_arrow`
 * launchers without string columns run where none has (likewise), into *all (entries [0,
 * count) are copies of `entries`; the caller frees the others). *bits: whether the library
 * needs arrow_bits.cu.in's kernels. */
static udfkit_rc with_hidden_entries(const udfkit_kernel_entry *entries, size_t count, bool arrow,
                                     udfkit_kernel_entry **out, size_t *nall, bool *bits, bool *strings)
{
    udfkit_kernel_entry *all = calloc(3 * count + 1, sizeof *all);
    *out = all;
    *nall = 0;
    if (!all)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    for (size_t i = 0; i < count; i++) {
        all[i] = entries[i];
        if (arrow && udfkit_arrow_entry(&entries[i])) {
            *bits |= udfkit_arrow_has_bools(&entries[i]) || entries[i].tpl == UDFKIT_KERNEL_FILTER;
            *strings |= entries[i].tpl == UDFKIT_KERNEL_FILTER && udfkit_signature_has(&entries[i].fn->sig, UDFKIT_KIND_TEXT);
        }
    }
    *nall = count;
    udfkit_rc rc = UDFKIT_RC_OK;
    for (size_t i = 0; i < count && !rc; i++) {
        const udfkit_kernel_entry *e = &entries[i];
        if (!arrow || (e->tpl != UDFKIT_KERNEL_MAP && e->tpl != UDFKIT_KERNEL_FILTER) || !udfkit_arrow_entry(e))
            continue;
        const udfkit_kernel_template twin_tpl = e->tpl == UDFKIT_KERNEL_MAP ? UDFKIT_KERNEL_NULLABLE_MAP
                                                                             : UDFKIT_KERNEL_NULLABLE_FILTER;
        if (!serving_entry(all, *nall, twin_tpl, false, e->c_name))
            rc = add_hidden(all, nall, twin_tpl, false, e);
        if (!rc && selects_values(e) && !serving_entry(all, *nall, UDFKIT_KERNEL_FILTER, true, e->c_name))
            rc = add_hidden(all, nall, UDFKIT_KERNEL_FILTER, true, e);
    }
    return rc;
}

static void hidden_entries_free(udfkit_kernel_entry *all, size_t count, size_t nall)
{
    for (size_t i = count; i < nall; i++)
        udfkit_kernel_entry_free(&all[i]);
    free(all);
}

udfkit_rc udfkit_kernels_render(const char *name, const char *fatbin_symbol, const char *header_include,
                                const udfkit_kernel_entry *entries, size_t count, const udfkit_spec *slots,
                                size_t nslots, size_t noptional_slots, udfkit_kernels_text *out)
{
    return udfkit_kernels_render_arrow(name, fatbin_symbol, header_include, entries, count, slots, nslots,
                                       noptional_slots, false, out);
}

/* What the entries' kernels need of the shared helpers (UDFKIT_NEEDS_*), and how many kernels
 * the entries have. */
static unsigned entries_needs(const udfkit_kernel_entry *all, size_t nall, bool arrow_text, size_t *nkernels)
{
    unsigned needs = 0;
    for (size_t i = 0; i < nall; i++) {
        const udfkit_template_row *row = udfkit_kernel_entry_row(&all[i]);
        needs |= row->helpers;
        if (udfkit_signature_has(&all[i].fn->sig, UDFKIT_KIND_TEXT) ||
            (all[i].op && udfkit_signature_has(&all[i].op->sig, UDFKIT_KIND_TEXT)))
            needs |= UDFKIT_NEEDS_STRINGS;
        *nkernels += kernel_count(row);
    }
    /* A filter's `_arrow` launcher over string columns scans its outputs' offsets as string
     * results do. */
    if (arrow_text)
        needs |= UDFKIT_NEEDS_OFFSETS | UDFKIT_NEEDS_OFFSETS_SCAN | UDFKIT_NEEDS_TILES;
    return needs;
}

/* The names of the kernels defined in `cuda`: each `__global__ void [__launch_bounds__(...)]
 * NAME(`; the generated text is the generator's own, so this is all a kernel looks like. */
static void kernel_names(const char *cuda, json_t *names)
{
    for (const char *p = strstr(cuda, "__global__"); p; p = strstr(p, "__global__")) {
        p += strlen("__global__");
        while (isspace((unsigned char)*p))
            p++;
        if (strncmp(p, "void", 4) != 0)
            continue;
        p += 4;
        while (isspace((unsigned char)*p))
            p++;
        if (strncmp(p, "__launch_bounds__", 17) == 0) {
            p += 17;
            while (isspace((unsigned char)*p))
                p++;
            for (int depth = 0; *p;) {
                depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
                p++;
                if (depth == 0)
                    break;
            }
            while (isspace((unsigned char)*p))
                p++;
        }
        const char *start = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        if (p > start && *p == '(') {
            char *name = strndup(start, (size_t)(p - start));
            if (name)
                json_array_append_new(names, json_string(name));
            free(name);
        }
    }
}

/* The link units (`udfkit link --units`): each entry's kernels with the UDFs they call, and
 * one unit of the kernels no entry has (the scans and inits entries share), which call none. */
static void units_text(json_t *units, const char *cuda, udfkit_buf *out)
{
    udfkit_strset listed = UDFKIT_STRSET_INIT;
    json_t *all = json_array();
    kernel_names(cuda, all);
    size_t i;
    json_t *u, *k;
    json_array_foreach(units, i, u)
    {
        size_t j;
        json_array_foreach(json_object_get(u, "kernels"), j, k) udfkit_strset_add(&listed, json_string_value(k));
    }
    json_t *shared = json_array();
    json_array_foreach(all, i, k)
    {
        if (udfkit_strset_add(&listed, json_string_value(k))) /* not an entry's, and once */
            json_array_append(shared, k);
    }
    if (json_array_size(shared)) {
        json_t *unit = json_object();
        json_object_set_new(unit, "entry", json_string("(shared)"));
        json_object_set_new(unit, "kernels", shared);
        json_object_set_new(unit, "calls", json_array());
        json_array_append_new(units, unit);
    } else
        json_decref(shared);
    json_t *root = json_object();
    json_object_set_new(root, "udfkit_units", json_integer(1));
    /* The kernels' source these units are of: a link checks that its inputs were compiled
     * from it, so that a stale file cannot leave kernels out. */
    char digest[UDFKIT_HASH_HEX_SIZE];
    udfkit_hash_hex(cuda, strlen(cuda), digest);
    json_object_set_new(root, "source_xxh3_128", json_string(digest));
    json_object_set(root, "units", units);
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    if (text) {
        udfkit_buf_puts(out, text);
        udfkit_buf_puts(out, "\n");
    }
    free(text);
    json_decref(root);
    json_decref(all);
    udfkit_strset_free(&listed);
}

udfkit_rc udfkit_kernels_render_arrow(const char *name, const char *fatbin_symbol, const char *header_include,
                                      const udfkit_kernel_entry *entries, size_t count, const udfkit_spec *slots,
                                      size_t nslots, size_t noptional_slots, bool arrow, udfkit_kernels_text *out)
{
    udfkit_rc rc = UDFKIT_RC_OK;
    udfkit_buf common = UDFKIT_BUF_INIT, guard = UDFKIT_BUF_INIT;
    char block[16], rounds[16], abi[16], nkernels_text[32];
    snprintf(block, sizeof block, "%d", UDFKIT_KERNEL_BLOCK);
    snprintf(rounds, sizeof rounds, "%d", UDFKIT_KERNEL_FILTER_ROUNDS);
    snprintf(abi, sizeof abi, "%d", UDFKIT_RUNTIME_ABI_VERSION);
    char *upper = strdup(name);
    for (char *p = upper; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    udfkit_buf_printf(&guard, "UDFKIT_LIBRARY_%s_H", name);
    render_parts r = {.name = name, .upper = upper, .slotted = nslots > 0, .with_arrow = arrow, .units = json_array()};
    udfkit_buf slot_table = UDFKIT_BUF_INIT, slot_flags = UDFKIT_BUF_INIT, slot_markers = UDFKIT_BUF_INIT;
    char nslots_text[32];
    snprintf(nslots_text, sizeof nslots_text, "%zu", nslots);
    slot_texts(slots, nslots, noptional_slots, &slot_table, &slot_flags, &slot_markers);

    /* The entries, then the hidden ones that maps' and filters' `_arrow` launchers run. */
    udfkit_kernel_entry *all = NULL;
    size_t nall = 0;
    bool bits = false;
    rc = with_hidden_entries(entries, count, r.with_arrow, &all, &nall, &bits, &r.arrow_text);
    /* The name table: each entry's kernels in order, then the scan all nullable filters share
     * and the init all filters share, the offsets scans, the `_arrow` launchers' bit kernels. */
    size_t nkernels = 0;
    const unsigned needs = rc ? 0u : entries_needs(all, nall, r.arrow_text, &nkernels);
    bool filters = needs & UDFKIT_NEEDS_FILTER_SCAN, selects = needs & UDFKIT_NEEDS_SELECT,
         offsets = needs & UDFKIT_NEEDS_OFFSETS;
    char offsets_index[32];
    snprintf(r.scan_index, sizeof r.scan_index, "%zu", nkernels);
    snprintf(r.select_index, sizeof r.select_index, "%zu", nkernels + filters);
    snprintf(offsets_index, sizeof offsets_index, "%zu", nkernels + filters + selects);
    snprintf(r.offsets_index, sizeof r.offsets_index, "%s", offsets_index);
    snprintf(r.bits_index, sizeof r.bits_index, "%zu", nkernels + filters + selects + 3 * offsets);
    snprintf(nkernels_text, sizeof nkernels_text, "%zu",
             nkernels + filters + selects + 3 * offsets + 3 * bits + 2 * (bits && r.arrow_text));

    r.all = all;
    r.nall = nall;
    size_t next = 0;
    udfkit_strset declared = UDFKIT_STRSET_INIT;
    for (size_t i = 0; i < nall && !rc; i++) {
        declare_udf(all[i].fn, &declared, &r.protos);
        if (all[i].op)
            declare_udf(all[i].op, &declared, &r.protos);
        rc = render_entry(&r, &all[i], next);
        next += kernel_count(udfkit_kernel_entry_row(&all[i]));
    }
    udfkit_strset_free(&declared);
    hidden_entries_free(all, count, nall);
    const udfkit_template_var helper_vars[] = {{"NAME", name},
                                               {"UPPER_NAME", upper},
                                               {"BLOCK", block},
                                               {"FILTER_ROUNDS", rounds},
                                               {"OFFSETS_INDEX", offsets_index}};
    size_t nhelper_vars = sizeof helper_vars / sizeof *helper_vars;
    if (!rc)
        rc = render_shared(&r, needs | (bits ? UDFKIT_NEEDS_ARROW : 0u), count > 0, helper_vars, nhelper_vars, &common);
    udfkit_buf_puts(&common, r.launchers.data ? r.launchers.data : "");
    udfkit_buf_puts(&common, r.arrow.data ? r.arrow.data : "");
    /* The template breaks the line after the last marker. */
    while (r.markers.size && r.markers.data[r.markers.size - 1] == '\n')
        r.markers.data[--r.markers.size] = '\0';
    const udfkit_template_var vars[] = {
        {"VERSION", UDFKIT_VERSION_STRING},
        {"NAME", name},
        {"BLOCK", block},
        {"FILTER_ROUNDS", rounds},
        {"ABI_VERSION", abi},
        {"SYMBOL", fatbin_symbol},
        {"HEADER_NAME", udfkit_path_basename(header_include)},
        {"HEADER_INCLUDE", header_include},
        {"GUARD", guard.data},
        {"PROTOTYPES", r.protos.data ? r.protos.data : ""},
        /* String results take a builder (udfkit_string_out *). */
        {"UDF_TYPES", needs & UDFKIT_NEEDS_STRINGS ? "#include <udfkit/string.cuh>\n\n" : ""},
        {"KERNEL_NAMES", r.names.data ? r.names.data : ""},
        {"KERNEL_COUNT", nkernels_text},
        {"MARKERS", r.markers.data ? r.markers.data : " *   (none)"},
        {"C_LAUNCHERS", common.data},
        {"LAUNCHER_DECLARATIONS", r.decls.data ? r.decls.data : ""},
        {"SLOT_TABLE", slot_table.data ? slot_table.data : ""},
        {"SLOT_OPTIONAL", slot_flags.data ? slot_flags.data : ""},
        {"SLOT_COUNT", nslots_text},
        {"SLOT_MARKERS", slot_markers.data ? slot_markers.data : " *   (no slots)"},
    };
    size_t nvars = sizeof vars / sizeof *vars;
    if (!rc)
        rc = udfkit_template_render(udfkit_tpl_kernel_prelude, vars, nvars, &out->cuda);
    if (!rc && (needs & UDFKIT_NEEDS_STRINGS))
        rc = udfkit_template_render(udfkit_tpl_kernel_string_helpers, vars, nvars, &out->cuda);
    if (!rc && (needs & UDFKIT_NEEDS_REDUCE))
        rc = udfkit_template_render(udfkit_tpl_kernel_reduce_helpers, vars, nvars, &out->cuda);
    if (!rc && selects)
        rc = udfkit_template_render(udfkit_tpl_kernel_select_helpers, vars, nvars, &out->cuda);
    if (!rc && (needs & UDFKIT_NEEDS_CARRIED))
        rc = udfkit_template_render(udfkit_tpl_kernel_carried_helpers, vars, nvars, &out->cuda);
    if (!rc)
        udfkit_buf_puts(&out->cuda, r.kernels.data ? r.kernels.data : "");
    if (!rc)
        units_text(r.units, out->cuda.data ? out->cuda.data : "", &out->units);
    json_decref(r.units);
    if (!rc)
        rc = udfkit_template_render(r.slotted ? udfkit_tpl_kernel_launchers_slots : udfkit_tpl_kernel_launchers, vars,
                                    nvars, &out->c);
    if (!rc)
        rc = udfkit_template_render(r.slotted ? udfkit_tpl_kernel_library_slots_h : udfkit_tpl_kernel_library_h, vars,
                                    nvars, &out->header);
    free(upper);
    udfkit_buf *bufs[] = {&r.protos,    &r.kernels, &r.names,      &r.markers,  &r.decls, &r.launchers,
                          &common,     &guard,     &slot_table,   &slot_flags, &slot_markers, &r.arrow};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        udfkit_buf_free(bufs[i]);
    return rc;
}

void udfkit_kernels_text_free(udfkit_kernels_text *t)
{
    udfkit_buf_free(&t->cuda);
    udfkit_buf_free(&t->c);
    udfkit_buf_free(&t->header);
    udfkit_buf_free(&t->units);
}

/* The functions the entries may name, from every input, each c_name once. */
typedef struct function_set {
    udfkit_spec *specs;
    char **origins; /* a manifest's path, or the --function spec */
    size_t count;
} function_set;

/* Takes the spec over, also when it fails. */
static udfkit_rc function_set_add(function_set *set, udfkit_spec *spec, const char *origin)
{
    for (size_t i = 0; i < set->count; i++) {
        if (strcmp(set->specs[i].c_name, spec->c_name) != 0)
            continue;
        udfkit_rc rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function '%s' is given twice: by %s and by %s",
                                   spec->c_name, set->origins[i], origin);
        udfkit_spec_free(spec);
        return rc;
    }
    udfkit_spec *specs = realloc(set->specs, (set->count + 1) * sizeof *specs);
    if (specs)
        set->specs = specs;
    char **origins = realloc(set->origins, (set->count + 1) * sizeof *origins);
    if (origins)
        set->origins = origins;
    if (!specs || !origins) {
        udfkit_spec_free(spec);
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    }
    set->specs[set->count] = *spec;
    set->origins[set->count] = strdup(origin);
    set->count++;
    return UDFKIT_RC_OK;
}

static void function_set_free(function_set *set)
{
    for (size_t i = 0; i < set->count; i++) {
        udfkit_spec_free(&set->specs[i]);
        free(set->origins[i]);
    }
    free(set->specs);
    free(set->origins);
}

static udfkit_rc read_functions(const udfkit_kernels_request *req, function_set *set)
{
    udfkit_rc rc = UDFKIT_RC_OK;
    udfkit_buf origin = UDFKIT_BUF_INIT;
    for (size_t i = 0; i < req->nfunctions && !rc; i++) {
        udfkit_spec spec;
        if ((rc = udfkit_spec_parse(req->functions[i], &spec))) {
            udfkit_spec_free(&spec);
            break;
        }
        origin.size = 0;
        udfkit_buf_printf(&origin, "--function '%s'", req->functions[i]);
        rc = function_set_add(set, &spec, origin.data);
    }
    for (size_t m = 0; m < req->nmanifests && !rc; m++) {
        udfkit_manifest man;
        if (!(rc = udfkit_manifest_load(req->manifests[m], &man))) {
            size_t i;
            json_t *fn;
            json_array_foreach(json_object_get(man.root, "functions"), i, fn)
            {
                udfkit_spec spec;
                if (!(rc = udfkit_manifest_function_spec(&man, fn, &spec)))
                    rc = function_set_add(set, &spec, req->manifests[m]);
                else
                    udfkit_spec_free(&spec);
                if (rc)
                    break;
            }
        }
        udfkit_manifest_free(&man);
    }
    udfkit_buf_free(&origin);
    return rc;
}

/* Fails where two entries would define the same launcher: the same entry given twice, or two
 * entries whose names meet (nullable_map(f, nullify) and nullable_map(f_nullify) both make
 * <name>_nullable_map_f_nullify). */
static udfkit_rc check_launchers_differ(const char *name, const udfkit_kernel_entry *a, const udfkit_kernel_entry *b)
{
    udfkit_buf x = UDFKIT_BUF_INIT, y = UDFKIT_BUF_INIT;
    udfkit_kernel_entry_suffix(a, &x);
    udfkit_kernel_entry_suffix(b, &y);
    udfkit_rc rc = UDFKIT_RC_OK;
    if (a->tpl == b->tpl && strcmp(x.data, y.data) == 0) {
        if (strcmp(a->c_name, b->c_name) == 0)
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "kernel entry '%s' is given twice (also as '%s')", b->text,
                             a->text);
        else
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                             "kernel entries '%s' and '%s' would both make the launcher %s_%s_%s: rename one "
                             "function",
                             a->text, b->text, name, udfkit_kernel_template_name(a->tpl), x.data);
    }
    udfkit_buf_free(&x);
    udfkit_buf_free(&y);
    return rc;
}

static udfkit_rc check_name(const char *name)
{
    if (!udfkit_is_c_identifier(name))
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                           "--name '%s' is not a C identifier: the library's functions are named after it "
                           "(<name>_load, <name>_map_<f>, ...)",
                           name ? name : "");
    udfkit_buf load = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&load, "%s_load", name);
    const char *why = udfkit_c_name_reserved(load.data);
    udfkit_rc rc = why ? udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "--name '%s' cannot name a library (%s): %s", name,
                                     load.data, why)
                       : UDFKIT_RC_OK;
    udfkit_buf_free(&load);
    return rc;
}

/* How the C source includes the header: its path relative to the source's directory. */
static udfkit_rc header_include(const char *c_output, const char *header_output, char **out)
{
    char *dir = udfkit_path_dirname(c_output);
    *out = udfkit_path_relative(header_output, dir);
    free(dir);
    for (const char *p = *out; *p; p++)
        if (!isprint((unsigned char)*p) || *p == '"' || *p == '\\')
            return udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "the header '%s' cannot be included from C by its path '%s'",
                               header_output, *out);
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_kernels_generate(const udfkit_kernels_request *req)
{
    udfkit_rc rc = UDFKIT_RC_OK;
    udfkit_outputs *outputs = udfkit_outputs_new();
    function_set fns = {0};
    udfkit_kernel_entry *entries = calloc(req->nkernels + 1, sizeof *entries);
    size_t nentries = 0, nslots = 0;
    udfkit_spec *slots = NULL;
    udfkit_buf symbol = UDFKIT_BUF_INIT;
    char *include = NULL;
    udfkit_kernels_text text = {UDFKIT_BUF_INIT, UDFKIT_BUF_INIT, UDFKIT_BUF_INIT, UDFKIT_BUF_INIT};
    if (!req->check) {
        const char *paths[] = {req->cuda_output, req->c_output, req->header_output};
        for (size_t i = 0; i < 3 && !rc; i++)
            rc = udfkit_outputs_claim(outputs, paths[i]);
        if (!rc && req->units_output)
            rc = udfkit_outputs_claim(outputs, req->units_output);
        if (!rc)
            rc = udfkit_outputs_inputs(outputs, req->manifests, req->nmanifests);
    }
    if (rc || (rc = check_name(req->name)))
        goto done;
    udfkit_buf_printf(&symbol, "%s", req->fatbin_symbol ? req->fatbin_symbol : req->name);
    if (!req->fatbin_symbol)
        udfkit_buf_puts(&symbol, "_fatbin");
    if (!udfkit_is_c_identifier(symbol.data)) {
        rc = udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "--fatbin-symbol '%s' is not a C identifier", symbol.data);
        goto done;
    }
    if ((rc = read_functions(req, &fns)))
        goto done;
    /* Slots: functions the kernels call like any other, declared with their return types. */
    slots = calloc(req->nslots + 1, sizeof *slots);
    for (size_t i = 0; i < req->nslots && !rc; i++) {
        udfkit_spec copy;
        if ((rc = udfkit_spec_parse(req->slots[i], &slots[nslots])))
            break;
        nslots++;
        if (!slots[i].sig.has_return) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                             "slot '%s': a slot's signature needs a return type (it is bound to functions of exactly "
                             "this signature)",
                             req->slots[i]);
            break;
        }
        if (!(rc = udfkit_spec_parse(req->slots[i], &copy))) {
            udfkit_buf origin = UDFKIT_BUF_INIT;
            udfkit_buf_printf(&origin, "--%sslot '%s'", i >= req->nslots - req->noptional_slots ? "optional-" : "",
                              req->slots[i]);
            rc = function_set_add(&fns, &copy, origin.data);
            udfkit_buf_free(&origin);
        }
    }
    if (rc)
        goto done;
    for (size_t i = 0; i < req->nkernels && !rc; i++) {
        udfkit_kernel_entry *e = &entries[nentries++];
        if ((rc = udfkit_kernel_entry_parse(req->kernels[i], e)))
            break;
        for (size_t j = 0; j + 1 < nentries && !rc; j++)
            rc = check_launchers_differ(req->name, &entries[j], e);
        if (!rc)
            rc = udfkit_kernel_entry_bind(e, fns.specs, fns.count, req->check);
    }
    if (rc || req->check)
        goto done;
    if ((rc = header_include(req->c_output, req->header_output, &include)))
        goto done;
    if ((rc = udfkit_kernels_render_arrow(req->name, symbol.data, include, entries, nentries, slots, nslots,
                                           req->noptional_slots, req->arrow, &text)))
        goto done;
    if (!(rc = udfkit_outputs_write(outputs, req->cuda_output, text.cuda.data, text.cuda.size)) &&
        !(rc = udfkit_outputs_write(outputs, req->c_output, text.c.data, text.c.size)) &&
        !(rc = udfkit_outputs_write(outputs, req->header_output, text.header.data, text.header.size)) &&
        !(rc = req->units_output ? udfkit_outputs_write(outputs, req->units_output, text.units.data, text.units.size)
                                 : UDFKIT_RC_OK))
        rc = udfkit_outputs_commit(outputs);
done:
    for (size_t i = 0; i < nentries; i++)
        udfkit_kernel_entry_free(&entries[i]);
    free(entries);
    for (size_t i = 0; i < nslots; i++)
        udfkit_spec_free(&slots[i]);
    free(slots);
    function_set_free(&fns);
    udfkit_buf_free(&symbol);
    free(include);
    udfkit_kernels_text_free(&text);
    udfkit_outputs_free(outputs);
    return rc;
}
