#include "codegen/kernel_templates.h"

#include "base/templates.h"
#include "base/types.h"

#include <string.h>

/* cub::MemBoundScaling<128, 15, T>: 15 rows a thread for a 4-byte T, 60 / size, 1 to 30. */
static size_t mem_bound_items(size_t t_bytes)
{
    size_t items = 15 * 4 / (t_bytes ? t_bytes : 1);
    return items > 30 ? 30 : items < 1 ? 1 : items;
}

/* reduce_by_key: CUB's default, 6 rows a thread where key and value are 8 bytes or less. */
static size_t by_key_items(size_t t_bytes)
{
    (void)t_bytes;
    return 6;
}

/* sort's rows a thread, CUB's merge sort policy for sm_60 and later (tuning_merge_sort.cuh:
 * 256 threads of Nominal4BItemsToItems<T>(17) rows): 17 for T of 4 bytes or less, 68 / size
 * above. */
static size_t sort_items(size_t t_bytes)
{
    return t_bytes <= 4 ? 17 : 17 * 4 / t_bytes;
}

/* What the launchers' parameters are where they are not a column of the count's rows
 * (docs/security.md, "Column data: launcher arguments"). */
static const udfkit_param_rule shared_rules[] = {
    {"count", UDFKIT_PARAM_ALWAYS, "1"},
    {"runs", UDFKIT_PARAM_ALWAYS, "1"},
    {"null_count", UDFKIT_PARAM_OPTIONAL, "@K@"},
    {"valid_count", UDFKIT_PARAM_OPTIONAL, "1"},
    /* String results: n + 1 offsets, the first written also where n = 0. */
    {"*_offsets", UDFKIT_PARAM_ALWAYS, "@COUNT@ + 1"},
    {"*_chars", UDFKIT_PARAM_UNCHECKED, NULL},
    /* Output bitmaps: ceil(n / 8) bytes. */
    {"*_bits", UDFKIT_PARAM_ROWS, "(@COUNT@ + 7) / 8"},
    {NULL},
};
/* A reduction's result: written also where n = 0 (init). */
static const udfkit_param_rule reduce_rules[] = {{"out", UDFKIT_PARAM_ALWAYS, "1"}, {NULL}};
static const udfkit_param_rule sort_rules[] = {{"order", UDFKIT_PARAM_OPTIONAL, NULL}, {NULL}};
/* segments + 1 offsets; in's rows are the offsets' last, in device memory. */
static const udfkit_param_rule segmented_rules[] = {
    {"offsets", UDFKIT_PARAM_ROWS, "@COUNT@ + 1"}, {"in", UDFKIT_PARAM_ALIGNED, NULL}, {NULL}};

static const char *const one_kernel[] = {"", NULL};
static const char *const reduce_kernels[] = {"_partials", "_final", NULL};
static const char *const nullable_map_kernels[] = {"", "_dense", NULL};
static const char *const nullable_filter_kernels[] = {"_flags", "_write", NULL};
static const char *const scan_kernels[] = {"_init", "_scan", NULL};
static const char *const by_key_kernels[] = {"_init", "_reduce", NULL};
static const char *const sort_kernels[] = {"_block_keys", "_block_pairs", "_partition", "_merge_keys", "_merge_pairs",
                                           NULL};

/* A sizes kernel for each offsets' width, one write kernel for both (a kernel argument). */
static const char *const text_kernels[] = {"_sizes", "_sizes32", "_write", NULL};

/* map's and nullable_map's string results, in two launches (docs/strings.md). */
#define TEXT_SIZES_DOC(first, width)                                                                                  \
    "/* @TEMPLATE@(@UDF@" first "), strings in two launches (docs/strings.md), 1 of 2: the " width " offsets of\n"       \
    " * its string result@TEXT_PLURAL@ for the rows i < n, n + 1 of each from 0 (exclusive sums of the results'\n"       \
    " * sizes, null rows empty), the last the bytes of characters to allocate. */\n"
