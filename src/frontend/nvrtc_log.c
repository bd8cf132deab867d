#include "frontend/nvrtc_log.h"

#include "frontend/cxx_scan.h"
#include "frontend/exporter.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct diag {
    char *file;
    int line;
    char *severity; /* "error", "warning", "note", "catastrophic error", "remark" */
    char *message;
    udfkit_buf detail; /* the lines that follow: source echo, caret, instantiation context */
} diag;

/* Parses "file(12): error: text" or "file(12): warning #177-D: text". */
static bool parse_head(const char *line, size_t len, diag *d)
{
    const char *open = NULL;
    for (const char *p = line; p + 2 < line + len; p++)
        if (*p == '(' && isdigit((unsigned char)p[1])) {
            const char *q = p + 1;
            while (q < line + len && isdigit((unsigned char)*q))
                q++;
            if (q + 2 < line + len && q[0] == ')' && q[1] == ':' && q[2] == ' ') {
                open = p;
                break;
            }
        }
    if (!open)
        return false;
    const char *sev = strchr(open, ')') + 3;
    const char *colon = memchr(sev, ':', (size_t)(line + len - sev));
    if (!colon)
        return false;
    const char *sev_end = colon;
    const char *hash = memchr(sev, '#', (size_t)(colon - sev));
    if (hash)
        sev_end = hash;
    while (sev_end > sev && sev_end[-1] == ' ')
        sev_end--;
    d->file = strndup(line, (size_t)(open - line));
    d->line = atoi(open + 1);
    d->severity = strndup(sev, (size_t)(sev_end - sev));
    const char *msg = colon + 1;
    while (*msg == ' ')
        msg++;
    d->message = strndup(msg, (size_t)(line + len - msg));
    return true;
}

static void diag_free(diag *d)
{
    free(d->file);
    free(d->severity);
    free(d->message);
    udfkit_buf_free(&d->detail);
}

/* The c_name whose forwarder this diagnostic comes from, or NULL. */
static const udfkit_log_export *export_of(const diag *d, const udfkit_log_export *exports, size_t n)
{
    const char *name = NULL;
    size_t prefix = strlen(UDFKIT_EXPORT_FILE_PREFIX);
    if (strncmp(d->file, UDFKIT_EXPORT_FILE_PREFIX, prefix) == 0)
        name = d->file + prefix;
    else if (d->detail.data && (name = strstr(d->detail.data, " of " UDFKIT_EXPORT_FILE_PREFIX)))
        name += 4 + prefix;
    if (!name)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(exports[i].spec->c_name);
        if (strncmp(name, exports[i].spec->c_name, len) == 0 && !(isalnum((unsigned char)name[len]) || name[len] == '_'))
            return &exports[i];
    }
    return NULL;
}

/* Copies the text between the first pair of double quotes after `after`. */
static char *quoted(const char *text, const char *after)
{
    const char *p = after ? strstr(text, after) : text;
    if (!p)
        return NULL;
    const char *open = strchr(p + (after ? strlen(after) : 0), '"');
    if (!open)
        return NULL;
    const char *close = strchr(open + 1, '"');
    return close ? strndup(open + 1, (size_t)(close - open - 1)) : NULL;
}

/* "[with K=12, R=double]" -> "double" */
static char *template_arg(const char *text, const char *name)
{
    char key[32];
    snprintf(key, sizeof key, " %s=", name);
    const char *p = text ? strstr(text, key) : NULL;
    if (!p)
        return NULL;
    p += strlen(key);
    const char *end = p;
    int depth = 0;
    while (*end && !(depth == 0 && (*end == ',' || *end == ']'))) {
        if (*end == '<' || *end == '(')
            depth++;
        else if (*end == '>' || *end == ')')
            depth--;
        end++;
    }
    return strndup(p, (size_t)(end - p));
}

/* Whether the quoted name in an NVRTC message is the function's own (last) name. */
static bool names_function(const char *message, const char *source_name)
{
    char *base = udfkit_cxx_base_name(source_name);
    const char *last = base;
    for (const char *p = strstr(base, "::"); p; p = strstr(p + 2, "::"))
        last = p + 2;
    char *name = NULL;
    bool match = false;
    for (const char *p = message; (name = quoted(p, NULL)) != NULL; p = strchr(strchr(p, '"') + 1, '"') + 1) {
        match |= strcmp(name, last) == 0;
        free(name);
    }
    free(base);
    return match;
}

/* A template the forwarder cannot call with the declared types: a named instantiation
 * whose parameter does not have its declared type (the note says which), or a template
 * whose arguments cannot be deduced from them. */
