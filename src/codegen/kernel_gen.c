#include "codegen/kernel_gen.h"

#include "artifact/manifest.h"
#include "base/fs.h"
#include "base/strset.h"
#include "base/templates.h"
#include "base/types.h"
#include "codegen/kernel_rows.h"
#include "codegen/template.h"
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

/* SPEC.md's launcher signature, without the ';'; a SLOTS library's takes its instance first. */
static void launcher_prototype(const char *name, bool slotted, const udfkit_kernel_entry *e, udfkit_buf *out)
{
    const udfkit_signature *s = &e->fn->sig;
    udfkit_buf_printf(out, "udfkit_status %s_%s_", name, udfkit_kernel_template_name(e->tpl));
    udfkit_kernel_entry_suffix(e, out);
    udfkit_buf_puts(out, "(");
    if (slotted)
        udfkit_buf_printf(out, "%s_instance *inst, ", name);
    udfkit_buf_puts(out, e->tpl == UDFKIT_KERNEL_SEGMENTED_REDUCE ? "udfkit_stream s, size_t segments, "
                                                                   : "udfkit_stream s, size_t n, ");
    switch (e->tpl) {
    case UDFKIT_KERNEL_MAP:
    case UDFKIT_KERNEL_NULLABLE_MAP:
        udfkit_rows_inputs(e, false, out);
        udfkit_buf_puts(out, ", ");
        udfkit_rows_outputs(e, false, out);
        udfkit_buf_puts(out, e->tpl == UDFKIT_KERNEL_MAP ? ")" : ", uint64_t *null_count)");
        break;
    case UDFKIT_KERNEL_FILTER:
        udfkit_rows_inputs(e, false, out);
        udfkit_buf_puts(out, ", ");
        udfkit_rows_filter_outputs(e, false, out);
        udfkit_buf_puts(out, ", uint64_t *count)");
        break;
    case UDFKIT_KERNEL_NULLABLE_FILTER:
        udfkit_rows_inputs(e, false, out);
        udfkit_buf_puts(out, ", uint64_t *indices, uint64_t *count)");
        break;
    case UDFKIT_KERNEL_REDUCE:
    case UDFKIT_KERNEL_NULLABLE_REDUCE: {
        udfkit_type t = {s->ret.scalar, false, false};
        udfkit_buf_puts(out, "const ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, e->tpl == UDFKIT_KERNEL_REDUCE ? " *in, " : " *in, udfkit_mask m, ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " init, ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, e->tpl == UDFKIT_KERNEL_REDUCE ? " *out)" : " *out, uint64_t *valid_count)");
        break;
    }
    case UDFKIT_KERNEL_INCLUSIVE_SCAN:
    case UDFKIT_KERNEL_EXCLUSIVE_SCAN: {
        udfkit_type t = {s->ret.scalar, false, false};
        udfkit_buf_puts(out, "const ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " *in, ");
        if (e->tpl == UDFKIT_KERNEL_EXCLUSIVE_SCAN) {
            udfkit_type_c(t, out);
            udfkit_buf_puts(out, " init, ");
        }
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " *out)");
        break;
    }
    case UDFKIT_KERNEL_SEGMENTED_REDUCE: {
        udfkit_type t = {s->ret.scalar, false, false};
        udfkit_buf_puts(out, "const uint64_t *offsets, const ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " *in, ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " init, ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " *out)");
        break;
    }
    case UDFKIT_KERNEL_TRANSFORM_REDUCE: {
        udfkit_type t = {(s->has_return ? s->ret : e->op->sig.ret).scalar, false, false};
        udfkit_rows_inputs(e, false, out);
        udfkit_buf_puts(out, ", ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " init, ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " *out)");
        break;
    }
    case UDFKIT_KERNEL_REDUCE_BY_KEY: {
        udfkit_type t = {s->ret.scalar, false, false}, k = {e->key, false, false};
        udfkit_buf_puts(out, "const ");
        udfkit_type_c(k, out);
        udfkit_buf_puts(out, " *keys, const ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " *in, ");
        udfkit_type_c(k, out);
        udfkit_buf_puts(out, " *unique_keys, ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " *out, uint64_t *runs)");
        break;
    }
    case UDFKIT_KERNEL_SORT: {
        udfkit_type t = {s->params[0].scalar, false, false};
        udfkit_buf_puts(out, "const ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " *in, ");
        udfkit_type_c(t, out);
        udfkit_buf_puts(out, " *out, uint64_t *order)");
        break;
    }
    }
}

/* sort's rows a thread, CUB's merge sort policy for sm_60 and later (tuning_merge_sort.cuh:
 * 256 threads of Nominal4BItemsToItems<T>(17) rows): 17 for T of 4 bytes or less, 68 / size
 * above. A tile is 256 times as many rows. */
static size_t sort_items(const udfkit_kernel_entry *e)
{
    size_t size = udfkit_scalar_size(e->fn->sig.params[0].scalar);
    return size <= 4 ? 17 : 17 * 4 / size;
}

/* What a launcher does, for the header. */
static void launcher_doc(const udfkit_kernel_entry *e, udfkit_buf *out)
{
    udfkit_buf args = UDFKIT_BUF_INIT;
    element_args(e, &args);
    const char *f = e->c_name;
    switch (e->tpl) {
    case UDFKIT_KERNEL_MAP:
        if (UDFKIT_MAP_HAS_OUTPUTS(&e->fn->sig))
            udfkit_buf_printf(out, "/* map(%s): %s(%s) for i < n, writing %zu output columns. */\n", f, f, args.data,
                              e->fn->sig.nparams - udfkit_kernel_map_inputs(&e->fn->sig));
        else
            udfkit_buf_printf(out, "/* map(%s): out[i] = %s(%s) for i < n. */\n", f, f, args.data);
        break;
    case UDFKIT_KERNEL_FILTER:
        if (e->filter_out == UDFKIT_FILTER_VALUES)
            udfkit_buf_printf(out,
                              "/* filter(%s, values): the rows i < n where %s(%s) holds, in order: each input's\n"
                              " * values of them into its out column (room for n rows each), and their number\n"
                              " * into *count. */\n",
                              f, f, args.data);
        else
            udfkit_buf_printf(out,
                              "/* filter(%s%s): the rows i < n where %s(%s) holds, ascending,\n"
                              " * into indices (room for n rows%s), and their number into *count.%s */\n",
                              f, e->filter_out == UDFKIT_FILTER_INDICES32 ? ", indices32" : "", f, args.data,
                              e->filter_out == UDFKIT_FILTER_INDICES32 ? ", 32-bit row numbers" : "",
                              e->filter_out == UDFKIT_FILTER_INDICES32 ? "\n * n > 2^32 is UDFKIT_ERROR_INVALID_ARGUMENT." : "");
        break;
    case UDFKIT_KERNEL_REDUCE:
        udfkit_buf_printf(out,
                          "/* reduce(%s): *out = init combined by %s with in[0], ..., in[n - 1], in this order\n"
                          " * (%s must be associative; it need not commute); init where n = 0. */\n",
                          f, f, f);
        break;
    case UDFKIT_KERNEL_NULLABLE_MAP:
        udfkit_buf_printf(out,
                          "/* nullable_map(%s%s): %s over rows i < n where %s, writing %zu output column%s with\n"
                          " * validity bitmaps (ceil(n / 8) bytes each, from bit 0) and, where null_count is not\n"
                          " * NULL, each output's number of nulls into null_count[j] (device memory). */\n",
                          f, e->nullify ? ", nullify" : "", f,
                          udfkit_signature_nullable(&e->fn->sig) ? "no input without a T? parameter is null"
                                                                 : "every input is valid",
                          udfkit_rows_output_count(e), udfkit_rows_output_count(e) > 1 ? "s" : "");
        break;
    case UDFKIT_KERNEL_NULLABLE_FILTER:
        udfkit_buf_printf(out,
                          "/* nullable_filter(%s): the rows i < n where %s is valid and true, ascending, into\n"
                          " * indices (room for n rows), and their number into *count. */\n",
                          f, f);
        break;
    case UDFKIT_KERNEL_NULLABLE_REDUCE:
        udfkit_buf_printf(out,
                          "/* nullable_reduce(%s): *out = init combined by %s with the valid rows of in, in order,\n"
                          " * nulls skipped; where valid_count is not NULL, *valid_count = their number. */\n",
                          f, f);
        break;
    case UDFKIT_KERNEL_INCLUSIVE_SCAN:
        udfkit_buf_printf(out,
                          "/* inclusive_scan(%s): out[i] = in[0] %s ... %s in[i] for i < n, combined in order (%s\n"
                          " * must be associative; it need not commute). in and out may be the same array. */\n",
                          f, f, f, f);
        break;
    case UDFKIT_KERNEL_EXCLUSIVE_SCAN:
        udfkit_buf_printf(out,
                          "/* exclusive_scan(%s): out[0] = init, out[i] = init %s in[0] %s ... %s in[i - 1] for\n"
                          " * i < n, combined in order (%s must be associative; it need not commute). in and out\n"
                          " * may be the same array. */\n",
                          f, f, f, f, f);
        break;
    case UDFKIT_KERNEL_SEGMENTED_REDUCE:
        udfkit_buf_printf(out,
                          "/* segmented_reduce(%s): out[k] = init combined by %s with in[offsets[k]], ...,\n"
                          " * in[offsets[k + 1] - 1] in order, for k < segments (offsets holds segments + 1 row\n"
                          " * numbers, ascending); init for an empty segment (%s must be associative; it need not\n"
                          " * commute). */\n",
                          f, f, f);
        break;
    case UDFKIT_KERNEL_TRANSFORM_REDUCE:
        udfkit_buf_printf(out,
                          "/* transform_reduce(%s, %s): *out = init %s %s(%s) for i = 0, ..., n - 1, combined in\n"
                          " * order, in one pass (%s must be associative; it need not commute); init where n = 0. */\n",
                          f, e->op_name, e->op_name, f, args.data, e->op_name);
        break;
    case UDFKIT_KERNEL_REDUCE_BY_KEY:
        udfkit_buf_printf(out,
                          "/* reduce_by_key(%s, %s): for each run of equal consecutive keys[i], i < n, its key into\n"
                          " * unique_keys[r] and its values combined by %s in row order into out[r] (%s must be\n"
                          " * associative; it need not commute); the number of runs into *runs (device memory). */\n",
                          f, udfkit_scalar_name(e->key), f, f);
        break;
    case UDFKIT_KERNEL_SORT:
        udfkit_buf_printf(out,
                          "/* sort(%s): in[0], ..., in[n - 1] into out in the order %s gives (%s(a, b): a goes\n"
                          " * before b; a strict weak order), stable: rows %s leaves equivalent keep their input\n"
                          " * order. Where order is not NULL, order[i] = the row of in that out[i] came from. in\n"
                          " * and out may be the same array (a sort in place); order overlaps neither. Takes\n"
                          " * n * sizeof(T) bytes of temporary memory (n * 8 more with order) in stream order.\n"
                          " * A failing %s is recorded at the first row of the tile of %zu rows it failed in\n"
                          " * (the first pass compares each row of a tile of two or more), else at the first row\n"
                          " * of the span a merge pass merged; out and order are then unspecified. */\n",
                          f, f, f, f, f, 256 * sort_items(e));
        break;
    }
    udfkit_buf_free(&args);
}

/* How many kernels of its own an entry's launcher uses: map, filter and segmented_reduce
 * one, the others two (filters also the init, nullable filters the scan they share;
 * nullable_map a second kernel for inputs without bitmaps). */
static size_t kernel_count(udfkit_kernel_template tpl)
{
    if (tpl == UDFKIT_KERNEL_SORT)
        return 5; /* block sorts of keys, of keys and rows; the merge passes' partition and merges */
    return tpl == UDFKIT_KERNEL_MAP || tpl == UDFKIT_KERNEL_FILTER || tpl == UDFKIT_KERNEL_SEGMENTED_REDUCE ? 1 : 2;
}

/* Whether the entry's launcher gives each block a chunk of rows (udfkit_<name>_chunks). */
static bool chunked_template(udfkit_kernel_template tpl)
{
    return tpl == UDFKIT_KERNEL_NULLABLE_FILTER || tpl == UDFKIT_KERNEL_REDUCE || tpl == UDFKIT_KERNEL_NULLABLE_REDUCE ||
           tpl == UDFKIT_KERNEL_TRANSFORM_REDUCE;
}

/* The kernels an entry uses, in the order of the launchers' name table. */
static void kernel_names(const char *kernel, udfkit_kernel_template tpl, udfkit_buf *out)
{
    static const char *const suffixes[][5] = {
        [UDFKIT_KERNEL_MAP] = {"", NULL},
        [UDFKIT_KERNEL_FILTER] = {"", NULL},
        [UDFKIT_KERNEL_REDUCE] = {"_partials", "_final"},
        [UDFKIT_KERNEL_NULLABLE_MAP] = {"", "_dense"},
        [UDFKIT_KERNEL_NULLABLE_FILTER] = {"_flags", "_write"},
        [UDFKIT_KERNEL_NULLABLE_REDUCE] = {"_partials", "_final"},
        [UDFKIT_KERNEL_INCLUSIVE_SCAN] = {"_init", "_scan"},
        [UDFKIT_KERNEL_EXCLUSIVE_SCAN] = {"_init", "_scan"},
        [UDFKIT_KERNEL_REDUCE_BY_KEY] = {"_init", "_reduce"},
        [UDFKIT_KERNEL_TRANSFORM_REDUCE] = {"_partials", "_final"},
        [UDFKIT_KERNEL_SEGMENTED_REDUCE] = {"", NULL},
        [UDFKIT_KERNEL_SORT] = {"_block_keys", "_block_pairs", "_partition", "_merge_keys", "_merge_pairs"},
    };
    for (size_t i = 0; i < 5 && suffixes[tpl][i]; i++)
        udfkit_buf_printf(out, "    \"%s%s\",\n", kernel, suffixes[tpl][i]);
}

/* What the entries add up to, section by section of the generated files. */
typedef struct render_parts {
    const char *name;       /* the library's */
    bool slotted;           /* a SLOTS library: launchers take an instance */
    const char *upper;      /* the same in capitals */
    udfkit_buf protos;      /* device prototypes of the UDFs the kernels call */
    udfkit_buf kernels;     /* CUDA C kernels */
    udfkit_buf names;       /* the name table */
    char scan_index[32];    /* the nullable filters' shared scan kernel in the name table, */
    char select_index[32];  /* and the filters' shared init kernel */
    udfkit_buf markers;     /* machine-readable lines, one per launcher */
    udfkit_buf decls;       /* launcher declarations for the header */
    udfkit_buf launchers;   /* launcher definitions */
} render_parts;

/* The UDF's C-ABI prototype for device code (T? as its pair), once per function. */
static void declare_udf(const udfkit_spec *fn, udfkit_strset *declared, udfkit_buf *protos)
{
    if (!udfkit_strset_add(declared, fn->c_name))
        return;
    const udfkit_signature abi = udfkit_exporter_c_abi(&fn->sig);
    const udfkit_signature *s = &abi;
    udfkit_buf_puts(protos, "__device__ ");
    udfkit_exporter_abi_type(s->ret, protos);
    udfkit_buf_printf(protos, " %s(", fn->c_name);
    for (size_t p = 0; p < s->nparams; p++) {
        udfkit_buf_puts(protos, p ? ", " : "");
        udfkit_exporter_abi_type(s->params[p], protos);
        udfkit_buf_printf(protos, protos->data[protos->size - 1] == '*' ? "a%zu" : " a%zu", p);
    }
    /* Every template passes at least one argument. */
    udfkit_buf_puts(protos, ");\n");
}

/* The texts an entry's templates fill in. */
typedef struct entry_texts {
    udfkit_buf kernel;   /* the kernel's name (the name table adds suffixes) */
    udfkit_buf params;   /* the kernel's input parameters (maps and filters) */
    udfkit_buf args;     /* what the kernels pass to the row functions */
    udfkit_buf dense;    /* nullable_map: the same with every mask empty (filter: its stencil), */
    udfkit_buf no_bits;  /*   and the launcher's test for no input bitmap */
    udfkit_buf ptrs;     /* the launcher's kernel arguments for the inputs */
    udfkit_buf ret;      /* the UDF's return type as the C ABI spells it */
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
} entry_texts;

/* filter(p, values) of one column: its own kernel (filter_values.cu.in), selecting the values. */
static bool one_column_values(const udfkit_kernel_entry *e)
{
    return e->tpl == UDFKIT_KERNEL_FILTER && e->filter_out == UDFKIT_FILTER_VALUES && udfkit_rows_input_count(e) == 1;
}

static void entry_texts_fill(const render_parts *r, const udfkit_kernel_entry *e, entry_texts *t)
{
    const udfkit_signature *s = &e->fn->sig;
    udfkit_buf_printf(&t->kernel, "udfkit_%s_%s_", r->name, udfkit_kernel_template_name(e->tpl));
    udfkit_kernel_entry_suffix(e, &t->kernel);
    /* T: what the UDF returns (transform_reduce's f without one: op's), sort's values. */
    udfkit_scalar value = e->tpl == UDFKIT_KERNEL_SORT ? s->params[0].scalar
                          : s->has_return || !e->op   ? s->ret.scalar
                                                      : e->op->sig.ret.scalar;
    udfkit_exporter_abi_type((udfkit_type){value, false, false}, &t->ret);
    switch (e->tpl) {
    case UDFKIT_KERNEL_TRANSFORM_REDUCE: {
        /* f's rows as a map's: its inputs loaded 4 rows at a time, its result computed. */
        udfkit_kernel_entry as_map = *e;
        as_map.tpl = UDFKIT_KERNEL_MAP;
        udfkit_rows_inputs(e, true, &t->params);
        udfkit_rows_input_args(e, false, &t->args);
        udfkit_rows_input_args(e, true, &t->ptrs);
        udfkit_buf_puts(&t->fn, e->c_name);
        udfkit_buf_puts(&t->prefix, t->kernel.data);
        udfkit_rows_map_functions(t->prefix.data, &as_map, &t->rows);
        break;
    }
    case UDFKIT_KERNEL_REDUCE:
    case UDFKIT_KERNEL_NULLABLE_REDUCE:
    case UDFKIT_KERNEL_INCLUSIVE_SCAN:
    case UDFKIT_KERNEL_EXCLUSIVE_SCAN:
    case UDFKIT_KERNEL_REDUCE_BY_KEY:
    case UDFKIT_KERNEL_SEGMENTED_REDUCE:
    case UDFKIT_KERNEL_SORT:
        /* Their templates take T, the kernel and the UDF's name; the columns are fixed. */
        udfkit_buf_puts(&t->fn, e->c_name);
        udfkit_buf_puts(&t->ptrs, "&in");
        break;
    case UDFKIT_KERNEL_FILTER:
    case UDFKIT_KERNEL_NULLABLE_FILTER:
        /* The template calls <kernel>_load(i, a1, ..., &x) and <kernel>_keep(i, x). */
        udfkit_rows_inputs(e, true, &t->params);
        udfkit_rows_input_args(e, false, &t->args);
        udfkit_rows_input_args(e, true, &t->ptrs);
        udfkit_buf_puts(&t->fn, t->kernel.data);
        udfkit_rows_keep_function(t->fn.data, e, &t->rows);
        if (e->tpl == UDFKIT_KERNEL_NULLABLE_FILTER)
            break;
        udfkit_rows_filter_outputs(e, true, &t->outs);
        udfkit_rows_filter_output_args(e, &t->out_ptrs);
        if (one_column_values(e))
            break; /* filter_values.cu.in: the agent selects the column's values */
        /* filter.cu.in: the agent selects row numbers, by the predicate over the stencil. */
        const char *row_t = e->filter_out == UDFKIT_FILTER_INDICES32 ? "unsigned" : "unsigned long long";
        udfkit_rows_stencil(t->fn.data, row_t, e, &t->rows);
        udfkit_rows_stencil_init(t->fn.data, e, &t->dense);
        udfkit_buf_printf(&t->items, "udfkit_detail::row_iterator<%s>{0}", row_t);
        if (e->filter_out == UDFKIT_FILTER_VALUES) {
            udfkit_rows_gather(t->fn.data, e, &t->rows);
            udfkit_rows_gather_init(t->fn.data, e, &t->out_iter);
        } else {
            udfkit_buf_puts(&t->out_iter, "indices");
        }
        break;
    case UDFKIT_KERNEL_MAP:
    case UDFKIT_KERNEL_NULLABLE_MAP:
        udfkit_rows_inputs(e, true, &t->params);
        udfkit_rows_input_args(e, false, &t->args);
        udfkit_rows_input_args(e, true, &t->ptrs);
        udfkit_rows_outputs(e, true, &t->outs);
        udfkit_rows_output_args(e, false, false, &t->out_vals);
        udfkit_rows_output_args_at(e, "begin", &t->outs_at);
        udfkit_rows_output_args(e, true, e->tpl == UDFKIT_KERNEL_NULLABLE_MAP, &t->out_ptrs);
        if (e->tpl == UDFKIT_KERNEL_NULLABLE_MAP) {
            udfkit_rows_dense_args(e, &t->dense);
            udfkit_rows_no_bitmaps(e, &t->no_bits);
        }
        for (size_t j = 0; j < udfkit_rows_output_count(e); j++)
            udfkit_buf_printf(&t->bits, j ? ", out%zu_bits" : (UDFKIT_MAP_HAS_OUTPUTS(s) ? "out%zu_bits" : "out_bits"),
                              j + 1);
        snprintf(t->k, sizeof t->k, "%zu", udfkit_rows_output_count(e));
        udfkit_buf_puts(&t->fn, e->c_name);
        udfkit_buf_puts(&t->prefix, t->kernel.data);
        udfkit_rows_map_functions(t->prefix.data, e, &t->rows);
        /* The tiles of map and of the dense nullable_map. */
        size_t row_bytes = 0;
        udfkit_rows_map_staged(t->prefix.data, e, &t->rows, &row_bytes);
        snprintf(t->row_bytes, sizeof t->row_bytes, "%zu", row_bytes);
        snprintf(t->inputs, sizeof t->inputs, "%zu", udfkit_rows_input_count(e));
        break;
    }
}

/* The CUDA and C templates of an entry. */
static void entry_templates(const udfkit_kernel_entry *e, const char **cuda, const char **c)
{
    switch (e->tpl) {
    case UDFKIT_KERNEL_MAP:
        *cuda = udfkit_tpl_kernel_map;
        *c = udfkit_tpl_launcher_map;
        break;
    case UDFKIT_KERNEL_FILTER:
        *cuda = one_column_values(e) ? udfkit_tpl_kernel_filter_values : udfkit_tpl_kernel_filter;
        *c = udfkit_tpl_launcher_filter;
        break;
    case UDFKIT_KERNEL_NULLABLE_FILTER:
        *cuda = udfkit_tpl_kernel_nullable_filter;
        *c = udfkit_tpl_launcher_nullable_filter;
        break;
    case UDFKIT_KERNEL_REDUCE:
        *cuda = udfkit_tpl_kernel_reduce;
        *c = udfkit_tpl_launcher_reduce;
        break;
    case UDFKIT_KERNEL_NULLABLE_MAP:
        *cuda = udfkit_tpl_kernel_nullable_map;
        *c = udfkit_tpl_launcher_nullable_map;
        break;
    case UDFKIT_KERNEL_NULLABLE_REDUCE:
        *cuda = udfkit_tpl_kernel_nullable_reduce;
        *c = udfkit_tpl_launcher_nullable_reduce;
        break;
    case UDFKIT_KERNEL_INCLUSIVE_SCAN:
    case UDFKIT_KERNEL_EXCLUSIVE_SCAN:
        *cuda = udfkit_tpl_kernel_scan;
        *c = udfkit_tpl_launcher_scan;
        break;
    case UDFKIT_KERNEL_TRANSFORM_REDUCE:
        *cuda = udfkit_tpl_kernel_transform_reduce;
        *c = udfkit_tpl_launcher_reduce;
        break;
    case UDFKIT_KERNEL_SEGMENTED_REDUCE:
        *cuda = udfkit_tpl_kernel_segmented_reduce;
        *c = udfkit_tpl_launcher_segmented_reduce;
        break;
    case UDFKIT_KERNEL_REDUCE_BY_KEY:
        *cuda = udfkit_tpl_kernel_reduce_by_key;
        *c = udfkit_tpl_launcher_reduce_by_key;
        break;
    case UDFKIT_KERNEL_SORT:
        *cuda = udfkit_tpl_kernel_sort;
        *c = udfkit_tpl_launcher_sort;
        break;
    }
}

/* The scan templates' texts: inclusive or exclusive, and CUB's tile for T's size, which
 * the kernel checks at build time (scan.cu.in). */
typedef struct scan_texts {
    const char *kind, *init_value, *init_arg, *key_name;
    char init_t[64], init_param[80], tile_items[16], items[16], t_bytes[16], key[32];
} scan_texts;

static void scan_texts_fill(const udfkit_kernel_entry *e, const char *type, scan_texts *t)
{
    bool inclusive = e->tpl != UDFKIT_KERNEL_EXCLUSIVE_SCAN;
    t->kind = inclusive ? "inclusive" : "exclusive";
    snprintf(t->init_t, sizeof t->init_t, "%s", inclusive ? "cub::NullType" : type);
    snprintf(t->init_param, sizeof t->init_param, "%s%s%s", inclusive ? "" : ", ", inclusive ? "" : type,
             inclusive ? "" : " init");
    t->init_value = inclusive ? "cub::NullType()" : "init";
    t->init_arg = inclusive ? "" : ", &init";
    bool sort = e->tpl == UDFKIT_KERNEL_SORT;
    /* cub::MemBoundScaling<128, 15, T>: 15 rows a thread for 4-byte T, 60 / size, at most 30. */
    size_t size = udfkit_scalar_size(sort ? e->fn->sig.params[0].scalar : e->fn->sig.ret.scalar);
    size_t items = 15 * 4 / (size ? size : 1), threads = sort ? 256 : 128;
    items = items > 30 ? 30 : items < 1 ? 1 : items;
    /* reduce_by_key: CUB's default, 6 rows a thread where key and value are 8 bytes or less. */
    if (e->tpl == UDFKIT_KERNEL_REDUCE_BY_KEY)
        items = 6;
    if (sort)
        items = sort_items(e);
    snprintf(t->items, sizeof t->items, "%zu", items);
    snprintf(t->tile_items, sizeof t->tile_items, "%zu", threads * items);
    snprintf(t->t_bytes, sizeof t->t_bytes, "%zu", size);
    udfkit_buf k = UDFKIT_BUF_INIT;
    udfkit_exporter_abi_type((udfkit_type){e->key, false, false}, &k);
    snprintf(t->key, sizeof t->key, "%s", e->tpl == UDFKIT_KERNEL_REDUCE_BY_KEY ? k.data : "");
    t->key_name = udfkit_scalar_name(e->key);
    udfkit_buf_free(&k);
}

/* filter's texts by what it writes: 64-bit row numbers, 32-bit ones (R = unsigned, CUB's
 * tile for 4-byte items, at most 2^32 rows) or values (of several columns selected as 64-bit
 * row numbers, of one column the values themselves). */
typedef struct filter_texts {
    const char *variant, *what, *row_t, *rows_check;
    char tile[16], threads[16];
} filter_texts;

static void filter_texts_fill(const udfkit_kernel_entry *e, filter_texts *t)
{
    bool narrow = e->filter_out == UDFKIT_FILTER_INDICES32;
    t->variant = narrow ? ", indices32" : e->filter_out == UDFKIT_FILTER_VALUES ? ", values" : "";
    t->what = narrow ? "rows' 32-bit numbers" : e->filter_out == UDFKIT_FILTER_VALUES ? "rows' values" : "rows' numbers";
    t->row_t = narrow ? "unsigned" : "unsigned long long";
    t->rows_check = narrow ? "    if (total > 0x100000000ull) /* row numbers past 2^32 - 1 */\n"
                             "        return UDFKIT_ERROR_INVALID_ARGUMENT;\n"
                           : "";
    /* select_helpers.cu.in's select_policy: 384 threads of 11 8-byte or 17 4-byte rows; for the
     * values of one column value_policy, by their size. */
    int threads = 384, items = narrow ? 17 : 11;
    if (one_column_values(e)) {
        size_t size = udfkit_scalar_size(e->fn->sig.params[0].scalar);
        threads = size <= 2 ? 256 : 384;
        items = size <= 2 ? 22 : size == 4 ? 17 : 11;
    }
    snprintf(t->tile, sizeof t->tile, "%d", threads * items);
    snprintf(t->threads, sizeof t->threads, "%d", threads);
}

/* One entry's kernels, launcher, name table lines, marker and declaration; `index` is its
 * first kernel's place in the name table. */
static udfkit_rc render_entry(render_parts *r, const udfkit_kernel_entry *e, size_t index)
{
    const char *tpl_name = udfkit_kernel_template_name(e->tpl);
    entry_texts t = {0};
    udfkit_buf proto = UDFKIT_BUF_INIT, sig = UDFKIT_BUF_INIT;
    char index_text[32];
    entry_texts_fill(r, e, &t);
    launcher_prototype(r->name, r->slotted, e, &proto);
    udfkit_signature_format(&e->fn->sig, &sig);
    snprintf(index_text, sizeof index_text, "%zu", index);
    scan_texts scan;
    scan_texts_fill(e, t.ret.data, &scan);
    filter_texts filter;
    filter_texts_fill(e, &filter);
    /* reduce's launcher reduces a few rows in one launch; transform_reduce's rows need f. */
    udfkit_buf small = UDFKIT_BUF_INIT;
    const udfkit_template_var small_vars[] = {{"UPPER_NAME", r->upper}};
    if (e->tpl == UDFKIT_KERNEL_REDUCE)
        udfkit_template_render(udfkit_tpl_launcher_reduce_small, small_vars, 1, &small);
#define TEXT(b) ((b).data ? (b).data : "")
    const udfkit_template_var vars[] = {
        {"NAME", r->name},          {"UPPER_NAME", r->upper},      {"FN", TEXT(t.fn)},
        {"KERNEL", t.kernel.data},  {"PARAMS", TEXT(t.params)},    {"ARGS", TEXT(t.args)},
        {"RET", t.ret.data},        {"T", t.ret.data},             {"PROTOTYPE", proto.data},
        {"INDEX", index_text},      {"SCAN_INDEX", r->scan_index}, {"ARG_POINTERS", TEXT(t.ptrs)},
        {"SELF", r->slotted ? "inst" : "NULL"},
        {"TEMPLATE", tpl_name},     {"UDF", e->c_name},            {"PREFIX", TEXT(t.prefix)},
        {"OUT_PARAMS", TEXT(t.outs)}, {"OUTS", TEXT(t.out_vals)}, {"OUTS_AT", TEXT(t.outs_at)},  {"BITS", TEXT(t.bits)},
        {"OUT_POINTERS", TEXT(t.out_ptrs)}, {"K", t.k},    {"DENSE_ARGS", TEXT(t.dense)},
        {"NO_BITMAPS", TEXT(t.no_bits)}, {"ROW_BYTES", t.row_bytes}, {"INPUTS", t.inputs},
        /* reduce's and transform_reduce's least chunk, in tiles: a round of every warp (reduce:
         * UDFKIT_LINES = 4 lines of 16 bytes a lane, 64 / sizeof(T) tiles; transform_reduce:
         * 128 rows a warp, 4 tiles). */
        {"ROUND_TILES", e->tpl == UDFKIT_KERNEL_TRANSFORM_REDUCE ? "4" : "64 / sizeof init"},
        {"SCAN_KIND", scan.kind},   {"SCAN_INIT_T", scan.init_t},  {"INIT_PARAM", scan.init_param},
        {"INIT_VALUE", scan.init_value}, {"INIT_ARG", scan.init_arg}, {"TILE_ITEMS", scan.tile_items},
        {"ITEMS", scan.items},      {"T_BYTES", scan.t_bytes},     {"KEY_T", scan.key},
        {"K_NAME", scan.key_name},  {"OP", e->op_name ? e->op_name : ""},
        {"SMALL_PATH", TEXT(small)}, {"VARIANT", filter.variant}, {"WHAT", filter.what},
        {"ROW_T", filter.row_t},    {"ROWS_CHECK", filter.rows_check}, {"FILTER_TILE", filter.tile}, {"FILTER_THREADS", filter.threads},
        {"OUT_ITER", TEXT(t.out_iter)}, {"STENCIL", TEXT(t.dense)}, {"SELECT_ITEMS", TEXT(t.items)}, {"SELECT_INIT_INDEX", r->select_index},
    };
#undef TEXT
    size_t nvars = sizeof vars / sizeof *vars;
    const char *cuda_tpl = NULL, *c_tpl = NULL;
    entry_templates(e, &cuda_tpl, &c_tpl);
    udfkit_buf_puts(&r->kernels, t.rows.data ? t.rows.data : "");
    udfkit_rc rc = udfkit_template_render(cuda_tpl, vars, nvars, &r->kernels);
    if (!rc)
        rc = udfkit_template_render(c_tpl, vars, nvars, &r->launchers);
    if (!rc) {
        kernel_names(t.kernel.data, e->tpl, &r->names);
        udfkit_buf_printf(&r->markers, " *   udfkit-kernel %s %s %s %s_%s_", tpl_name, e->c_name, sig.data, r->name,
                          tpl_name);
        udfkit_kernel_entry_suffix(e, &r->markers);
        udfkit_buf_puts(&r->markers, "\n");
        udfkit_buf_puts(&r->decls, "\n");
        launcher_doc(e, &r->decls);
        udfkit_buf_printf(&r->decls, "%s;\n", proto.data);
    }
    udfkit_buf *bufs[] = {&t.kernel, &t.params,   &t.args, &t.dense,    &t.no_bits, &t.ptrs,  &t.ret, &t.fn,
                          &t.prefix, &t.outs,     &t.out_vals, &t.outs_at, &t.bits, &t.out_ptrs, &t.rows, &proto, &sig, &small,
                          &t.out_iter, &t.items};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        udfkit_buf_free(bufs[i]);
    return rc;
}

/* The slots: a table for the launchers, a marker line each for the header. */
static void slot_texts(const udfkit_spec *slots, size_t nslots, udfkit_buf *table, udfkit_buf *markers)
{
    for (size_t i = 0; i < nslots; i++) {
        udfkit_buf sig = UDFKIT_BUF_INIT;
        udfkit_signature_format(&slots[i].sig, &sig);
        udfkit_buf_printf(table, "    {\"%s\", \"%s\"},\n", slots[i].c_name, sig.data);
        udfkit_buf_printf(markers, "%s *   udfkit-slot %s %s", i ? "\n" : "", slots[i].c_name, sig.data);
        udfkit_buf_free(&sig);
    }
}

udfkit_rc udfkit_kernels_render(const char *name, const char *fatbin_symbol, const char *header_include,
                                const udfkit_kernel_entry *entries, size_t count, const udfkit_spec *slots,
                                size_t nslots, udfkit_kernels_text *out)
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
    render_parts r = {.name = name, .upper = upper, .slotted = nslots > 0};
    udfkit_buf slot_table = UDFKIT_BUF_INIT, slot_markers = UDFKIT_BUF_INIT;
    char nslots_text[32];
    snprintf(nslots_text, sizeof nslots_text, "%zu", nslots);
    slot_texts(slots, nslots, &slot_table, &slot_markers);

    /* The name table: each entry's kernels in order, then the scan all nullable filters share
     * and the init all filters share. */
    size_t nkernels = 0;
    bool blocks = false, chunked = false, tiled = false, filters = false, selects = false, reduces = false;
    for (size_t i = 0; i < count; i++) {
        bool filter = entries[i].tpl == UDFKIT_KERNEL_NULLABLE_FILTER;
        selects |= entries[i].tpl == UDFKIT_KERNEL_FILTER;
        nkernels += kernel_count(entries[i].tpl);
        /* udfkit_<name>_blocks: nullable_map's general grid, and the chunks' (maps, the
         * dense nullable_map and the templates sized by tiles size their grids themselves). */
        blocks |= entries[i].tpl == UDFKIT_KERNEL_NULLABLE_MAP || chunked_template(entries[i].tpl);
        chunked |= chunked_template(entries[i].tpl);
        tiled |= entries[i].tpl == UDFKIT_KERNEL_INCLUSIVE_SCAN || entries[i].tpl == UDFKIT_KERNEL_EXCLUSIVE_SCAN ||
                 entries[i].tpl == UDFKIT_KERNEL_REDUCE_BY_KEY || entries[i].tpl == UDFKIT_KERNEL_FILTER;
        filters |= filter;
        reduces |= entries[i].tpl == UDFKIT_KERNEL_REDUCE || entries[i].tpl == UDFKIT_KERNEL_TRANSFORM_REDUCE ||
                   entries[i].tpl == UDFKIT_KERNEL_SEGMENTED_REDUCE;
    }
    snprintf(r.scan_index, sizeof r.scan_index, "%zu", nkernels);
    snprintf(r.select_index, sizeof r.select_index, "%zu", nkernels + filters);
    snprintf(nkernels_text, sizeof nkernels_text, "%zu", nkernels + filters + selects);

    size_t next = 0;
    udfkit_strset declared = UDFKIT_STRSET_INIT;
    for (size_t i = 0; i < count && !rc; i++) {
        declare_udf(entries[i].fn, &declared, &r.protos);
        if (entries[i].op)
            declare_udf(entries[i].op, &declared, &r.protos);
        rc = render_entry(&r, &entries[i], next);
        next += kernel_count(entries[i].tpl);
    }
    udfkit_strset_free(&declared);
    const udfkit_template_var helper_vars[] = {
        {"NAME", name}, {"UPPER_NAME", upper}, {"BLOCK", block}, {"FILTER_ROUNDS", rounds}};
    size_t nhelper_vars = sizeof helper_vars / sizeof *helper_vars;
    if (!rc && filters) {
        rc = udfkit_template_render(udfkit_tpl_kernel_filter_scan, helper_vars, nhelper_vars, &r.kernels);
        udfkit_buf_printf(&r.names, "    \"udfkit_%s_filter_scan\",\n", name);
    }
    if (!rc && selects)
        udfkit_buf_printf(&r.names, "    \"udfkit_%s_select_init\",\n", name);
    /* Helpers only where a launcher uses them: an unused static function is a warning. */
    if (!rc && count)
        rc = udfkit_template_render(r.slotted ? udfkit_tpl_launcher_common_slots : udfkit_tpl_launcher_common,
                                    helper_vars, nhelper_vars, &common);
    if (!rc && blocks)
        rc = udfkit_template_render(udfkit_tpl_launcher_blocks, helper_vars, nhelper_vars, &common);
    if (!rc && chunked)
        rc = udfkit_template_render(udfkit_tpl_launcher_chunks, helper_vars, nhelper_vars, &common);
    if (!rc && tiled)
        rc = udfkit_template_render(udfkit_tpl_launcher_tiles, helper_vars, nhelper_vars, &common);
    udfkit_buf_puts(&common, r.launchers.data ? r.launchers.data : "");
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
        {"KERNEL_NAMES", r.names.data ? r.names.data : ""},
        {"KERNEL_COUNT", nkernels_text},
        {"MARKERS", r.markers.data ? r.markers.data : " *   (none)"},
        {"C_LAUNCHERS", common.data},
        {"LAUNCHER_DECLARATIONS", r.decls.data ? r.decls.data : ""},
        {"SLOT_TABLE", slot_table.data ? slot_table.data : ""},
        {"SLOT_COUNT", nslots_text},
        {"SLOT_MARKERS", slot_markers.data ? slot_markers.data : " *   (no slots)"},
    };
    size_t nvars = sizeof vars / sizeof *vars;
    if (!rc && !(rc = udfkit_template_render(udfkit_tpl_kernel_prelude, vars, nvars, &out->cuda)) && reduces)
        rc = udfkit_template_render(udfkit_tpl_kernel_reduce_helpers, vars, nvars, &out->cuda);
    if (!rc && selects)
        rc = udfkit_template_render(udfkit_tpl_kernel_select_helpers, vars, nvars, &out->cuda);
    if (!rc)
        udfkit_buf_puts(&out->cuda, r.kernels.data ? r.kernels.data : "");
    if (!rc)
        rc = udfkit_template_render(r.slotted ? udfkit_tpl_kernel_launchers_slots : udfkit_tpl_kernel_launchers, vars,
                                    nvars, &out->c);
    if (!rc)
        rc = udfkit_template_render(r.slotted ? udfkit_tpl_kernel_library_slots_h : udfkit_tpl_kernel_library_h, vars,
                                    nvars, &out->header);
    free(upper);
    udfkit_buf *bufs[] = {&r.protos,    &r.kernels, &r.names, &r.markers,   &r.decls,
                          &r.launchers, &common,    &guard,   &slot_table, &slot_markers};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        udfkit_buf_free(bufs[i]);
    return rc;
}

