#include "base/arch.h"

#include "base/gpu_probe.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static udfkit_rc add_target(udfkit_target_list *out, udfkit_target t)
{
    for (size_t i = 0; i < out->count; i++)
        if (out->items[i].number == t.number && out->items[i].suffix == t.suffix && out->items[i].sass == t.sass)
            return UDFKIT_RC_OK;
    if (out->count == sizeof out->items / sizeof *out->items)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "too many architectures");
    out->items[out->count++] = t;
    return UDFKIT_RC_OK;
}

static bool is_supported(unsigned number, const int *supported, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned)supported[i] == number)
            return true;
    return false;
}

static void list_supported(const int *supported, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%d", i ? " " : "", supported[i]);
}

/* all: every real architecture plus PTX for the highest; all-major: the same over x0 ones. */
static udfkit_rc add_all(udfkit_target_list *out, const int *supported, size_t n, bool major_only)
{
    unsigned highest = 0;
    for (size_t i = 0; i < n; i++) {
        if (major_only && supported[i] % 10 != 0)
            continue;
        udfkit_rc rc = add_target(out, (udfkit_target){(unsigned)supported[i], '\0', true});
        if (rc)
            return rc;
        if ((unsigned)supported[i] > highest)
            highest = (unsigned)supported[i];
    }
    return highest ? add_target(out, (udfkit_target){highest, '\0', false}) : UDFKIT_RC_OK;
}

static udfkit_rc parse_item(const char *item, const int *supported, size_t n, udfkit_target_list *out)
{
    if (strcmp(item, "all") == 0 || strcmp(item, "all-major") == 0)
        return add_all(out, supported, n, strcmp(item, "all-major") == 0);
    if (strcmp(item, "native") == 0) {
        int major = 0, minor = 0;
        char why[256];
        if (!udfkit_gpu_probe_capability(&major, &minor, why, sizeof why))
            return udfkit_fail(UDFKIT_RC_ENV, NULL, 0,
                               "architecture 'native' needs a visible GPU, and none was found (%s); "
                               "name the architectures instead, e.g. --arch 80-real;90",
                               why);
        unsigned number = (unsigned)(major * 10 + minor);
        udfkit_rc rc = add_target(out, (udfkit_target){number, '\0', true});
        return rc ? rc : add_target(out, (udfkit_target){number, '\0', false});
    }
    const char *p = item;
    unsigned number = 0;
    if (!isdigit((unsigned char)*p))
        goto bad;
    while (isdigit((unsigned char)*p)) {
        number = number * 10 + (unsigned)(*p - '0');
        if (number > 10000)
            goto bad;
        p++;
    }
    char suffix = '\0';
    if (*p == 'a' || *p == 'f')
        suffix = *p++;
    bool sass = true, ptx = true;
    if (strcmp(p, "-real") == 0)
        ptx = false;
    else if (strcmp(p, "-virtual") == 0)
        sass = false;
    else if (*p)
        goto bad;
    if (!is_supported(number, supported, n)) {
        char list[512];
        list_supported(supported, n, list, sizeof list);
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "architecture '%s' is not supported by this toolchain (supported: %s)",
                           item, list);
    }
    if (suffix && number < 90)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                           "architecture '%s': the 'a' and 'f' suffixes exist from architecture 90 on", item);
    if (suffix == 'f' && number < 100)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "architecture '%s': family targets ('f') exist from 100 on", item);
    udfkit_rc rc = UDFKIT_RC_OK;
    if (sass)
        rc = add_target(out, (udfkit_target){number, suffix, true});
    if (!rc && ptx)
        rc = add_target(out, (udfkit_target){number, suffix, false});
    return rc;
bad:
    return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                       "architecture '%s' is not of the form NN, NN-real, NN-virtual (NN optionally with a or f), "
                       "all, all-major or native",
                       item);
}

udfkit_rc udfkit_arch_parse(const char *text, const int *supported, size_t nsupported, udfkit_target_list *out)
{
    memset(out, 0, sizeof *out);
    char *copy = strdup(text);
    udfkit_rc rc = UDFKIT_RC_OK;
    char *save = NULL;
    for (char *item = strtok_r(copy, ";, ", &save); item && !rc; item = strtok_r(NULL, ";, ", &save))
        rc = parse_item(item, supported, nsupported, out);
    free(copy);
    if (!rc && out->count == 0)
        rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "the architecture list '%s' names no architecture", text);
    return rc;
}

void udfkit_target_name(udfkit_target t, char *buf, size_t size)
{
    if (t.suffix)
        snprintf(buf, size, "%s_%u%c", t.sass ? "sm" : "compute", t.number, t.suffix);
    else
        snprintf(buf, size, "%s_%u", t.sass ? "sm" : "compute", t.number);
}

void udfkit_target_number(udfkit_target t, char *buf, size_t size)
{
    if (t.suffix)
        snprintf(buf, size, "%u%c", t.number, t.suffix);
    else
        snprintf(buf, size, "%u", t.number);
}

bool udfkit_target_parse_name(const char *name, udfkit_target *out)
{
    const char *p;
    bool sass;
    if (strncmp(name, "sm_", 3) == 0) {
        p = name + 3;
        sass = true;
    } else if (strncmp(name, "compute_", 8) == 0) {
        p = name + 8;
        sass = false;
    } else if (strncmp(name, "lto_", 4) == 0) {
        p = name + 4;
        sass = false;
    } else {
        return false;
    }
    if (!isdigit((unsigned char)*p))
        return false;
    unsigned number = 0;
    while (isdigit((unsigned char)*p))
        number = number * 10 + (unsigned)(*p++ - '0');
    char suffix = '\0';
    if (*p == 'a' || *p == 'f')
        suffix = *p++;
    if (*p)
        return false;
    *out = (udfkit_target){number, suffix, sass};
    return true;
}

static int compare_targets(const void *a, const void *b)
{
    const udfkit_target *x = a, *y = b;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    return x->suffix - y->suffix;
}

size_t udfkit_targets_virtual(const udfkit_target_list *list, udfkit_target *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < list->count; i++) {
        udfkit_target v = {list->items[i].number, list->items[i].suffix, false};
        bool seen = false;
        for (size_t j = 0; j < n; j++)
            seen |= out[j].number == v.number && out[j].suffix == v.suffix;
        if (!seen && n < max)
            out[n++] = v;
    }
    qsort(out, n, sizeof *out, compare_targets);
    return n;
}

bool udfkit_target_accepts(udfkit_target target, udfkit_target code)
{
    if (code.suffix == 'a')
        return target.number == code.number && target.suffix == 'a';
    if (code.suffix == 'f')
        return target.number / 10 == code.number / 10 && target.number >= code.number && target.suffix != '\0';
    return code.number <= target.number;
}