static const udfkit_launcher_text map_text_launchers[] = {
    {"PROTOTYPE_SIZES", "_sizes", "@C_INPUTS@, @C_SIZES64@", TEXT_SIZES_DOC("", "int64")},
    {"PROTOTYPE", "", "@C_INPUTS@, @C_TEXT_OUTPUTS64@",
     "/* map(@UDF@), 2 of 2: @UDF@(@ELEMENTS@) for i < n, each string result's bytes at its\n"
     " * characters + its offsets[i] (the offsets of the _sizes launch); the other results stored. */\n"},
    {"PROTOTYPE_SIZES32", "_sizes32", "@C_INPUTS@, @C_SIZES32@",
     TEXT_SIZES_DOC("", "int32") " /* A total of 2^31 - 1 bytes or more: the offsets from there on, the last\n"
                                 " * included, are -1, and the write launch must not run. */\n"},
    {"PROTOTYPE32", "32", "@C_INPUTS@, @C_TEXT_OUTPUTS32@",
     "/* map(@UDF@), 2 of 2, over the int32 offsets of the _sizes32 launch. */\n"},
    {NULL},
};
static const udfkit_launcher_text nullable_map_text_launchers[] = {
    {"PROTOTYPE_SIZES", "_sizes", "@C_INPUTS@, @C_SIZES64@", TEXT_SIZES_DOC("@NULLIFY@", "int64")},
    {"PROTOTYPE", "", "@C_INPUTS@, @C_TEXT_OUTPUTS64@, uint64_t *null_count",
     "/* nullable_map(@UDF@@NULLIFY@), 2 of 2: @UDF@ over rows i < n where @NULL_RULE@, each string result's\n"
     " * bytes at its characters + its offsets[i] (the offsets of the _sizes launch), the other results\n"
     " * stored; validity bitmaps (ceil(n / 8) bytes each, from bit 0) and, where null_count is not NULL,\n"
     " * each output's number of nulls into null_count[j] (device memory). */\n"},
    {"PROTOTYPE_SIZES32", "_sizes32", "@C_INPUTS@, @C_SIZES32@",
     TEXT_SIZES_DOC("@NULLIFY@", "int32") " /* A total of 2^31 - 1 bytes or more: the offsets from there on, the\n"
                                          " * last included, are -1, and the write launch must not run. */\n"},
    {"PROTOTYPE32", "32", "@C_INPUTS@, @C_TEXT_OUTPUTS32@, uint64_t *null_count",
     "/* nullable_map(@UDF@@NULLIFY@), 2 of 2, over the int32 offsets of the _sizes32 launch. */\n"},
    {NULL},
};

static const udfkit_template_word nullable_map_words[] = {
    {"nullify", "'nullify': rows the UDF fails become nulls", "_nullify", NULL, true, UDFKIT_FILTER_INDICES},
    {NULL},
};
static const udfkit_template_word filter_words[] = {
    {"indices32", "'indices32': 32-bit row numbers", "_indices32",
     "/* filter(@UDF@, indices32): the rows i < n where @UDF@(@ELEMENTS@) holds, ascending,\n"
     " * into indices (room for n rows, 32-bit row numbers), and their number into *count.\n"
     " * n > 2^32 is UDFKIT_ERROR_INVALID_ARGUMENT. */\n",
     false, UDFKIT_FILTER_INDICES32},
    {"values", "'values': the kept rows' values of every input", "_values",
     "/* filter(@UDF@, values): the rows i < n where @UDF@(@ELEMENTS@) holds, in order: each input's\n"
     " * values of them into its out column (room for n rows each), and their number\n"
     " * into *count. */\n",
     false, UDFKIT_FILTER_VALUES},
    {NULL},
};

#define DENSE "takes no nullable (T?) types: it passes dense columns, with no validity"
/* Where a function combines rows in order. */
#define IN_ORDER "must be associative; it need not commute"

