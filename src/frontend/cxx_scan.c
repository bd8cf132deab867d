#include "frontend/cxx_scan.h"

#include "base/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef enum { TOK_IDENT, TOK_STRING, TOK_PUNCT, TOK_SCOPE, TOK_END } tok_kind;

typedef struct token {
    tok_kind kind;
    const char *text;
    size_t len;
    int line;
} token;

typedef struct lexer {
    const char *p;
    int line;
    bool line_start;
} lexer;

static void skip_space_and_comments(lexer *lx)
{
    for (;;) {
        const char *p = lx->p;
        if (*p == '\n') {
            lx->line++;
            lx->line_start = true;
            lx->p++;
        } else if (isspace((unsigned char)*p)) {
            lx->p++;
        } else if (p[0] == '/' && p[1] == '/') {
            while (*lx->p && *lx->p != '\n')
                lx->p++;
        } else if (p[0] == '/' && p[1] == '*') {
            lx->p += 2;
            while (*lx->p && !(lx->p[0] == '*' && lx->p[1] == '/')) {
                if (*lx->p == '\n')
                    lx->line++;
                lx->p++;
            }
            if (*lx->p)
                lx->p += 2;
        } else if (*p == '#' && lx->line_start) {
            /* Preprocessor directives, with their continuation lines, are not C++. */
            while (*lx->p && *lx->p != '\n') {
                if (lx->p[0] == '\\' && lx->p[1] == '\n') {
                    lx->line++;
                    lx->p++;
                }
                lx->p++;
            }
        } else {
            return;
        }
    }
}

static token next_token(lexer *lx)
{
    skip_space_and_comments(lx);
    lx->line_start = false;
    token t = {TOK_END, lx->p, 0, lx->line};
    const char *p = lx->p;
    if (!*p)
        return t;
    if (isalpha((unsigned char)*p) || *p == '_') {
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        t.kind = TOK_IDENT;
    } else if (*p == '"' || *p == '\'') {
        char quote = *p++;
        while (*p && *p != quote) {
            if (*p == '\\' && p[1])
                p++;
            if (*p == '\n')
                lx->line++;
            p++;
        }
        if (*p)
            p++;
        t.kind = TOK_STRING;
    } else if (p[0] == ':' && p[1] == ':') {
        p += 2;
        t.kind = TOK_SCOPE;
    } else {
        p++;
        t.kind = TOK_PUNCT;
    }
    t.len = (size_t)(p - t.text);
    lx->p = p;
    return t;
}

static bool tok_is(const token *t, const char *s)
{
    return t->len == strlen(s) && strncmp(t->text, s, t->len) == 0;
}

typedef struct scope {
    char *name;    /* namespace component(s), NULL for anonymous or extern "C" blocks */
    bool extern_c; /* an extern "C" { } block */
    bool opaque;   /* class bodies, function bodies, initializers: not scanned */
} scope;

typedef struct scanner {
    lexer lx;
    token tok[4]; /* tok[0] current, then lookahead */
    scope stack[128];
    size_t depth;
    udfkit_cxx_defs *out;
    /* What the declaration being read has said so far. */
    bool decl_extern_c, decl_template;
    const char *qualifier; /* "Class::" of an out-of-line member, without the "::" */
    size_t qlen;
} scanner;

static void advance(scanner *s)
{
    memmove(&s->tok[0], &s->tok[1], 3 * sizeof(token));
    s->tok[3] = next_token(&s->lx);
}

static bool in_extern_c(const scanner *s)
{
    for (size_t i = 0; i < s->depth; i++)
        if (s->stack[i].extern_c)
            return true;
    return false;
}

static bool in_opaque(const scanner *s)
{
    for (size_t i = 0; i < s->depth; i++)
        if (s->stack[i].opaque)
            return true;
    return false;
}

static void push(scanner *s, const char *name, size_t len, bool extern_c, bool opaque)
{
    if (s->depth == sizeof s->stack / sizeof *s->stack)
        return;
    s->stack[s->depth++] = (scope){name ? strndup(name, len) : NULL, extern_c, opaque};
}

static void pop(scanner *s)
{
    if (s->depth) {
        s->depth--;
        free(s->stack[s->depth].name);
    }
}

