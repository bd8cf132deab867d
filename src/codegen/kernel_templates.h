/* The kernel templates of KERNELS entries as data: one row per template holding what the
 * entry parser, the signature check and the kernel generator ask of it (the entry's form, the
 * UDF's shape, its kernels and their names, its CUDA and C texts, its launcher's parameters
 * and documentation, the helpers it needs). Adding a template is adding an enumerator, a row
 * and its texts (docs/architecture.md). */
#ifndef UDFKIT_KERNEL_TEMPLATES_H
#define UDFKIT_KERNEL_TEMPLATES_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>

/* The rows of kernel_templates.c, in this order. */
typedef enum udfkit_kernel_template {
    UDFKIT_KERNEL_MAP,    /* f: R(A1..An)      out[i] = f(a1[i], ..., an[i]) */
    UDFKIT_KERNEL_FILTER, /* p: bool(A1..An)   the rows where p holds, ascending */
    UDFKIT_KERNEL_REDUCE, /* op: T(T, T)       init combined with every element, in order */
    /* The same over Arrow columns: each input with a validity bitmap (SPEC.md, "Nulls"). */
    UDFKIT_KERNEL_NULLABLE_MAP,    /* f: R(A1..An), T? allowed; out, out_bits, null_count */
    UDFKIT_KERNEL_NULLABLE_FILTER, /* p: bool(A1..An) or bool?(..); rows valid and true */
    UDFKIT_KERNEL_NULLABLE_REDUCE, /* op: T(T, T); nulls skipped, valid rows counted */
    /* Grouped and ordered operators (SPEC.md, "More kernel templates"). */
    UDFKIT_KERNEL_INCLUSIVE_SCAN, /* op: T(T, T)   out[i] = in[0] op ... op in[i] */
    UDFKIT_KERNEL_EXCLUSIVE_SCAN, /* op: T(T, T)   out[i] = init op in[0] op ... op in[i - 1] */
    UDFKIT_KERNEL_REDUCE_BY_KEY,  /* op: T(T, T), K an integer type: one value per run of equal keys */
    UDFKIT_KERNEL_TRANSFORM_REDUCE, /* f: T(A1..An), op: T(T, T)   init op f(row 0) op ... op f(row n-1) */
    UDFKIT_KERNEL_SEGMENTED_REDUCE, /* op: T(T, T)   per segment [offsets[s], offsets[s+1]) as reduce */
    UDFKIT_KERNEL_SORT,             /* less: bool(T, T)   a stable sort, optionally with the permutation */
    UDFKIT_KERNEL_TEMPLATE_COUNT
} udfkit_kernel_template;

/* What may follow the function in an entry: "map(f)", "filter(p, values)",
 * "reduce_by_key(op, K)", "transform_reduce(f, op)". */
typedef enum udfkit_entry_extra {
    UDFKIT_EXTRA_NONE,
    UDFKIT_EXTRA_WORD,     /* one of the row's words, optional */
    UDFKIT_EXTRA_KEY,      /* a type, required: the keys' column */
    UDFKIT_EXTRA_FUNCTION  /* a second function, required: the op */
} udfkit_entry_extra;

/* What a filter writes: SPEC.md's 64-bit row numbers, 32-bit ones (filter(p, indices32)) or
 * the kept rows' values of every input (filter(p, values)). */
typedef enum udfkit_filter_output {
    UDFKIT_FILTER_INDICES,
    UDFKIT_FILTER_INDICES32,
    UDFKIT_FILTER_VALUES
} udfkit_filter_output;

/* An option word of an entry and what it selects. */
typedef struct udfkit_template_word {
    const char *word;   /* "nullify", "indices32", "values" */
    const char *help;   /* for the message naming the words: "'nullify': rows the UDF fails become nulls" */
    const char *suffix; /* appended to the launcher's and kernels' names: "_values" */
    const char *doc;    /* the launcher's documentation where it differs from the row's; NULL: the row's */
    bool nullify;       /* a row the UDF fails is null, not an error */
    udfkit_filter_output filter_out;
} udfkit_template_word;

/* The shape the UDF's signature must have (kernel_entry.c checks each). */
typedef enum udfkit_template_shape {
    UDFKIT_SHAPE_MAP,       /* R(A1..An), or void(A1..An, O1*, ..., Ok*) writing outputs */
    UDFKIT_SHAPE_PREDICATE, /* bool(A1..An) (bool? where the template takes nullable types) */
    UDFKIT_SHAPE_OP,        /* T(T, T) */
    UDFKIT_SHAPE_TRANSFORM, /* f: T(A1..An) and op: T(T, T) */
    UDFKIT_SHAPE_LESS,      /* bool(T, T) */
    UDFKIT_SHAPE_COUNT
} udfkit_template_shape;

