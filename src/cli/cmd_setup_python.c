/* udfkit setup-python: makes the install's own Python environment, <prefix>/libexec/udfkit/python
 * (base/locate.h), a virtual environment with requirements.txt's pins (installed with the
 * tool as <prefix>/share/udfkit/requirements.txt): the Python frontends, and the CUDA 13.0
 * wheels the tool then loads NVRTC, nvJitLink and nvFatbin from. Idempotent: an environment
 * that holds these pins already is left as it is. pip's own settings (PIP_INDEX_URL,
 * PIP_FIND_LINKS, PIP_NO_INDEX) say where the wheels come from. */
#include "base/buf.h"
#include "base/fs.h"
#include "base/locate.h"
#include "base/subprocess.h"
#include "commands.h"
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STAMP "udfkit-requirements.txt" /* the pins the environment holds, written last */

/* Runs a step with the user's terminal, saying what it runs; UDFKIT_RC_ENV where it fails. */
static udfkit_rc step(char *const argv[], const char *what, const char *fix)
{
    udfkit_buf shown = UDFKIT_BUF_INIT;
    for (size_t i = 0; argv[i]; i++)
        udfkit_buf_printf(&shown, "%s%s", i ? " " : "", argv[i]);
    printf("udfkit setup-python: %s: %s\n", what, shown.data);
    fflush(stdout);
    int status = 0;
    udfkit_rc rc = udfkit_run_program_attached(argv, &status);
    if (!rc && status != 0)
        rc = udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "%s failed (exit %d): %s", shown.data, status, fix);
    udfkit_buf_free(&shown);
    return rc;
}

/* The environment's folder and the requirements file to install, or a usage error. */
static int where(const char *given, char **dir, char **requirements)
{
    const char *built = udfkit_locate_build_value("requirements");
    if (built && !given) {
        fprintf(stderr,
                "udfkit: error: this udfkit runs from its build tree, where its Python is CMake's (%s); "
                "setup-python makes an installed udfkit's environment (or one in --dir DIR)\n",
                udfkit_locate_build_value("python"));
        return UDFKIT_RC_USAGE;
    }
    *dir = given ? udfkit_path_absolute(given) : udfkit_locate_install_python_env();
    *requirements = built ? strdup(built) : udfkit_locate_install_path(UDFKIT_DATA_FROM_BINDIR "/requirements.txt");
    if (!*dir || !*requirements)
        return udfkit_cli_report(udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "cannot tell where udfkit is installed"));
    return 0;
}

/* The stamp is read with stdio, not as an input: it is this command's output. */
static bool up_to_date(const char *dir, const udfkit_buf *pins)
{
    char *python = udfkit_path_join(dir, "bin/python"), *stamp = udfkit_path_join(dir, STAMP);
    udfkit_buf held = UDFKIT_BUF_INIT;
    FILE *f = fopen(stamp, "rb");
    bool found = f != NULL;
    char chunk[4096];
    size_t n;
    while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        udfkit_buf_append(&held, chunk, n);
    if (f)
        fclose(f);
    bool same = found && access(python, X_OK) == 0 && held.size == pins->size &&
                (pins->size == 0 || memcmp(held.data, pins->data, pins->size) == 0);
    udfkit_buf_free(&held);
    free(stamp);
    free(python);
    return same;
}

static udfkit_rc write_stamp(const char *dir, const udfkit_buf *pins)
{
    char *stamp = udfkit_path_join(dir, STAMP);
    udfkit_outputs *o = udfkit_outputs_new();
    udfkit_rc rc = udfkit_outputs_write(o, stamp, pins->data, pins->size);
    if (!rc)
        rc = udfkit_outputs_commit(o);
    udfkit_outputs_free(o);
    free(stamp);
    return rc;
}

static udfkit_rc install(const char *base, const char *dir, const char *requirements, const udfkit_buf *pins)
{
    char *python = udfkit_path_join(dir, "bin/python"), *parent = udfkit_path_dirname(dir);
    udfkit_rc rc = UDFKIT_RC_OK;
    if (access(python, X_OK) != 0) {
        if (!udfkit_make_dirs(parent) || access(parent, W_OK) != 0)
            rc = udfkit_fail(UDFKIT_RC_ENV, NULL, 0,
                             "cannot create %s: %s; run setup-python as a user who may write to the install, or "
                             "make the environment elsewhere (--dir DIR) and set UDFKIT_PYTHON=DIR/bin/python",
                             dir, strerror(errno ? errno : EACCES));
        char *venv[] = {(char *)base, "-m", "venv", (char *)dir, NULL};
        if (!rc)
            rc = step(venv, "creating the environment",
                      "Python's venv module is needed (Debian, Ubuntu: apt-get install python3-venv); or name "
                      "another interpreter with --python");
    }
    char *pip[] = {python, "-m", "pip", "install", "--disable-pip-version-check", "--no-deps", "-r",
                   (char *)requirements, NULL};
    if (!rc)
        rc = step(pip,
                  "installing udfkit's pinned Python frontends and CUDA 13.0 wheels (about 400 MB to download, "
                  "1.3 GB installed)",
                  "see pip's output above; PIP_INDEX_URL, PIP_FIND_LINKS and PIP_NO_INDEX say where wheels come from");
    char *check[] = {python, "-m", "pip", "check", "--disable-pip-version-check", NULL};
    if (!rc)
        rc = step(check, "checking the set", "the environment holds packages that do not fit udfkit's pins");
    if (!rc)
        rc = write_stamp(dir, pins);
    free(parent);
    free(python);
    return rc;
}

int udfkit_cmd_setup_python(int argc, char **argv)
{
    const char *base = NULL, *given = NULL;
    const udfkit_cli_option options[] = {
        {"--python", NULL, UDFKIT_OPT_VALUE, "PATH", "the interpreter that makes the environment (default: python3)",
         &base},
        {"--dir", NULL, UDFKIT_OPT_VALUE, "DIR",
         "make it in DIR instead of <prefix>/libexec/udfkit/python (then set UDFKIT_PYTHON=DIR/bin/python)", &given},
    };
    const udfkit_cli_command cmd = {
        "setup-python", "udfkit setup-python [--python PATH] [--dir DIR]",
        "Makes udfkit's own Python environment, <prefix>/libexec/udfkit/python, with its pinned Python frontends "
        "and CUDA 13.0 wheels (requirements.txt), where udfkit then finds them; does nothing where it holds them "
        "already.",
        options, sizeof options / sizeof *options, NULL};
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    char *dir = NULL, *requirements = NULL;
    if ((rc = where(given, &dir, &requirements)) != 0)
        return rc;
    udfkit_buf pins = UDFKIT_BUF_INIT;
    if ((rc = udfkit_read_file(requirements, &pins)) != 0) {
        udfkit_diag_clear();
        rc = udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "%s is missing: this install of udfkit is incomplete", requirements);
    } else if (up_to_date(dir, &pins)) {
        printf("udfkit setup-python: %s holds udfkit's pins already (%s); nothing to do\n", dir, requirements);
    } else {
        rc = install(base ? base : "python3", dir, requirements, &pins);
        if (!rc)
            printf("udfkit setup-python: done: %s/bin/python%s\n", dir,
                   given ? "; set UDFKIT_PYTHON to it for udfkit to use it" : "; `udfkit --version` lists what it found");
    }
    udfkit_buf_free(&pins);
    free(requirements);
    free(dir);
    return rc ? udfkit_cli_report(rc) : 0;
}