static void record(scanner *s, const token *name, const char *qualifier, size_t qlen, size_t nparams,
                   bool c_linkage, bool is_template)
{
    udfkit_buf q = UDFKIT_BUF_INIT;
    for (size_t i = 0; i < s->depth; i++)
        if (s->stack[i].name)
            udfkit_buf_printf(&q, "%s::", s->stack[i].name);
    if (qualifier)
        udfkit_buf_printf(&q, "%.*s::", (int)qlen, qualifier);
    udfkit_buf_printf(&q, "%.*s", (int)name->len, name->text);
    udfkit_cxx_def *items = realloc(s->out->items, (s->out->count + 1) * sizeof *items);
    if (!items) {
        udfkit_buf_free(&q);
        return;
    }
    s->out->items = items;
    s->out->items[s->out->count++] =
        (udfkit_cxx_def){udfkit_buf_detach(&q), name->line, nparams, c_linkage, is_template};
}

/* At '(' after an identifier: skips the parameter list, counting top-level commas. */
static size_t skip_params(scanner *s, bool *empty)
{
    int depth = 0;
    size_t commas = 0, tokens = 0;
    bool only_void = true;
    do {
        if (tok_is(&s->tok[0], "(") || tok_is(&s->tok[0], "[") || tok_is(&s->tok[0], "<") || tok_is(&s->tok[0], "{"))
            depth++;
        else if (tok_is(&s->tok[0], ")") || tok_is(&s->tok[0], "]") || tok_is(&s->tok[0], ">") || tok_is(&s->tok[0], "}"))
            depth--;
        else if (depth == 1 && tok_is(&s->tok[0], ","))
            commas++;
        else if (depth == 1) {
            tokens++;
            if (!tok_is(&s->tok[0], "void"))
                only_void = false;
        }
        advance(s);
    } while (depth > 0 && s->tok[0].kind != TOK_END);
    *empty = tokens == 0 || (only_void && tokens == 1);
    return commas + 1;
}

/* At `open`: skips to just past its matching `close`. */
static void skip_balanced(scanner *s, const char *open, const char *close)
{
    int depth = 0;
    do {
        if (tok_is(&s->tok[0], open))
            depth++;
        else if (tok_is(&s->tok[0], close))
            depth--;
        advance(s);
    } while (depth > 0 && s->tok[0].kind != TOK_END);
}

/* After `extern "C"`: a block, or one declaration with C linkage. */
static void scan_extern_c(scanner *s)
{
    advance(s);
    advance(s);
    if (tok_is(&s->tok[0], "{")) {
        push(s, NULL, 0, true, false);
        advance(s);
    } else {
        s->decl_extern_c = true;
    }
}

static void scan_namespace(scanner *s)
{
    advance(s);
    udfkit_buf name = UDFKIT_BUF_INIT;
    while (s->tok[0].kind == TOK_IDENT || s->tok[0].kind == TOK_SCOPE) {
        udfkit_buf_append(&name, s->tok[0].text, s->tok[0].len);
        advance(s);
    }
    if (tok_is(&s->tok[0], "{")) {
        push(s, name.size ? name.data : NULL, name.size, false, false);
        advance(s);
    }
    udfkit_buf_free(&name);
}

/* A class body is opaque; "struct S f() {" is still a function. */
static void scan_class_head(scanner *s)
{
    advance(s);
    while (s->tok[0].kind == TOK_IDENT || s->tok[0].kind == TOK_SCOPE)
        advance(s);
    if (tok_is(&s->tok[0], "{") || tok_is(&s->tok[0], ":")) {
        while (!tok_is(&s->tok[0], "{") && s->tok[0].kind != TOK_END && !tok_is(&s->tok[0], ";"))
            advance(s);
    }
}

/* Initializers can hold braces and parentheses that are not declarations. */
static void skip_initializer(scanner *s)
{
    while (!tok_is(&s->tok[0], ";") && s->tok[0].kind != TOK_END) {
        if (tok_is(&s->tok[0], "{"))
            skip_balanced(s, "{", "}");
        else
            advance(s);
    }
}

/* Out-of-line "Class::member(" definitions keep their qualifier. */
static void scan_qualified_name(scanner *s)
{
    const char *begin = s->tok[0].text;
    while (s->tok[0].kind == TOK_IDENT && s->tok[1].kind == TOK_SCOPE && s->tok[2].kind == TOK_IDENT) {
        advance(s);
        advance(s);
    }
    if (tok_is(&s->tok[1], "(")) {
        s->qualifier = begin;
        s->qlen = (size_t)(s->tok[0].text - begin) - 2;
    }
}