/* How the generator makes an entry's per-row texts (kernel_gen.c fills each). */
typedef enum udfkit_template_rows {
    UDFKIT_ROWS_MAP,             /* row structs, load/compute/store and the staged tile */
    UDFKIT_ROWS_FILTER,          /* the keep function, the stencil and the outputs */
    UDFKIT_ROWS_FILTER_TEXT,     /* the same selecting row numbers, and the string columns' copies */
    UDFKIT_ROWS_NULLABLE_FILTER, /* the keep function */
    UDFKIT_ROWS_COLUMN,          /* none: the template takes T, `in` and the UDF */
    UDFKIT_ROWS_TRANSFORM,       /* f's rows as a map's */
    UDFKIT_ROWS_COUNT
} udfkit_template_rows;

/* Helpers of the generated files that a template needs (udfkit_template_row.helpers). */
enum {
    UDFKIT_NEEDS_BLOCKS = 1u << 0,      /* udfkit_<name>_blocks: a grid for n threads */
    UDFKIT_NEEDS_CHUNKS = 1u << 1,      /* udfkit_<name>_chunks: a chunk of rows a block */
    UDFKIT_NEEDS_TILES = 1u << 2,       /* udfkit_<name>_tile_state: the tiles' state of a pass */
    UDFKIT_NEEDS_REDUCE = 1u << 3,      /* reduce_helpers.cu.in */
    UDFKIT_NEEDS_SELECT = 1u << 4,      /* select_helpers.cu.in and the select init kernel */
    UDFKIT_NEEDS_FILTER_SCAN = 1u << 5, /* filter_scan.cu.in: the nullable filters' shared scan */
    UDFKIT_NEEDS_STRINGS = 1u << 6,     /* string_helpers.cu.in: string columns (an entry's types say so) */
    UDFKIT_NEEDS_OFFSETS = 1u << 7,     /* offsets_scan.cu.in: string results' offsets */
    UDFKIT_NEEDS_ARROW = 1u << 8,       /* arrow_bits.cu.in: `_arrow` launchers' bool columns and gathers */
    UDFKIT_NEEDS_OFFSETS_SCAN = 1u << 9, /* udfkit_<name>_offsets: the offsets scan as a launch of its own */
    UDFKIT_NEEDS_CARRIED = 1u << 10,     /* carried_helpers.cu.in: what the single-pass scans carry */
};

/* One of an entry's launchers where it has several (the two launches of string results). */
typedef struct udfkit_launcher_text {
    const char *var;    /* the placeholder of its prototype in the C text: "PROTOTYPE_SIZES" */
    const char *suffix; /* after the entry's name: "_sizes" */
    const char *params; /* after the count (a @NAME@ text) */
    const char *doc;    /* its documentation (a @NAME@ text) */
} udfkit_launcher_text;

/* When a row's variant takes an entry's place (udfkit_template_variant.when). */
enum {
    UDFKIT_WHEN_TEXT_RESULTS = 1u << 0, /* the UDF's result or one of its outputs is a string */
    UDFKIT_WHEN_TEXT_INPUTS = 1u << 1,  /* one of the UDF's inputs is a string */
    UDFKIT_WHEN_VALUES = 1u << 2,       /* the entry writes its inputs' values (filter(p, values)) */
};

/* What a launcher's pointer parameter is, for its argument checks (docs/security.md,
 * "Column data: launcher arguments"): every launcher checks its arguments before it loads or queues
 * anything. A pointer is ROWS unless a rule says otherwise; an input bitmap (udfkit_mask) and
 * a string column (udfkit_strings) are checked as what they are. */
typedef enum udfkit_param_role {
    UDFKIT_PARAM_ROWS,      /* elements of the rows: NULL refused where the count is not 0 */
    UDFKIT_PARAM_ALWAYS,    /* written also where the count is 0 (*count = 0): NULL refused always */
    UDFKIT_PARAM_OPTIONAL,  /* NULL leaves it out: neither read nor written */
    UDFKIT_PARAM_ALIGNED,   /* how many elements is in device memory (segmented_reduce's in): may be
                               NULL (no element read), else aligned */
    UDFKIT_PARAM_UNCHECKED, /* bytes whose number is in device memory (a string column's
                               characters; NULL where there are none) */
} udfkit_param_role;

