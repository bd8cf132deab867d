/* A light scan of CUDA C++ source text for function definitions at namespace scope.
 * NVRTC exposes no syntax tree, so udfkit finds which file and line define a function,
 * and whether it already has C linkage, from the text. It is a scan, not a parser:
 * definitions produced by macros are not seen, and then the compile itself decides. */
#ifndef UDFKIT_CXX_SCAN_H
#define UDFKIT_CXX_SCAN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_cxx_def {
    char *qualified; /* "ops::clamp" (anonymous namespaces left out) */
    int line;
    size_t nparams;  /* parameters at the definition (0 for "(void)") */
    bool c_linkage;  /* inside extern "C" { } or declared extern "C" */
    bool is_template;
} udfkit_cxx_def;

typedef struct udfkit_cxx_defs {
    udfkit_cxx_def *items;
    size_t count;
} udfkit_cxx_defs;

void udfkit_cxx_scan(const char *text, udfkit_cxx_defs *out);
void udfkit_cxx_defs_free(udfkit_cxx_defs *defs);

/* The name a spec's source_name refers to, without template arguments or a leading
 * "::": "::ops::clamp<int>" -> "ops::clamp". Returns a malloc'd string. */
char *udfkit_cxx_base_name(const char *source_name);

/* The definitions in `defs` of `qualified`, most fitting first: those with nparams params.
 * Returns how many match; *first is the best one. */
size_t udfkit_cxx_find(const udfkit_cxx_defs *defs, const char *qualified, size_t nparams, const udfkit_cxx_def **first);

#endif
