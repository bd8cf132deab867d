/* udfkit doctor: what --version lists, and what a project's build needs beyond it: its
 * Python frontends imported (not only installed), its architectures, a writable cache and
 * each remote cache answering. */
#include "base/gpu_probe.h"
#include "base/locate.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "commands.h"
#include "frontend/python_compile.h"
#include "options.h"
#include "parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Per frontend, one line "<name>\t<version or ->\t<ok, or why not>": installed, at least
 * udfkit's minimum, and importable. */
static const char frontends_script[] =
    "import importlib.metadata as m, sys\n"
    "minimum = {'numba-cuda': (0, 30, 1), 'numba-cuda-mlir': (0, 6, 0)}\n"
    "module = {'numba-cuda': 'numba.cuda', 'numba-cuda-mlir': 'numba_cuda_mlir.cuda'}\n"
    "for name in minimum:\n"
    "    try:\n        v = m.version(name)\n    except Exception:\n"
    "        print(name + '\\t-\\tnot installed')\n        continue\n"
    "    if tuple(int(x) for x in v.split('.')[:3] if x.isdigit()) < minimum[name]:\n"
    "        print(name + '\\t' + v + '\\tolder than ' + '.'.join(map(str, minimum[name])))\n        continue\n"
    "    try:\n        __import__(module[name])\n"
    "    except Exception as e:\n"
    "        print(name + '\\t' + v + '\\tcannot be imported: ' + type(e).__name__ + ': ' + str(e).splitlines()[0])\n"
    "        continue\n"
    "    print(name + '\\t' + v + '\\tok')\n";

/* The frontends of `python`; the one `frontend` asks (auto: either) is required. */
static void check_frontends(const char *python, const char *frontend, udfkit_parts *p)
{
    udfkit_buf out = UDFKIT_BUF_INIT;
    bool ran = udfkit_parts_run_python(python, frontends_script, NULL, &out);
    bool usable = false;
    char *save = NULL;
    for (char *line = ran ? strtok_r(out.data, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        char *version = strchr(line, '\t'), *status = version ? strchr(version + 1, '\t') : NULL;
        if (!status)
            continue;
        *version++ = '\0';
        *status++ = '\0';
        bool ok = strcmp(status, "ok") == 0;
        usable = usable || (ok && (strcmp(frontend, "auto") == 0 || strcmp(frontend, line) == 0));
        printf("%-19s%s%s\n", line, ok ? version : "", ok ? ": imports" : status);
    }
    /* Where --version's row says it is missing already, once is enough. */
    bool said = p->names.data && strstr(p->names.data, "Python frontend");
    if (!usable && said) {
        udfkit_parts_missing(p, "Python frontend");
    } else if (!usable) {
        printf("%-19smissing: %s has no usable %s; run `udfkit setup-python`, or install udfkit's pins into it: "
               "%s -m pip install --no-deps %s\n",
               "Python frontend", python, strcmp(frontend, "auto") == 0 ? "numba-cuda or numba-cuda-mlir" : frontend,
               python, UDFKIT_PIP_PINS);
        udfkit_parts_missing(p, "Python frontend");
    }
    udfkit_buf_free(&out);
}

static void check_arch(const char *arch, udfkit_parts *p)
{
    udfkit_target_list targets;
    if (udfkit_toolchain_parse_archs(arch, &targets) == UDFKIT_RC_OK) {
        printf("%-19s%s:", "Architectures", arch);
        for (size_t i = 0; i < targets.count; i++) {
            char name[32];
            udfkit_target_name(targets.items[i], name, sizeof name);
            printf("%s %s", i ? "," : "", name);
        }
        printf(" (NVRTC supports each)\n");
    } else {
        const char *why = udfkit_diag_message();
        printf("%-19s%s: %s\n", "Architectures", arch, strncmp(why, "udfkit: error: ", 15) == 0 ? why + 15 : why);
        udfkit_diag_clear();
        udfkit_parts_missing(p, "architectures");
    }
}

static void check_caches(udfkit_parts *p)
{
    char *dir = udfkit_cache_directory();
    bool made = dir && udfkit_make_dirs(dir);
    printf("%-19s%s: %s\n", "Cache", dir ? dir : "(none)",
           made && access(dir, W_OK) == 0 ? "writable" : "not writable (results are not cached)");
    free(dir);
    udfkit_remote_probe *remotes;
    size_t n = udfkit_remote_probe_all(&remotes);
    for (size_t i = 0; i < n; i++) {
        if (remotes[i].reachable) {
            printf("%-19s%s: reachable (%.1f ms)\n", "Remote cache", remotes[i].url, remotes[i].ms);
            continue;
        }
        printf("%-19s%s: unreachable (%s); builds go on without it, with a warning\n", "Remote cache", remotes[i].url,
               remotes[i].why ? remotes[i].why : "no reason given");
        udfkit_parts_missing(p, "a remote cache");
    }
    udfkit_remote_probe_free(remotes, n);
}

int udfkit_cmd_doctor(int argc, char **argv)
{
    const char *python = NULL, *frontend = NULL, *arch = NULL;
    const udfkit_cli_option options[] = {
        {"--python", NULL, UDFKIT_OPT_VALUE, "PATH", "the project's interpreter for Python UDFs (CMake: UDFKIT_PYTHON)",
         &python},
        {"--python-frontend", NULL, UDFKIT_OPT_VALUE, "NAME",
         "the project's Python frontend: numba-cuda, numba-cuda-mlir or auto (default)", &frontend},
        {"--arch", NULL, UDFKIT_OPT_VALUE, "LIST", "the project's architectures, checked against NVRTC", &arch},
    };
    const udfkit_cli_command cmd = {
        "doctor", "udfkit doctor [--python PATH] [--python-frontend NAME] [--arch LIST]",
        "Checks what a project's build needs: every part --version lists, the Python frontends imported, the "
        "architectures, the cache, and each remote cache in UDFKIT_REMOTE_CACHE answering. Exit 3 where "
        "something is missing or unreachable.",
        options, sizeof options / sizeof *options, NULL};
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    if (frontend && !udfkit_python_frontend_known(frontend))
        return udfkit_cli_usage_error(&cmd, "--python-frontend %s: numba-cuda, numba-cuda-mlir or auto", frontend);
    udfkit_parts parts;
    udfkit_parts_list(python, udfkit_verbose(), &parts);
    check_frontends(python ? python : udfkit_python_interpreter(NULL), udfkit_python_frontend(frontend), &parts);
    if (arch)
        check_arch(arch, &parts);
    check_caches(&parts);
    int major = 0, minor = 0;
    char why[256] = "";
    if (udfkit_gpu_probe_capability(&major, &minor, why, sizeof why))
        printf("%-19scompute capability %d.%d (the programs built can run here)\n", "GPU", major, minor);
    else
        printf("%-19snone usable here (%s): not needed to build; programs say so when they run\n", "GPU", why);
    rc = parts.missing ? UDFKIT_RC_ENV : UDFKIT_RC_OK;
    if (parts.missing)
        fprintf(stderr, "udfkit: error: missing or unreachable: %s (see each line for how to fix it)\n",
                parts.names.data);
    udfkit_parts_free(&parts);
    return rc;
}