void udfkit_kernels_text_free(udfkit_kernels_text *t)
{
    udfkit_buf_free(&t->cuda);
    udfkit_buf_free(&t->c);
    udfkit_buf_free(&t->header);
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

/* Whether two entries would define the same launcher. */
static bool same_launcher(const udfkit_kernel_entry *a, const udfkit_kernel_entry *b)
{
    udfkit_buf x = UDFKIT_BUF_INIT, y = UDFKIT_BUF_INIT;
    udfkit_kernel_entry_suffix(a, &x);
    udfkit_kernel_entry_suffix(b, &y);
    bool same = a->tpl == b->tpl && strcmp(x.data, y.data) == 0;
    udfkit_buf_free(&x);
    udfkit_buf_free(&y);
    return same;
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
    udfkit_kernels_text text = {UDFKIT_BUF_INIT, UDFKIT_BUF_INIT, UDFKIT_BUF_INIT};
    if (!req->check) {
        const char *paths[] = {req->cuda_output, req->c_output, req->header_output};
        for (size_t i = 0; i < 3 && !rc; i++)
            rc = udfkit_outputs_claim(outputs, paths[i]);
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
            udfkit_buf_printf(&origin, "--slot '%s'", req->slots[i]);
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
            if (same_launcher(&entries[j], e))
                rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "kernel entry '%s' is given twice (also as '%s')", e->text,
                                 entries[j].text);
        if (!rc)
            rc = udfkit_kernel_entry_bind(e, fns.specs, fns.count, req->check);
    }
    if (rc || req->check)
        goto done;
    if ((rc = header_include(req->c_output, req->header_output, &include)))
        goto done;
    if ((rc = udfkit_kernels_render(req->name, symbol.data, include, entries, nentries, slots, nslots, &text)))
        goto done;
    if (!(rc = udfkit_outputs_write(outputs, req->cuda_output, text.cuda.data, text.cuda.size)) &&
        !(rc = udfkit_outputs_write(outputs, req->c_output, text.c.data, text.c.size)) &&
        !(rc = udfkit_outputs_write(outputs, req->header_output, text.header.data, text.header.size)))
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