/* At "name(": a function whose body follows is a definition. */
static void scan_function(scanner *s)
{
    token name = s->tok[0];
    advance(s);
    bool empty = false;
    size_t nparams = skip_params(s, &empty);
    /* Between ')' and '{' only qualifiers, attributes, noexcept(...) or a trailing return. */
    while (s->tok[0].kind != TOK_END && !tok_is(&s->tok[0], "{") && !tok_is(&s->tok[0], ";") &&
           !tok_is(&s->tok[0], "=") && !tok_is(&s->tok[0], ",") && !tok_is(&s->tok[0], "}") &&
           !(s->tok[0].kind == TOK_IDENT && tok_is(&s->tok[1], "(") && !tok_is(&s->tok[0], "noexcept") &&
             !tok_is(&s->tok[0], "__attribute__") && !tok_is(&s->tok[0], "decltype"))) {
        if (tok_is(&s->tok[0], "(")) {
            bool ignored;
            skip_params(s, &ignored);
        } else {
            advance(s);
        }
    }
    if (tok_is(&s->tok[0], "{"))
        record(s, &name, s->qualifier, s->qlen, empty ? 0 : nparams, s->decl_extern_c || in_extern_c(s),
               s->decl_template);
    s->qualifier = NULL;
}

/* One step at the current token; false where it is not one the scanner reads. */
static bool scan_token(scanner *s)
{
    token *t = &s->tok[0];
    if (tok_is(t, "extern") && s->tok[1].kind == TOK_STRING && strncmp(s->tok[1].text, "\"C\"", 3) == 0)
        scan_extern_c(s);
    else if (tok_is(t, "namespace"))
        scan_namespace(s);
    else if (tok_is(t, "template")) {
        s->decl_template = true;
        advance(s);
        if (tok_is(&s->tok[0], "<"))
            skip_balanced(s, "<", ">");
    } else if (tok_is(t, "class") || tok_is(t, "struct") || tok_is(t, "union") || tok_is(t, "enum"))
        scan_class_head(s);
    else if (tok_is(t, "="))
        skip_initializer(s);
    else if (t->kind == TOK_IDENT && s->tok[1].kind == TOK_SCOPE && s->tok[2].kind == TOK_IDENT)
        scan_qualified_name(s);
    else if (t->kind == TOK_IDENT && tok_is(&s->tok[1], "("))
        scan_function(s);
    else
        return false;
    return true;
}

void udfkit_cxx_scan(const char *text, udfkit_cxx_defs *out)
{
    scanner *s = calloc(1, sizeof *s);
    if (!s)
        return;
    s->lx = (lexer){text, 1, true};
    s->out = out;
    for (int i = 0; i < 4; i++)
        s->tok[i] = next_token(&s->lx);

    while (s->tok[0].kind != TOK_END) {
        token *t = &s->tok[0];
        bool opaque = in_opaque(s);
        if (tok_is(t, "{") || tok_is(t, "}")) {
            if (tok_is(t, "{"))
                push(s, NULL, 0, false, true);
            else
                pop(s);
            advance(s);
            s->decl_extern_c = s->decl_template = false;
        } else if (opaque) {
            advance(s);
        } else if (tok_is(t, ";")) {
            s->decl_extern_c = s->decl_template = false;
            s->qualifier = NULL;
            advance(s);
        } else if (!scan_token(s)) {
            advance(s);
        }
    }
    while (s->depth)
        pop(s);
    free(s);
}

void udfkit_cxx_defs_free(udfkit_cxx_defs *defs)
{
    for (size_t i = 0; i < defs->count; i++)
        free(defs->items[i].qualified);
    free(defs->items);
    defs->items = NULL;
    defs->count = 0;
}

char *udfkit_cxx_base_name(const char *source_name)
{
    const char *p = source_name;
    while (isspace((unsigned char)*p))
        p++;
    if (p[0] == ':' && p[1] == ':')
        p += 2;
    udfkit_buf b = UDFKIT_BUF_INIT;
    int depth = 0;
    for (; *p; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>')
            depth--;
        else if (depth == 0 && !isspace((unsigned char)*p))
            udfkit_buf_append(&b, p, 1);
    }
    return udfkit_buf_detach(&b);
}

size_t udfkit_cxx_find(const udfkit_cxx_defs *defs, const char *qualified, size_t nparams, const udfkit_cxx_def **first)
{
    size_t count = 0;
    *first = NULL;
    for (size_t i = 0; i < defs->count; i++) {
        if (strcmp(defs->items[i].qualified, qualified) != 0)
            continue;
        if (!*first || (defs->items[i].nparams == nparams && (*first)->nparams != nparams))
            *first = &defs->items[i];
        count++;
    }
    return count;
}
