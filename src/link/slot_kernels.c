#include "link/slot_kernels.h"

#include "base/buf.h"
#include "base/strset.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct ptx_function {
    char *name;
    bool entry, defined, indirect;
    size_t body, body_end; /* offsets of the body's braces */
    size_t *calls;         /* indexes of the functions it names */
    size_t ncalls;
} ptx_function;

typedef struct ptx_reader {
    const char *text;
    size_t size;
    ptx_function *fns;
    size_t count;
} ptx_reader;

static bool ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_' || c == '$';
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* Past blanks and comments. */
static size_t skip_space(const char *t, size_t n, size_t i)
{
    for (;;) {
        while (i < n && isspace((unsigned char)t[i]))
            i++;
        if (i + 1 < n && t[i] == '/' && t[i + 1] == '/') {
            while (i < n && t[i] != '\n')
                i++;
        } else if (i + 1 < n && t[i] == '/' && t[i + 1] == '*') {
            const char *end = i + 2 < n ? strstr(t + i + 2, "*/") : NULL;
            i = end && (size_t)(end - t) < n ? (size_t)(end - t) + 2 : n;
        } else {
            return i;
        }
    }
}

static size_t find(const ptx_reader *r, const char *name, size_t len)
{
    for (size_t i = 0; i < r->count; i++)
        if (strlen(r->fns[i].name) == len && strncmp(r->fns[i].name, name, len) == 0)
            return i;
    return SIZE_MAX;
}

/* The matching '}' of the '{' at `i`, or SIZE_MAX. */
static size_t body_end(const char *t, size_t n, size_t i)
{
    int depth = 0;
    while (i < n) {
        size_t j = skip_space(t, n, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (t[i] == '{')
            depth++;
        else if (t[i] == '}' && --depth == 0)
            return i;
        i++;
    }
    return SIZE_MAX;
}

/* A function's header after .entry or .func: an optional return parameter list, the name,
 * then a body or a ';' (a declaration). */
static udfkit_rc read_function(ptx_reader *r, size_t *at, bool entry, const char *origin)
{
    const char *t = r->text;
    size_t n = r->size, i = skip_space(t, n, *at);
    if (!entry && i < n && t[i] == '(') {
        while (i < n && t[i] != ')')
            i++;
        i = skip_space(t, n, i + 1);
    }
    size_t start = i;
    while (i < n && ident_char(t[i]))
        i++;
    if (i == start || !ident_start(t[start]))
        return udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "PTX with a %s without a name", entry ? ".entry" : ".func");
    size_t name_len = i - start;
    /* The parameters, the performance directives, up to a body or a ';'. */
    int parens = 0;
    while (i < n && (parens || (t[i] != '{' && t[i] != ';'))) {
        parens += t[i] == '(';
        parens -= t[i] == ')';
        i++;
    }
    size_t k = find(r, t + start, name_len);
    if (k == SIZE_MAX) {
        ptx_function *grown = realloc(r->fns, (r->count + 1) * sizeof *grown);
        char *name = malloc(name_len + 1);
        if (!grown || !name) {
            free(name);
            if (grown)
                r->fns = grown;
            return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
        }
        memcpy(name, t + start, name_len);
        name[name_len] = '\0';
        r->fns = grown;
        r->fns[r->count] = (ptx_function){.name = name, .entry = entry};
        k = r->count++;
    }
    if (i < n && t[i] == '{') {
        size_t end = body_end(t, n, i);
        if (end == SIZE_MAX)
            return udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "PTX whose function '%s' has no end", r->fns[k].name);
        r->fns[k].defined = true;
        r->fns[k].body = i;
        r->fns[k].body_end = end;
        *at = end + 1;
    } else {
        *at = i < n ? i + 1 : n;
    }
    return UDFKIT_RC_OK;
}

/* The functions a body names (calls, addresses taken), and whether it calls through a
 * register. */
static udfkit_rc read_calls(ptx_reader *r, ptx_function *f, const udfkit_strset *names)
{
    const char *t = r->text;
    size_t i = f->body + 1, end = f->body_end;
    char word[512];
    while (i < end) {
        size_t j = skip_space(t, end, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (t[i] == '%') { /* a register */
            while (++i < end && ident_char(t[i]))
                ;
            continue;
        }
        if (!ident_start(t[i]) || (i > 0 && (ident_char(t[i - 1]) || t[i - 1] == '.'))) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < end && ident_char(t[i]))
            i++;
        size_t len = i - start;
        if (len == 4 && strncmp(t + start, "call", 4) == 0) {
            /* call[.uni] [(ret),] target: a register target is an indirect call. */
            size_t k = i;
            while (k < end && t[k] == '.')
                while (++k < end && ident_char(t[k]))
                    ;
            k = skip_space(t, end, k);
            if (k < end && t[k] == '(') {
                while (k < end && t[k] != ')')
                    k++;
                k = skip_space(t, end, k + 1);
                if (k < end && t[k] == ',')
                    k = skip_space(t, end, k + 1);
            }
            f->indirect |= k < end && t[k] == '%';
            continue;
        }
        if (len >= sizeof word)
            continue;
        memcpy(word, t + start, len);
        word[len] = '\0';
        if (!udfkit_strset_has(names, word))
            continue;
        size_t callee = find(r, word, len);
        size_t *grown = realloc(f->calls, (f->ncalls + 1) * sizeof *grown);
        if (!grown)
            return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
        f->calls = grown;
        f->calls[f->ncalls++] = callee;
    }
    return UDFKIT_RC_OK;
}

