#include "artifact/package_id.h"

#include <stdlib.h>
#include <string.h>

/* Ends the line at `line` and returns the next one, or NULL after the last. */
static char *cut_line(char *line)
{
    char *nl = strchr(line, '\n');
    if (!nl)
        return NULL;
    *nl = '\0';
    return nl + 1;
}

/* Decimal digits up to `stop` ('\0' or '.'), at most nine, so no overflow. */
static bool read_number(const char *s, char stop, const char **end, unsigned *out)
{
    size_t n = 0;
    *out = 0;
    while (s[n] >= '0' && s[n] <= '9' && n < 9)
        *out = *out * 10 + (unsigned)(s[n++] - '0');
    *end = s + n;
    return n > 0 && s[n] == stop;
}

/* After the word and its blank: "nvrtc 13.0". */
static bool read_producer(udfkit_package_id *id, char *rest)
{
    char *blank = strchr(rest, ' ');
    const char *dot, *end;
    if (id->producer || !blank || blank == rest)
        return false;
    *blank = '\0';
    id->producer = rest;
    return read_number(blank + 1, '.', &dot, &id->producer_major) &&
           read_number(dot + 1, '\0', &end, &id->producer_minor);
}

/* "function <c_name> <signature>": the c_name has no blank, the signature may have some. */
static bool read_function(udfkit_package_id *id, char *rest)
{
    char *blank = strchr(rest, ' ');
    if (!blank || blank == rest || !blank[1])
        return false;
    *blank = '\0';
    id->functions[id->nfunctions++] = (udfkit_package_id_function){rest, blank + 1};
    return true;
}

static bool starts(char *line, const char *word, char **rest)
{
    size_t n = strlen(word);
    if (strncmp(line, word, n) != 0)
        return false;
    *rest = line + n;
    return true;
}

/* One line after "udfkit-package N"; false where it is not as documented. */
static bool read_line(udfkit_package_id *id, char *line)
{
    char *rest;
    if (!*line)
        return false;
    if (starts(line, "producer ", &rest))
        return read_producer(id, rest);
    if (starts(line, "role ", &rest)) {
        id->link = strcmp(rest, "link") == 0;
        return id->link;
    }
    if (starts(line, "function ", &rest))
        return read_function(id, rest);
    if (starts(line, "bound-kernel ", &rest)) {
        if (!*rest || strchr(rest, ' '))
            return false;
        id->bound_kernels[id->nbound_kernels++] = rest;
        return true;
    }
    if (starts(line, "kernel-calls ", &rest)) {
        if (!*rest || *rest == ' ')
            return false;
        id->kernel_calls[id->nkernel_calls++] = rest;
        return true;
    }
    return true; /* a line of a later version */
}

udfkit_package_id_status udfkit_package_id_parse(const char *text, size_t size, udfkit_package_id *out)
{
    memset(out, 0, sizeof *out);
    if (!text || memchr(text, '\0', size))
        return UDFKIT_PACKAGE_ID_FOREIGN;
    size_t nlines = 1;
    for (size_t i = 0; i < size; i++)
        nlines += text[i] == '\n';
    char *s = malloc(size + 1);
    out->functions = calloc(nlines, sizeof *out->functions);
    out->bound_kernels = calloc(nlines, sizeof *out->bound_kernels);
    out->kernel_calls = calloc(nlines, sizeof *out->kernel_calls);
    udfkit_package_id_status status = UDFKIT_PACKAGE_ID_OK;
    if (!s || !out->functions || !out->bound_kernels || !out->kernel_calls) {
        status = UDFKIT_PACKAGE_ID_NO_MEMORY;
        goto done;
    }
    memcpy(s, text, size);
    s[size] = '\0';
    out->storage_ = s;
    char *next = cut_line(s), *colon = strchr(s, ':'), *rest;
    if (!colon || colon == s) {
        status = UDFKIT_PACKAGE_ID_FOREIGN;
        goto done;
    }
    *colon = '\0';
    out->group = s;
    out->file = colon + 1;
    if (!next)
        goto done;
    char *line = next;
    next = cut_line(line);
    const char *end;
    if (!starts(line, "udfkit-package ", &rest)) {
        status = UDFKIT_PACKAGE_ID_FOREIGN;
        goto done;
    }
    if (!read_number(rest, '\0', &end, &out->version) || out->version == 0)
        status = UDFKIT_PACKAGE_ID_MALFORMED;
    for (line = next; line && !status; line = next) {
        next = cut_line(line);
        if (!read_line(out, line))
            status = UDFKIT_PACKAGE_ID_MALFORMED;
    }
done:
    if (status) {
        free(s);
        free(out->functions);
        free(out->bound_kernels);
        free(out->kernel_calls);
        memset(out, 0, sizeof *out);
    }
    return status;
}

void udfkit_package_id_free(udfkit_package_id *id)
{
    if (!id)
        return;
    free(id->storage_);
    free(id->functions);
    free(id->bound_kernels);
    free(id->kernel_calls);
    memset(id, 0, sizeof *id);
}

/* Non-empty, and none of `forbidden` in it. */
static bool field_ok(const char *s, const char *forbidden)
{
    return s && *s && !strpbrk(s, forbidden);
}

bool udfkit_package_id_format(const udfkit_package_id *id, udfkit_buf *out)
{
    if (!id->version || !field_ok(id->group, ":\n") || !field_ok(id->file, "\n") ||
        (id->producer && !field_ok(id->producer, " \n")))
        return false;
    for (size_t i = 0; i < id->nfunctions; i++)
        if (!field_ok(id->functions[i].c_name, " \n") || !field_ok(id->functions[i].signature, "\n"))
            return false;
    for (size_t i = 0; i < id->nbound_kernels; i++)
        if (!field_ok(id->bound_kernels[i], " \n"))
            return false;
    for (size_t i = 0; i < id->nkernel_calls; i++)
        if (!field_ok(id->kernel_calls[i], "\n") || id->kernel_calls[i][0] == ' ')
            return false;
    bool ok = udfkit_buf_printf(out, "%s:%s\nudfkit-package %u", id->group, id->file, id->version);
    if (id->producer)
        ok &= udfkit_buf_printf(out, "\nproducer %s %u.%u", id->producer, id->producer_major, id->producer_minor);
    if (id->link)
        ok &= udfkit_buf_puts(out, "\nrole link");
    for (size_t i = 0; i < id->nfunctions; i++)
        ok &= udfkit_buf_printf(out, "\nfunction %s %s", id->functions[i].c_name, id->functions[i].signature);
    for (size_t i = 0; i < id->nbound_kernels; i++)
        ok &= udfkit_buf_printf(out, "\nbound-kernel %s", id->bound_kernels[i]);
    for (size_t i = 0; i < id->nkernel_calls; i++)
        ok &= udfkit_buf_printf(out, "\nkernel-calls %s", id->kernel_calls[i]);
    return ok;
}