static void describe_template_mismatch(const udfkit_spec *s, const char *sig, const diag *notes, size_t nnotes,
                                       udfkit_buf *out)
{
    static const char key[] = "does not match because argument #";
    long arg = 0;
    for (size_t i = 0; i < nnotes && arg == 0; i++) {
        const char *p = strstr(notes[i].message, key);
        if (p)
            arg = strtol(p + sizeof key - 1, NULL, 10);
    }
    if (arg > 0 && (size_t)arg <= s->sig.nparams) {
        udfkit_buf declared = UDFKIT_BUF_INIT;
        udfkit_type_name(s->sig.params[arg - 1], &declared);
        udfkit_buf_printf(out,
                          "'%s' does not match its declared signature %s: its parameter %ld is not of the declared "
                          "type %s; check the template arguments it names",
                          s->source_name, sig, arg, declared.data);
        udfkit_buf_free(&declared);
    } else if (strchr(s->source_name, '<')) {
        udfkit_buf_printf(out, "'%s' does not match its declared signature %s; check the template arguments it names",
                          s->source_name, sig);
    } else {
        udfkit_buf_printf(out,
                          "'%s' names a function template whose arguments cannot be deduced from the declared "
                          "signature %s: name one instantiation, e.g. %s<int>",
                          s->source_name, sig, s->source_name);
    }
}

static void describe_export_error(const diag *d, const diag *notes, size_t nnotes, const udfkit_log_export *e,
                                  udfkit_buf *out)
{
    const udfkit_spec *s = e->spec;
    udfkit_buf sig = UDFKIT_BUF_INIT;
    udfkit_signature_format(&s->sig, &sig);
    if (e->line > 0)
        udfkit_buf_printf(out, "%s:%d: error: ", e->file, e->line);
    else
        udfkit_buf_printf(out, "%s: error: ", e->file);
    const char *m = d->message;
    const char *as = strcmp(s->c_name, s->source_name) != 0 ? s->c_name : NULL;
    char *from = NULL, *to = NULL;

    if (names_function(m, s->source_name) &&
        (strstr(m, "has no \"") || strstr(m, "is undefined") || strstr(m, "has no member"))) {
        udfkit_buf_printf(out, "function '%s' is not defined in %s", s->source_name, e->file);
    } else if ((strstr(m, "no suitable conversion function from") || strstr(m, "no suitable user-defined conversion from") ||
                (strstr(m, "more than one user-defined conversion from") && strstr(m, "__udfkit_plain_arg"))) &&
               (from = quoted(m, "from")) && (to = quoted(m, "to"))) {
        /* The last: a value the spec declares not nullable, where the source takes an optional. */
        /* from is "__udfkit::__udfkit_arg<KIND, INDEX, ABI>" */
        const char *comma = strchr(from, ',');
        long index = comma ? strtol(comma + 1, NULL, 10) : 0;
        /* The index is the forwarder's own; anything else in a log names no parameter. */
        if (index < 0 || (size_t)index >= (e->pair ? udfkit_signature_c_arity(&s->sig) : s->sig.nparams))
            index = 0;
        udfkit_buf declared = UDFKIT_BUF_INIT;
        if (e->pair) {
            /* The source takes the C ABI pairs: the index is the C ABI's, as is the type. */
            udfkit_signature abi = udfkit_exporter_c_abi(&s->sig);
            if (index >= 0 && (size_t)index < abi.nparams)
                udfkit_exporter_abi_type(abi.params[index], &declared);
            udfkit_buf_printf(out, "'%s' does not match its declared signature %s: its C ABI parameter %ld is '%s', "
                              "declared %s",
                              s->source_name, sig.data, index + 1, to, declared.data ? declared.data : "?");
        } else {
            if ((size_t)index < s->sig.nparams)
                udfkit_type_name(s->sig.params[index], &declared);
            udfkit_buf_printf(out, "'%s' does not match its declared signature %s: parameter %ld is '%s', declared %s",
                              s->source_name, sig.data, index + 1, to, declared.data ? declared.data : "?");
        }
        udfkit_buf_free(&declared);
    } else if (strstr(m, "no instance of overloaded function")) {
        udfkit_buf_printf(out, "no overload of '%s' matches its declared signature %s", s->source_name, sig.data);
        const char *sep = "; candidates: ";
        for (size_t i = 0; i < nnotes; i++) {
            char *candidate = quoted(notes[i].message, "function");
            if (candidate) {
                udfkit_buf_printf(out, "%s%s", sep, candidate);
                sep = ", ";
            }
            free(candidate);
        }
    } else if (strstr(m, "no instance of function template")) {
        describe_template_mismatch(s, sig.data, notes, nnotes, out);
    } else if (strstr(m, "the return type does not match")) {
        char *actual = template_arg(d->detail.data, "__udfkit_R");
        udfkit_buf declared = UDFKIT_BUF_INIT;
        if (e->pair)
            udfkit_buf_puts(&declared, "bool (whether the T? result is valid, in the C ABI pair form)");
        else
            udfkit_type_name(s->sig.ret, &declared);
        udfkit_buf_printf(out, "'%s' does not match its declared signature %s: it returns '%s', declared %s",
                          s->source_name, sig.data, actual ? actual : "?", declared.data);
        udfkit_buf_free(&declared);
        free(actual);
    } else if (strstr(m, "too many arguments") || strstr(m, "too few arguments")) {
        udfkit_buf_printf(out, "'%s' does not match its declared signature %s: it takes %s parameters", s->source_name,
                          sig.data, strstr(m, "too many") ? "fewer" : "more");
    } else if (strstr(m, "has already been defined") || strstr(m, "more than one instance of overloaded function") ||
               strstr(m, "declaration is incompatible with previous")) {
        udfkit_buf_printf(out, "c_name '%s' is already defined with C linkage in %s; choose another c_name", s->c_name,
                          e->file);
    } else {
        udfkit_buf_printf(out, "cannot export '%s'%s%s%s: %s", s->source_name, as ? " as '" : "", as ? as : "",
                          as ? "'" : "", m);
    }
    if (as && !strstr(out->data, "c_name '"))
        udfkit_buf_printf(out, " (exported as '%s')", as);
    udfkit_buf_puts(out, "\n");
    free(from);
    free(to);
    udfkit_buf_free(&sig);
}