/* Whether `from` reaches a function the PTX does not define (depth-first, each once). */
static bool reaches_undefined(const ptx_reader *r, size_t from, bool any_undefined, bool *seen)
{
    if (seen[from])
        return false;
    seen[from] = true;
    const ptx_function *f = &r->fns[from];
    if (!f->defined)
        return true;
    if (f->indirect && any_undefined)
        return true;
    for (size_t i = 0; i < f->ncalls; i++)
        if (reaches_undefined(r, f->calls[i], any_undefined, seen))
            return true;
    return false;
}

/* Appends to `out` each undefined function `from` reaches, once (`seen` marks them); every
 * undefined function where it calls through a pointer. False: out of memory. */
static bool undefined_reached(const ptx_reader *r, size_t from, bool *seen, udfkit_buf *out)
{
    if (seen[from])
        return true;
    seen[from] = true;
    const ptx_function *f = &r->fns[from];
    if (!f->defined)
        return udfkit_buf_printf(out, "%s%s", out->size ? " " : "", f->name);
    bool ok = true;
    for (size_t k = 0; ok && f->indirect && k < r->count; k++)
        if (!r->fns[k].defined)
            ok = undefined_reached(r, k, seen, out);
    for (size_t i = 0; ok && i < f->ncalls; i++)
        ok = undefined_reached(r, f->calls[i], seen, out);
    return ok;
}

udfkit_rc udfkit_slot_kernels_read(const char *ptx, size_t size, const char *origin, udfkit_slot_kernels *out)
{
    memset(out, 0, sizeof *out);
    while (size && ptx[size - 1] == '\0')
        size--;
    ptx_reader r = {ptx, size, NULL, 0};
    udfkit_rc rc = UDFKIT_RC_OK;
    size_t i = 0;
    /* Top level: directives; .entry and .func begin functions, other braces (initializers)
     * are skipped whole. */
    while (i < size && !rc) {
        size_t j = skip_space(ptx, size, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (ptx[i] == '{') {
            size_t end = body_end(ptx, size, i);
            i = end == SIZE_MAX ? size : end + 1;
            continue;
        }
        if (ptx[i] == '.' && (i == 0 || !ident_char(ptx[i - 1]))) {
            if (strncmp(ptx + i, ".entry", 6) == 0 && !ident_char(ptx[i + 6])) {
                i += 6;
                rc = read_function(&r, &i, true, origin);
                continue;
            }
            if (strncmp(ptx + i, ".func", 5) == 0 && !ident_char(ptx[i + 5])) {
                i += 5;
                rc = read_function(&r, &i, false, origin);
                continue;
            }
        }
        i++;
    }
    udfkit_strset names = UDFKIT_STRSET_INIT;
    bool any_undefined = false;
    for (size_t k = 0; k < r.count && !rc; k++) {
        any_undefined |= !r.fns[k].defined;
        if (!udfkit_strset_add(&names, r.fns[k].name) && !udfkit_strset_has(&names, r.fns[k].name))
            rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    }
    for (size_t k = 0; k < r.count && !rc; k++)
        if (r.fns[k].defined)
            rc = read_calls(&r, &r.fns[k], &names);
    size_t nentries = 0;
    for (size_t k = 0; k < r.count; k++)
        nentries += r.fns[k].entry && r.fns[k].defined;
    bool *seen = calloc(r.count + 1, sizeof *seen);
    out->names = calloc(nentries + 1, sizeof *out->names);
    out->bound = calloc(nentries + 1, sizeof *out->bound);
    out->calls = calloc(nentries + 1, sizeof *out->calls);
    if (!rc && (!seen || !out->names || !out->bound || !out->calls))
        rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    for (size_t k = 0; k < r.count && !rc; k++) {
        if (!r.fns[k].entry || !r.fns[k].defined)
            continue;
        memset(seen, 0, r.count * sizeof *seen);
        out->bound[out->count] = reaches_undefined(&r, k, any_undefined, seen);
        memset(seen, 0, r.count * sizeof *seen);
        udfkit_buf calls = UDFKIT_BUF_INIT;
        bool ok = undefined_reached(&r, k, seen, &calls);
        if (!(out->calls[out->count] = udfkit_buf_detach(&calls)) || !ok)
            rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
        out->names[out->count++] = r.fns[k].name;
        r.fns[k].name = NULL;
    }
    free(seen);
    udfkit_strset_free(&names);
    for (size_t k = 0; k < r.count; k++) {
        free(r.fns[k].name);
        free(r.fns[k].calls);
    }
    free(r.fns);
    if (rc)
        udfkit_slot_kernels_free(out);
    return rc;
}

void udfkit_slot_kernels_free(udfkit_slot_kernels *k)
{
    for (size_t i = 0; i < k->count; i++) {
        free(k->names[i]);
        free(k->calls ? k->calls[i] : NULL);
    }
    free(k->names);
    free(k->calls);
    free(k->bound);
    memset(k, 0, sizeof *k);
}