static const char *const filter_text_kernels[] = {"", "_sizes", "_copy", NULL};
static const udfkit_launcher_text filter_text_launchers[] = {
    {"PROTOTYPE", "", "@C_INPUTS@, @C_TEXT_GATHER@, uint64_t *count",
     "/* filter(@UDF@, values): the rows i < n where @UDF@(@ELEMENTS@) holds, in order: each input's values\n"
     " * of them into its new column (room for n rows each; a string column's offsets, n + 1 of\n"
     " * them from 0, and its characters, room for as many bytes as the input column holds), and\n"
     " * their number into *count. */\n"},
    {NULL},
};
static const udfkit_template_row filter_text_row = {
    .name = "filter", .extra = UDFKIT_EXTRA_WORD, .words = filter_words, .shape = UDFKIT_SHAPE_PREDICATE,
    .predicate = "a predicate bool(A1..An)", .refuses_nullable = DENSE, .twin = "nullable_filter",
    .rows = UDFKIT_ROWS_FILTER_TEXT, .kernels = filter_text_kernels,
    .helpers = UDFKIT_NEEDS_TILES | UDFKIT_NEEDS_SELECT | UDFKIT_NEEDS_BLOCKS | UDFKIT_NEEDS_OFFSETS |
               UDFKIT_NEEDS_OFFSETS_SCAN,
    .cuda = udfkit_tpl_kernel_filter, .cuda_more = udfkit_tpl_kernel_filter_text,
    .c = udfkit_tpl_launcher_filter_select, .c_more = udfkit_tpl_launcher_filter_text,
    .count = "n", .launchers = filter_text_launchers,
};
static const udfkit_template_variant filter_variants[] = {
    {UDFKIT_WHEN_VALUES | UDFKIT_WHEN_TEXT_INPUTS, &filter_text_row}, {0}};

static const char *const sort_text_kernels[] = {"_block", "_partition", "_merge", NULL};
/* sort(less) over a string column: its row numbers sorted, compared by less on their strings. */
static const udfkit_template_row sort_text_row = {
    .name = "sort", .shape = UDFKIT_SHAPE_LESS, .refuses_nullable = DENSE, .t_is_parameter = true, .index_keys = true,
    .rows = UDFKIT_ROWS_COLUMN, .kernels = sort_text_kernels,
    .cuda = udfkit_tpl_kernel_sort_text, .c = udfkit_tpl_launcher_sort_text, .tile_threads = 256,
    .tile_items = sort_items, .count = "n", .params = "udfkit_strings in, uint64_t *order",
    .doc = "/* sort(@UDF@) over a string column: order[i] = the row of in that goes i-th in the order @UDF@\n"
           " * gives (@UDF@(a, b): a goes before b; a strict weak order), stable. order is required (NULL is\n"
           " * UDFKIT_ERROR_INVALID_ARGUMENT where n > 0). Takes n * 8 bytes of temporary memory in stream\n"
           " * order. A failing @UDF@ is recorded as sort's are (the first row of a tile of @TILE_ITEMS@\n"
           " * rows it failed in, else of the span a merge pass merged); order is then unspecified. */\n",
};
static const udfkit_template_variant sort_variants[] = {{UDFKIT_WHEN_TEXT_INPUTS, &sort_text_row}, {0}};