/* A rule for the parameters of a name. */
typedef struct udfkit_param_rule {
    const char *name;   /* "count", or "*_offsets": every name that ends so */
    udfkit_param_role role;
    const char *extent; /* its elements, C over the count (@COUNT@: "n") and the outputs (@K@);
                           NULL: the count */
} udfkit_param_rule;

/* Rows a launcher takes at most where its template has no lower bound of its own: more than
 * any device's address space holds (49 bits on sm_90), and far enough from 2^64 that no row
 * arithmetic of a kernel wraps (n * 16 bytes, offset + n bits, n + 1 offsets). */
#define UDFKIT_LAUNCH_MAX_ROWS (1ull << 56)
/* The rows of a tile of the offsets scan of string results (launcher_offsets.c.in, 896u) and
 * of the scans' tile state (at most 2^31 - 1 tiles, launcher_tiles.c.in). */
#define UDFKIT_OFFSETS_TILE_ROWS 896ull
#define UDFKIT_MAX_TILES 0x7fffffffull

struct udfkit_template_row;
/* Another row for entries of the template whose UDF is of another kind (its kernels and
 * launchers differ; its name, entry form and check are the template's). */
typedef struct udfkit_template_variant {
    unsigned when;
    const struct udfkit_template_row *row;
} udfkit_template_variant;

typedef struct udfkit_template_row {
    const char *name;             /* "map" */
    udfkit_entry_extra extra;
    const udfkit_template_word *words; /* UDFKIT_EXTRA_WORD: the words; ends with {NULL} */
    const char *extra_help;       /* UDFKIT_EXTRA_KEY and _FUNCTION: the message where it is left out */
    unsigned key_flags;           /* UDFKIT_EXTRA_KEY: the kinds it takes (UDFKIT_KIND_*) */
    udfkit_template_shape shape;
    const char *predicate;        /* UDFKIT_SHAPE_PREDICATE: "a predicate bool(A1..An)" */
    /* Why T? types are refused ("takes no nullable (T?) types: ..."); NULL: taken. */
    const char *refuses_nullable;
    const char *twin;             /* the template taking the same UDF over nullable columns, or NULL */
    bool nullable;                /* columns come with validity bitmaps (udfkit_mask) */
    bool outputs;                 /* the UDF may write several outputs (map's void(A1..An, O1*, ...)) */
    bool t_is_parameter;          /* T is the first parameter's type (sort), else the return's */
    bool index_keys;              /* the kernels sort row numbers (8 bytes), not T's values */
    udfkit_template_rows rows;
    const char *const *kernels;   /* the kernels' name suffixes, in launch order; ends with NULL */
    unsigned helpers;             /* UDFKIT_NEEDS_* */
    const char *cuda, *c;         /* the kernel's and the launcher's texts (templates/kernels/) */
    const char *cuda_more, *c_more; /* texts that follow them, or NULL */
    const udfkit_template_variant *variants; /* ends with {0} */
    const udfkit_launcher_text *launchers;   /* several launchers (ends with {NULL}), or NULL: one, of params and doc */
    bool small_path;              /* reduce's launcher reduces few rows in one launch */
    const char *round_tiles;      /* reduce's launcher: its least chunk, in tiles */
    const char *count;            /* the launcher's count: "n", "segments" */
    const char *params;           /* the launcher's parameters after the count (a @NAME@ template) */
    const char *doc;              /* the launcher's documentation (a @NAME@ template) */
    const char *doc_outputs;      /* the same where the UDF writes several outputs */
    const char *scan_kind;        /* CUB's scan the kernel runs: "inclusive", "exclusive" */
    bool scan_init;               /* the scan starts from init (exclusive) */
    unsigned tile_threads;        /* a tile's threads (scan, reduce_by_key, sort) */
    size_t (*tile_items)(size_t t_bytes); /* a thread's rows of a tile, by T's size */
    const udfkit_param_rule *param_rules; /* the launcher's parameters where they differ from
                                             udfkit_launcher_param_rule's; ends with {NULL} */
} udfkit_template_row;

const udfkit_template_row *udfkit_template_info(udfkit_kernel_template t);
/* The template named `name` (n bytes), or false. */
bool udfkit_template_find(const char *name, size_t n, udfkit_kernel_template *out);
/* The rule of the launcher parameter `name` of row's template: the row's own, else the one
 * every launcher shares (count, runs, null_count, valid_count, string results' offsets and
 * characters, bitmaps), else NULL (UDFKIT_PARAM_ROWS of the count's elements). */
const udfkit_param_rule *udfkit_launcher_param_rule(const udfkit_template_row *row, const char *name);
/* "map, filter, reduce, ..." */
void udfkit_template_list(udfkit_buf *out);

#endif
