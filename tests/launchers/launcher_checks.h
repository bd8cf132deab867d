/* The launchers of generated libraries as data, for tests/launchers/launcher_checks.c:
 * make_cases.py writes, from the libraries' headers, one entry per launcher with its
 * parameters and the rule docs/security.md ("Column data: launcher arguments") gives each, and a function
 * that calls the launcher with the arguments of an lc_args. */
#ifndef UDFKIT_TEST_LAUNCHER_CHECKS_H
#define UDFKIT_TEST_LAUNCHER_CHECKS_H

#include <udfkit/runtime.h>

#include <stddef.h>
#include <stdint.h>

#define LC_MAX_PARAMS 24

typedef enum lc_kind {
    LC_POINTER, /* a column or a result: T * */
    LC_MASK,    /* udfkit_mask */
    LC_STRINGS, /* udfkit_strings */
    LC_VALUE    /* init: passed as 0 */
} lc_kind;

/* docs/security.md's rules for a pointer. */
typedef enum lc_role {
    LC_ROWS,     /* NULL refused where n > 0 */
    LC_ALWAYS,   /* NULL refused also where n = 0; written where n = 0 */
    LC_OPTIONAL, /* NULL: left out */
    LC_ALIGNED,  /* may be NULL; alignment checked */
    LC_UNCHECKED /* a string column's characters */
} lc_role;

/* How many elements a pointer's column has, by n. */
typedef enum lc_extent { LC_N, LC_N_PLUS_1, LC_ONE, LC_OUTPUTS, LC_BITS, LC_UNKNOWN } lc_extent;

typedef struct lc_param {
    const char *name;
    lc_kind kind;
    lc_role role;
    lc_extent extent;
    size_t size; /* a pointer's element size */
    int written; /* a pointer to non-const */
} lc_param;

typedef struct lc_args {
    udfkit_stream s;
    uint64_t n;
    void *p[LC_MAX_PARAMS];             /* LC_POINTER */
    udfkit_mask m[LC_MAX_PARAMS];       /* LC_MASK */
    udfkit_strings str[LC_MAX_PARAMS];  /* LC_STRINGS */
} lc_args;

typedef struct lc_launcher {
    const char *name;     /* "nk_nullable_map_twice" */
    const char *library;  /* "nk" */
    const char *count;    /* "n", "segments" */
    int slotted;          /* takes an instance first (passed NULL) */
    uint64_t max_rows;    /* below UINT64_MAX where the launcher documents a lower limit */
    size_t nparams;
    lc_param params[LC_MAX_PARAMS];
    udfkit_status (*call)(const lc_args *a);
    udfkit_status (*udf_error)(udfkit_stream s); /* the library's <name>_udf_error; NULL: slotted */
} lc_launcher;

extern const lc_launcher lc_launchers[];
extern const size_t lc_launcher_count;

#endif