static const udfkit_template_row map_text_row = {
    .name = "map", .shape = UDFKIT_SHAPE_MAP, .refuses_nullable = DENSE, .twin = "nullable_map", .outputs = true,
    .rows = UDFKIT_ROWS_MAP, .kernels = text_kernels,
    .helpers = UDFKIT_NEEDS_BLOCKS | UDFKIT_NEEDS_TILES | UDFKIT_NEEDS_OFFSETS,
    .cuda = udfkit_tpl_kernel_text_sizes, .cuda_more = udfkit_tpl_kernel_map_text,
    .c = udfkit_tpl_launcher_text_sizes, .c_more = udfkit_tpl_launcher_map_text,
    .count = "n", .launchers = map_text_launchers,
};
static const udfkit_template_row nullable_map_text_row = {
    .name = "nullable_map", .extra = UDFKIT_EXTRA_WORD, .words = nullable_map_words, .shape = UDFKIT_SHAPE_MAP,
    .nullable = true, .outputs = true, .rows = UDFKIT_ROWS_MAP, .kernels = text_kernels,
    .helpers = UDFKIT_NEEDS_BLOCKS | UDFKIT_NEEDS_TILES | UDFKIT_NEEDS_OFFSETS,
    .cuda = udfkit_tpl_kernel_text_sizes, .cuda_more = udfkit_tpl_kernel_nullable_map_text,
    .c = udfkit_tpl_launcher_text_sizes, .c_more = udfkit_tpl_launcher_nullable_map_text,
    .count = "n", .launchers = nullable_map_text_launchers,
};
static const udfkit_template_variant map_variants[] = {{UDFKIT_WHEN_TEXT_RESULTS, &map_text_row}, {0}};
static const udfkit_template_variant nullable_map_variants[] = {{UDFKIT_WHEN_TEXT_RESULTS, &nullable_map_text_row}, {0}};

