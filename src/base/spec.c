#include "base/spec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const cuda_c_names[] = {
#include "base/reserved_names.inc"
};

/* C and C++ keywords: an exported name must be usable from both languages' headers. */
static const char *const keywords[] = {
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "char16_t",
    "char32_t", "char8_t", "class", "const", "consteval", "constexpr", "constinit", "const_cast",
    "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
    "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int",
    "long", "mutable", "namespace", "new", "noexcept", "not", "nullptr", "operator", "or", "private",
    "protected", "public", "register", "reinterpret_cast", "restrict", "return", "short", "signed",
    "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
    "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned",
    "using", "virtual", "void", "volatile", "wchar_t", "while", "xor",
};

bool udfkit_is_c_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return false;
    return true;
}

const char *udfkit_c_name_reserved(const char *name)
{
    if (name[0] == '_' && (name[1] == '_' || isupper((unsigned char)name[1])))
        return "names beginning with '__' or '_' and a capital letter are reserved to the implementation";
    if (strncmp(name, "udfkit_", 7) == 0 || strncmp(name, "UDFKIT_", 7) == 0)
        return "the prefix udfkit_ is udfkit's own";
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (strcmp(name, keywords[i]) == 0)
            return "it is a C or C++ keyword";
    for (size_t i = 0; i < sizeof cuda_c_names / sizeof *cuda_c_names; i++)
        if (strcmp(name, cuda_c_names[i]) == 0)
            return "the CUDA headers already give this name C linkage; choose another c_name";
    return NULL;
}

/* The last ':' that is not one of a '::' pair nor inside brackets ("float32[:]"). */
static const char *find_signature_colon(const char *s)
{
    const char *found = NULL;
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if ((*p == ')' || *p == ']') && depth > 0)
            depth--;
        if (*p != ':' || depth > 0)
            continue;
        if (p[1] == ':') {
            p++;
            continue;
        }
        found = p;
    }
    return found;
}

static char *strip(const char *b, const char *e)
{
    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    return strndup(b, (size_t)(e - b));
}

/* "ops::clamp<int>" -> "clamp_int": a plausible C name to suggest. */
static char *suggest_c_name(const char *source_name)
{
    const char *p = source_name;
    for (const char *q = strstr(p, "::"); q; q = strstr(q + 2, "::"))
        if (!memchr(p, '<', (size_t)(q - p)))
            p = q + 2;
    char *out = malloc(strlen(p) + 2);
    size_t n = 0;
    for (; *p; p++) {
        if (isalnum((unsigned char)*p))
            out[n++] = *p;
        else if (n && out[n - 1] != '_')
            out[n++] = '_';
    }
    while (n && out[n - 1] == '_')
        n--;
    out[n] = '\0';
    if (!n || isdigit((unsigned char)out[0])) {
        memmove(out + 1, out, n + 1);
        out[0] = 'f';
    }
    return out;
}

static udfkit_rc parse(const char *text, udfkit_spec *out)
{
    out->text = strdup(text);
    const char *colon = find_signature_colon(text);
    if (!colon)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                           "function spec '%s' has no signature: write [c_name=]source_name[@file]:ret(args)", text);
    char why[512];
    if (!udfkit_signature_parse(colon + 1, &out->sig, why, sizeof why))
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': %s", text, why);

    const char *head = text, *head_end = colon;
    /* c_name= is present where the text before the first '=' is an identifier. */
    const char *eq = memchr(head, '=', (size_t)(head_end - head));
    if (eq) {
        out->c_name = strip(head, eq);
        head = eq + 1;
        if (!udfkit_is_c_identifier(out->c_name))
            return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': c_name '%s' is not a C identifier",
                               text, out->c_name);
    }
    const char *at = NULL;
    for (const char *p = head; p < head_end; p++)
        if (*p == '@')
            at = p;
    if (at) {
        out->file = strip(at + 1, head_end);
        if (!*out->file)
            return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': '@' names no file", text);
        head_end = at;
    }
    out->source_name = strip(head, head_end);
    if (!*out->source_name)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s' names no function", text);
    for (const char *p = out->source_name; *p; p++)
        if (*p == ';' || *p == '{' || *p == '}' || *p == '"' || *p == '\'' || *p == '\\' || *p == '#' ||
            *p == '/' || *p == '\n')
            return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                               "function spec '%s': '%s' is not a function name", text, out->source_name);
    if (!out->c_name) {
        if (!udfkit_is_c_identifier(out->source_name)) {
            char *suggestion = suggest_c_name(out->source_name);
            udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                        "function spec '%s': '%s' is not a C identifier, so it needs a c_name (e.g. %s=%s:...)", text,
                        out->source_name, suggestion, out->source_name);
            free(suggestion);
            return UDFKIT_RC_INPUT;
        }
        out->c_name = strdup(out->source_name);
    }
    const char *reserved = udfkit_c_name_reserved(out->c_name);
    if (reserved)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': c_name '%s' cannot be used: %s", text,
                           out->c_name, reserved);
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_spec_parse(const char *text, udfkit_spec *out)
{
    memset(out, 0, sizeof *out);
    udfkit_rc rc = parse(text, out);
    if (rc)
        udfkit_spec_free(out); /* nothing is left to free after a failure */
    return rc;
}

udfkit_rc udfkit_specs_check_unique(const udfkit_spec *specs, size_t count)
{
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(specs[i].c_name, specs[j].c_name) == 0)
                return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                                   "c_name '%s' is exported twice ('%s' and '%s'); each c_name must be unique",
                                   specs[i].c_name, specs[j].text, specs[i].text);
    return UDFKIT_RC_OK;
}

void udfkit_spec_free(udfkit_spec *s)
{
    free(s->text);
    free(s->c_name);
    free(s->source_name);
    free(s->file);
    memset(s, 0, sizeof *s);
}