static void copy_plain(const diag *d, udfkit_buf *out)
{
    udfkit_buf_printf(out, "%s:%d: %s: %s\n", d->file, d->line, d->severity, d->message);
    if (d->detail.size)
        udfkit_buf_append(out, d->detail.data, d->detail.size);
}

bool udfkit_nvrtc_log_rewrite(const char *log, const udfkit_log_export *exports, size_t nexports, udfkit_buf *out)
{
    diag *diags = NULL;
    size_t count = 0;
    udfkit_buf stray = UDFKIT_BUF_INIT; /* lines outside any diagnostic */
    for (const char *p = log; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        diag d = {0};
        if (parse_head(p, len, &d)) {
            diag *grown = realloc(diags, (count + 1) * sizeof *grown);
            if (grown) {
                diags = grown;
                diags[count++] = d;
            } else {
                diag_free(&d);
            }
        } else if (len) {
            char *text = strndup(p, len);
            /* NVRTC's closing "N errors detected in the compilation of ..." says nothing new. */
            if (!strstr(text, "detected in the compilation of")) {
                udfkit_buf *target = count ? &diags[count - 1].detail : &stray;
                udfkit_buf_puts(target, text);
                udfkit_buf_puts(target, "\n");
            }
            free(text);
        }
        p = end ? end + 1 : NULL;
    }

    bool has_error = false;
    bool *reported = calloc(nexports ? nexports : 1, sizeof *reported);
    for (size_t i = 0; i < count; i++) {
        diag *d = &diags[i];
        bool is_error = strstr(d->severity, "error") != NULL;
        has_error |= is_error;
        if (strcmp(d->severity, "note") == 0)
            continue; /* notes are read with the error before them */
        size_t nnotes = 0;
        while (i + 1 + nnotes < count && strcmp(diags[i + 1 + nnotes].severity, "note") == 0)
            nnotes++;
        const udfkit_log_export *e = export_of(d, exports, nexports);
        if (e && is_error) {
            size_t index = (size_t)(e - exports);
            if (!reported[index])
                describe_export_error(d, &diags[i + 1], nnotes, e, out);
            reported[index] = true;
            continue;
        }
        if (e)
            continue; /* warnings about generated code are udfkit's business */
        copy_plain(d, out);
        for (size_t k = 0; k < nnotes; k++)
            copy_plain(&diags[i + 1 + k], out);
    }
    if (stray.size)
        udfkit_buf_append(out, stray.data, stray.size);
    for (size_t i = 0; i < count; i++)
        diag_free(&diags[i]);
    free(diags);
    free(reported);
    udfkit_buf_free(&stray);
    return has_error || strstr(log ? log : "", "catastrophic") != NULL;
}

/* The first `needle` in [p, p + n), or NULL. */
static const char *find_in(const char *p, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(p + i, needle, k) == 0)
            return p + i;
    return NULL;
}

void udfkit_nvrtc_log_hide_open_reasons(udfkit_buf *log)
{
    static const char marker[] = "cannot open source file \"";
    size_t out = 0;
    for (size_t at = 0; at < log->size;) {
        const char *line = log->data + at, *nl = memchr(line, '\n', log->size - at);
        size_t len = nl ? (size_t)(nl - line) + 1 : log->size - at, keep = len;
        const char *found = find_in(line, len, marker), *close = NULL;
        if (found) {
            const char *name = found + sizeof marker - 1;
            close = memchr(name, '"', len - (size_t)(name - line));
        }
        if (close)
            keep = (size_t)(close - line) + 1;
        memmove(log->data + out, line, keep);
        out += keep;
        if (close && nl)
            log->data[out++] = '\n';
        at += len;
    }
    log->size = out;
    if (log->data)
        log->data[out] = '\0';
}