static const udfkit_template_row rows[UDFKIT_KERNEL_TEMPLATE_COUNT] = {
    [UDFKIT_KERNEL_MAP] = {
        .name = "map", .shape = UDFKIT_SHAPE_MAP, .refuses_nullable = DENSE, .twin = "nullable_map", .outputs = true,
        .rows = UDFKIT_ROWS_MAP, .kernels = one_kernel, .variants = map_variants,
        .cuda = udfkit_tpl_kernel_map, .c = udfkit_tpl_launcher_map,
        .count = "n", .params = "@C_INPUTS@, @C_OUTPUTS@",
        .doc = "/* map(@UDF@): out[i] = @UDF@(@ELEMENTS@) for i < n. */\n",
        .doc_outputs = "/* map(@UDF@): @UDF@(@ELEMENTS@) for i < n, writing @OUTPUT_COUNT@ output columns. */\n",
    },
    [UDFKIT_KERNEL_FILTER] = {
        .name = "filter", .extra = UDFKIT_EXTRA_WORD, .words = filter_words, .shape = UDFKIT_SHAPE_PREDICATE,
        .predicate = "a predicate bool(A1..An)", .refuses_nullable = DENSE, .twin = "nullable_filter",
        .rows = UDFKIT_ROWS_FILTER, .kernels = one_kernel, .helpers = UDFKIT_NEEDS_TILES | UDFKIT_NEEDS_SELECT,
        .variants = filter_variants,
        .cuda = udfkit_tpl_kernel_filter, .c = udfkit_tpl_launcher_filter_select, .c_more = udfkit_tpl_launcher_filter,
        .count = "n", .params = "@C_INPUTS@, @C_FILTER_OUTPUTS@, uint64_t *count",
        .doc = "/* filter(@UDF@): the rows i < n where @UDF@(@ELEMENTS@) holds, ascending,\n"
               " * into indices (room for n rows), and their number into *count. */\n",
    },
    [UDFKIT_KERNEL_REDUCE] = {
        .name = "reduce", .shape = UDFKIT_SHAPE_OP, .refuses_nullable = DENSE, .twin = "nullable_reduce",
        .rows = UDFKIT_ROWS_COLUMN, .kernels = reduce_kernels,
        .helpers = UDFKIT_NEEDS_BLOCKS | UDFKIT_NEEDS_CHUNKS | UDFKIT_NEEDS_REDUCE,
        .cuda = udfkit_tpl_kernel_reduce, .c = udfkit_tpl_launcher_reduce, .small_path = true,
        /* A round of every warp: UDFKIT_LINES = 4 lines of 16 bytes a lane, 64 / sizeof(T) tiles. */
        .round_tiles = "64 / sizeof init",
        .count = "n", .params = "const @C_T@ *in, @C_T@ init, @C_T@ *out",
        .doc = "/* reduce(@UDF@): *out = init combined by @UDF@ with in[0], ..., in[n - 1], in this order\n"
               " * (@UDF@ " IN_ORDER "); init where n = 0. */\n",
        .param_rules = reduce_rules,
    },
    [UDFKIT_KERNEL_NULLABLE_MAP] = {
        .name = "nullable_map", .extra = UDFKIT_EXTRA_WORD, .words = nullable_map_words, .shape = UDFKIT_SHAPE_MAP,
        .nullable = true, .outputs = true, .rows = UDFKIT_ROWS_MAP, .kernels = nullable_map_kernels,
        .helpers = UDFKIT_NEEDS_BLOCKS, .variants = nullable_map_variants,
        .cuda = udfkit_tpl_kernel_nullable_map, .c = udfkit_tpl_launcher_nullable_map,
        .count = "n", .params = "@C_INPUTS@, @C_OUTPUTS@, uint64_t *null_count",
        .doc = "/* nullable_map(@UDF@@NULLIFY@): @UDF@ over rows i < n where @NULL_RULE@, writing @OUTPUT_COUNT@ output "
               "column@OUTPUT_PLURAL@ with\n"
               " * validity bitmaps (ceil(n / 8) bytes each, from bit 0) and, where null_count is not\n"
               " * NULL, each output's number of nulls into null_count[j] (device memory). */\n",
    },
    [UDFKIT_KERNEL_NULLABLE_FILTER] = {
        .name = "nullable_filter", .shape = UDFKIT_SHAPE_PREDICATE,
        .predicate = "a predicate bool(A1..An) or bool?(A1..An)", .nullable = true,
        .rows = UDFKIT_ROWS_NULLABLE_FILTER, .kernels = nullable_filter_kernels,
        .helpers = UDFKIT_NEEDS_BLOCKS | UDFKIT_NEEDS_CHUNKS | UDFKIT_NEEDS_FILTER_SCAN,
        .cuda = udfkit_tpl_kernel_nullable_filter, .c = udfkit_tpl_launcher_nullable_filter,
        .count = "n", .params = "@C_INPUTS@, uint64_t *indices, uint64_t *count",
        .doc = "/* nullable_filter(@UDF@): the rows i < n where @UDF@ is valid and true, ascending, into\n"
               " * indices (room for n rows), and their number into *count. */\n",
    },
    [UDFKIT_KERNEL_NULLABLE_REDUCE] = {
        .name = "nullable_reduce", .shape = UDFKIT_SHAPE_OP,
        .refuses_nullable = "skips nulls and combines valid values only: op is T(T, T), with no nullable (T?) types",
        .nullable = true, .rows = UDFKIT_ROWS_COLUMN, .kernels = reduce_kernels,
        .helpers = UDFKIT_NEEDS_BLOCKS | UDFKIT_NEEDS_CHUNKS,
        .cuda = udfkit_tpl_kernel_nullable_reduce, .c = udfkit_tpl_launcher_nullable_reduce,
        .count = "n", .params = "const @C_T@ *in, udfkit_mask m, @C_T@ init, @C_T@ *out, uint64_t *valid_count",
        .doc = "/* nullable_reduce(@UDF@): *out = init combined by @UDF@ with the valid rows of in, in order,\n"
               " * nulls skipped; where valid_count is not NULL, *valid_count = their number. */\n",
        .param_rules = reduce_rules,
    },
    [UDFKIT_KERNEL_INCLUSIVE_SCAN] = {
        .name = "inclusive_scan", .shape = UDFKIT_SHAPE_OP, .refuses_nullable = DENSE, .rows = UDFKIT_ROWS_COLUMN,
        .kernels = scan_kernels, .helpers = UDFKIT_NEEDS_TILES | UDFKIT_NEEDS_CARRIED,
        .cuda = udfkit_tpl_kernel_scan, .c = udfkit_tpl_launcher_scan, .scan_kind = "inclusive",
        .tile_threads = 128, .tile_items = mem_bound_items,
        .count = "n", .params = "const @C_T@ *in, @C_T@ *out",
        .doc = "/* inclusive_scan(@UDF@): out[i] = in[0] @UDF@ ... @UDF@ in[i] for i < n, combined in order (@UDF@\n"
               " * " IN_ORDER "). in and out may be the same array. */\n",
    },
    [UDFKIT_KERNEL_EXCLUSIVE_SCAN] = {
        .name = "exclusive_scan", .shape = UDFKIT_SHAPE_OP, .refuses_nullable = DENSE, .rows = UDFKIT_ROWS_COLUMN,
        .kernels = scan_kernels, .helpers = UDFKIT_NEEDS_TILES | UDFKIT_NEEDS_CARRIED,
        .cuda = udfkit_tpl_kernel_scan, .c = udfkit_tpl_launcher_scan, .scan_kind = "exclusive", .scan_init = true,
        .tile_threads = 128, .tile_items = mem_bound_items,
        .count = "n", .params = "const @C_T@ *in, @C_T@ init, @C_T@ *out",
        .doc = "/* exclusive_scan(@UDF@): out[0] = init, out[i] = init @UDF@ in[0] @UDF@ ... @UDF@ in[i - 1] for\n"
               " * i < n, combined in order (@UDF@ " IN_ORDER "). in and out\n"
               " * may be the same array. */\n",
    },
    [UDFKIT_KERNEL_REDUCE_BY_KEY] = {
        .name = "reduce_by_key", .extra = UDFKIT_EXTRA_KEY,
        .extra_help = "reduce_by_key takes the op and the keys' type: reduce_by_key(op, K), e.g. reduce_by_key(add, "
                      "int32)",
        .key_flags = UDFKIT_KIND_KEY, .shape = UDFKIT_SHAPE_OP, .refuses_nullable = DENSE,
        .rows = UDFKIT_ROWS_COLUMN, .kernels = by_key_kernels, .helpers = UDFKIT_NEEDS_TILES | UDFKIT_NEEDS_CARRIED,
        .cuda = udfkit_tpl_kernel_reduce_by_key, .c = udfkit_tpl_launcher_reduce_by_key, .tile_threads = 128,
        .tile_items = by_key_items,
        .count = "n", .params = "const @C_K@ *keys, const @C_T@ *in, @C_K@ *unique_keys, @C_T@ *out, uint64_t *runs",
        .doc = "/* reduce_by_key(@UDF@, @K_NAME@): for each run of equal consecutive keys[i], i < n, its key into\n"
               " * unique_keys[r] and its values combined by @UDF@ in row order into out[r] (@UDF@ must be\n"
               " * associative; it need not commute); the number of runs into *runs (device memory). */\n",
    },
    [UDFKIT_KERNEL_TRANSFORM_REDUCE] = {
        .name = "transform_reduce", .extra = UDFKIT_EXTRA_FUNCTION,
        .extra_help = "transform_reduce takes the function and the op: transform_reduce(f, op), e.g. "
                      "transform_reduce(square, add)",
        .shape = UDFKIT_SHAPE_TRANSFORM, .refuses_nullable = DENSE, .rows = UDFKIT_ROWS_TRANSFORM,
        .kernels = reduce_kernels, .helpers = UDFKIT_NEEDS_BLOCKS | UDFKIT_NEEDS_CHUNKS | UDFKIT_NEEDS_REDUCE,
        .cuda = udfkit_tpl_kernel_transform_reduce, .c = udfkit_tpl_launcher_reduce,
        /* 128 rows a warp: 4 tiles. */
        .round_tiles = "4",
        .count = "n", .params = "@C_INPUTS@, @C_T@ init, @C_T@ *out",
        .doc = "/* transform_reduce(@UDF@, @OP@): *out = init @OP@ @UDF@(@ELEMENTS@) for i = 0, ..., n - 1, combined in\n"
               " * order, in one pass (@OP@ " IN_ORDER "); init where n = 0. */\n",
        .param_rules = reduce_rules,
    },
    [UDFKIT_KERNEL_SEGMENTED_REDUCE] = {
        .name = "segmented_reduce", .shape = UDFKIT_SHAPE_OP, .refuses_nullable = DENSE, .rows = UDFKIT_ROWS_COLUMN,
        .kernels = one_kernel, .helpers = UDFKIT_NEEDS_REDUCE,
        .cuda = udfkit_tpl_kernel_segmented_reduce, .c = udfkit_tpl_launcher_segmented_reduce,
        .count = "segments", .params = "const uint64_t *offsets, const @C_T@ *in, @C_T@ init, @C_T@ *out",
        .doc = "/* segmented_reduce(@UDF@): out[k] = init combined by @UDF@ with in[offsets[k]], ...,\n"
               " * in[offsets[k + 1] - 1] in order, for k < segments (offsets holds segments + 1 row\n"
               " * numbers, ascending); init for an empty segment (@UDF@ must be associative; it need not\n"
               " * commute). */\n",
        .param_rules = segmented_rules,
    },
    [UDFKIT_KERNEL_SORT] = {
        .name = "sort", .shape = UDFKIT_SHAPE_LESS, .refuses_nullable = DENSE, .t_is_parameter = true,
        .rows = UDFKIT_ROWS_COLUMN, .kernels = sort_kernels, .variants = sort_variants,
        .cuda = udfkit_tpl_kernel_sort, .c = udfkit_tpl_launcher_sort, .tile_threads = 256, .tile_items = sort_items,
        .count = "n", .params = "const @C_T@ *in, @C_T@ *out, uint64_t *order",
        .doc = "/* sort(@UDF@): in[0], ..., in[n - 1] into out in the order @UDF@ gives (@UDF@(a, b): a goes\n"
               " * before b; a strict weak order), stable: rows @UDF@ leaves equivalent keep their input\n"
               " * order. Where order is not NULL, order[i] = the row of in that out[i] came from. in\n"
               " * and out may be the same array (a sort in place); order overlaps neither. Takes\n"
               " * n * sizeof(T) bytes of temporary memory (n * 8 more with order) in stream order.\n"
               " * A failing @UDF@ is recorded at the first row of the tile of @TILE_ITEMS@ rows it failed in\n"
               " * (the first pass compares each row of a tile of two or more), else at the first row\n"
               " * of the span a merge pass merged; out and order are then unspecified. */\n",
        .param_rules = sort_rules,
    },
};

const udfkit_template_row *udfkit_template_info(udfkit_kernel_template t)
{
    return &rows[t];
}

bool udfkit_template_find(const char *name, size_t n, udfkit_kernel_template *out)
{
    for (int t = 0; t < UDFKIT_KERNEL_TEMPLATE_COUNT; t++)
        if (strlen(rows[t].name) == n && strncmp(rows[t].name, name, n) == 0) {
            *out = (udfkit_kernel_template)t;
            return true;
        }
    return false;
}

static const udfkit_param_rule *find_rule(const udfkit_param_rule *rules, const char *name)
{
    size_t len = strlen(name);
    for (const udfkit_param_rule *r = rules; r && r->name; r++) {
        size_t n = strlen(r->name);
        if (r->name[0] == '*' ? len >= n - 1 && strcmp(name + len - (n - 1), r->name + 1) == 0
                              : strcmp(name, r->name) == 0)
            return r;
    }
    return NULL;
}

const udfkit_param_rule *udfkit_launcher_param_rule(const udfkit_template_row *row, const char *name)
{
    const udfkit_param_rule *r = find_rule(row->param_rules, name);
    return r ? r : find_rule(shared_rules, name);
}

void udfkit_template_list(udfkit_buf *out)
{
    for (int t = 0; t < UDFKIT_KERNEL_TEMPLATE_COUNT; t++)
        udfkit_buf_printf(out, "%s%s", t ? ", " : "", rows[t].name);
}
