#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every regular file this process has read as an input, by device and inode: no output
 * may replace or remove one of them, whatever name it is given. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
} file_id;

static struct {
    pthread_mutex_t lock;
    file_id *ids;
    size_t count, cap;
} inputs_read = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

static void remember_input(const struct stat *st)
{
    pthread_mutex_lock(&inputs_read.lock);
    bool known = false;
    for (size_t i = 0; i < inputs_read.count && !known; i++)
        known = inputs_read.ids[i].dev == st->st_dev && inputs_read.ids[i].ino == st->st_ino;
    if (!known && inputs_read.count == inputs_read.cap) {
        size_t cap = inputs_read.cap ? 2 * inputs_read.cap : 64;
        file_id *ids = realloc(inputs_read.ids, cap * sizeof *ids);
        if (ids) {
            inputs_read.ids = ids;
            inputs_read.cap = cap;
        }
    }
    if (!known && inputs_read.count < inputs_read.cap)
        inputs_read.ids[inputs_read.count++] = (file_id){st->st_dev, st->st_ino};
    pthread_mutex_unlock(&inputs_read.lock);
}

static bool was_read(const struct stat *st)
{
    pthread_mutex_lock(&inputs_read.lock);
    bool known = false;
    for (size_t i = 0; i < inputs_read.count && !known; i++)
        known = inputs_read.ids[i].dev == st->st_dev && inputs_read.ids[i].ino == st->st_ino;
    pthread_mutex_unlock(&inputs_read.lock);
    return known;
}

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
         : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

static udfkit_rc read_regular(const char *path, udfkit_buf *out, bool remember)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return udfkit_fail(UDFKIT_RC_INPUT, path, 0, "cannot read: %s", strerror(errno));
    struct stat st;
    udfkit_rc rc = UDFKIT_RC_OK;
    if (fstat(fd, &st) != 0)
        rc = udfkit_fail(UDFKIT_RC_INPUT, path, 0, "cannot read: %s", strerror(errno));
    else if (S_ISDIR(st.st_mode))
        rc = udfkit_fail(UDFKIT_RC_INPUT, path, 0, "is a directory, not a file");
    else if (!S_ISREG(st.st_mode))
        rc = udfkit_fail(UDFKIT_RC_INPUT, path, 0, "is %s; udfkit reads only regular files", file_kind(st.st_mode));
    else if ((uint64_t)st.st_size > UDFKIT_MAX_INPUT_SIZE)
        rc = udfkit_fail(UDFKIT_RC_INPUT, path, 0, "is %.1f GiB; udfkit reads files of at most %d GiB",
                         (double)st.st_size / (1 << 30), (int)(UDFKIT_MAX_INPUT_SIZE >> 30));
    if (rc) {
        close(fd);
        return rc;
    }
    if (remember)
        remember_input(&st);
    out->size = 0;
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, path, 0, "read failed: %s", strerror(errno));
            break;
        }
        /* A file that grows while it is read is still bounded. */
        if (out->size + (size_t)n > UDFKIT_MAX_INPUT_SIZE) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, path, 0, "grew past %d GiB while it was read",
                             (int)(UDFKIT_MAX_INPUT_SIZE >> 30));
            break;
        }
        if (!udfkit_buf_append(out, chunk, (size_t)n)) {
            rc = udfkit_fail(UDFKIT_RC_INTERNAL, path, 0, "out of memory");
            break;
        }
    }
    close(fd);
    if (!rc && !out->data)
        udfkit_buf_append(out, "", 0);
    return rc;
}

udfkit_rc udfkit_read_file(const char *path, udfkit_buf *out)
{
    return read_regular(path, out, true);
}

bool udfkit_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *udfkit_path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

const char *udfkit_path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *udfkit_path_join(const char *dir, const char *name)
{
    if (name[0] == '/' || !dir[0] || strcmp(dir, ".") == 0)
        return strdup(name);
    udfkit_buf b = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&b, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    return udfkit_buf_detach(&b);
}

char *udfkit_path_absolute(const char *path)
{
    char resolved[PATH_MAX];
    if (path[0] == '/')
        return strdup(path);
    if (!getcwd(resolved, sizeof resolved))
        return strdup(path);
    return udfkit_path_join(resolved, path);
}

/* Splits a normalized absolute path into components, dropping "." and folding "..". */
static size_t split_components(char *path, char **parts, size_t max)
{
    size_t n = 0;
    for (char *tok = strtok(path, "/"); tok; tok = strtok(NULL, "/")) {
        if (strcmp(tok, ".") == 0)
            continue;
        if (strcmp(tok, "..") == 0) {
            if (n)
                n--;
            continue;
        }
        if (n < max)
            parts[n++] = tok;
    }
    return n;
}

char *udfkit_path_relative(const char *path, const char *base)
{
    char *p = udfkit_path_absolute(path), *b = udfkit_path_absolute(base);
    char *pp[256], *bp[256];
    size_t np = split_components(p, pp, 256), nb = split_components(b, bp, 256);
    size_t common = 0;
    while (common < np && common < nb && strcmp(pp[common], bp[common]) == 0)
        common++;
    udfkit_buf out = UDFKIT_BUF_INIT;
    for (size_t i = common; i < nb; i++)
        udfkit_buf_puts(&out, "../");
    for (size_t i = common; i < np; i++)
        udfkit_buf_printf(&out, "%s%s", pp[i], i + 1 < np ? "/" : "");
    if (out.size == 0)
        udfkit_buf_puts(&out, ".");
    free(p);
    free(b);
    return udfkit_buf_detach(&out);
}

char *udfkit_path_stem(const char *path)
{
    const char *base = udfkit_path_basename(path);
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? strndup(base, (size_t)(dot - base)) : strdup(base);
}

const char *udfkit_path_extension(const char *path)
{
    const char *base = udfkit_path_basename(path);
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot : "";
}

bool udfkit_path_stays_inside(const char *rel)
{
    if (!rel || !*rel || rel[0] == '/')
        return false;
    long depth = 0;
    for (const char *p = rel; *p;) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.')
            depth--;
        else if (len && !(len == 1 && p[0] == '.'))
            depth++;
        if (depth < 0)
            return false;
        p += len;
        while (*p == '/')
            p++;
    }
    return true;
}

bool udfkit_path_resolves_inside(const char *path, const char *dir)
{
    char *real = realpath(path, NULL), *real_dir = realpath(dir, NULL);
    size_t n = real_dir ? strlen(real_dir) : 0;
    bool inside = real && real_dir &&
                  (strcmp(real_dir, "/") == 0 || (strncmp(real, real_dir, n) == 0 && real[n] == '/'));
    free(real);
    free(real_dir);
    return inside;
}

bool udfkit_source_matches(const char *file, const char *source)
{
    char *a = udfkit_path_absolute(file), *b = udfkit_path_absolute(source);
    char *ra = udfkit_path_relative(a, "/"), *rb = udfkit_path_relative(b, "/");
    size_t lf = strlen(file), ls = strlen(source);
    bool same = strcmp(ra, rb) == 0 || (ls > lf && source[ls - lf - 1] == '/' && strcmp(source + ls - lf, file) == 0);
    free(a);
    free(b);
    free(ra);
    free(rb);
    return same;
}

typedef struct output {
    char *final;
    char *temp;
    bool through;   /* an existing FIFO or device: written into at commit, never replaced or removed */
    bool written;
    udfkit_buf data; /* a through output's bytes, until commit */
} output;

typedef struct named_input {
    file_id id;
    char *path;
} named_input;

struct udfkit_outputs {
    output *items;
    size_t count;
    named_input *inputs; /* declared with udfkit_outputs_input */
    size_t ninputs;
    char **made_dirs;    /* directories created for outputs, outermost first */
    size_t nmade;
    bool committed;
};

udfkit_outputs *udfkit_outputs_new(void)
{
    return calloc(1, sizeof(udfkit_outputs));
}

static udfkit_rc write_all(int fd, const char *path, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        ssize_t n = write(fd, p, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return udfkit_fail(UDFKIT_RC_ENV, path, 0, "cannot write: %s", strerror(errno));
        }
        p += n;
        size -= (size_t)n;
    }
    return UDFKIT_RC_OK;
}

static output *find_output(udfkit_outputs *o, const char *path)
{
    for (size_t i = 0; i < o->count; i++)
        if (strcmp(o->items[i].final, path) == 0)
            return &o->items[i];
    return NULL;
}

/* The input that `st` is, if it is one: declared, or read by this process (NULL path). */
static bool is_input(const udfkit_outputs *o, const struct stat *st, const char **name)
{
    *name = NULL;
    for (size_t i = 0; i < o->ninputs; i++)
        if (o->inputs[i].id.dev == st->st_dev && o->inputs[i].id.ino == st->st_ino) {
            *name = o->inputs[i].path;
            return true;
        }
    return was_read(st);
}

static udfkit_rc refuse_input(const char *path, const char *input)
{
    if (input && strcmp(input, path) != 0)
        return udfkit_fail(UDFKIT_RC_USAGE, path, 0,
                           "is the same file as the input %s; udfkit never writes over its inputs: name another "
                           "output",
                           input);
    return udfkit_fail(UDFKIT_RC_USAGE, path, 0,
                       "is an input of this command; udfkit never writes over its inputs: name another output");
}

void udfkit_remove_output(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
        return;
    if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || was_read(&st)))
        return;
    unlink(path);
}

udfkit_rc udfkit_outputs_claim(udfkit_outputs *o, const char *path)
{
    if (find_output(o, path))
        return UDFKIT_RC_OK;
    struct stat st;
    bool exists = stat(path, &st) == 0;
    const char *input;
    if (exists && S_ISDIR(st.st_mode))
        return udfkit_fail(UDFKIT_RC_USAGE, path, 0, "is a directory; name a file to write");
    if (exists && S_ISREG(st.st_mode) && is_input(o, &st, &input))
        return refuse_input(path, input);
    output *items = realloc(o->items, (o->count + 1) * sizeof *items);
    if (!items)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    o->items = items;
    o->items[o->count] = (output){.final = strdup(path), .through = exists && !S_ISREG(st.st_mode),
                                  .data = UDFKIT_BUF_INIT};
    o->count++;
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_outputs_input(udfkit_outputs *o, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return UDFKIT_RC_OK; /* reading it will say what is wrong */
    /* Known before the check, so that the abort after a refusal leaves it alone. */
    named_input *inputs = realloc(o->inputs, (o->ninputs + 1) * sizeof *inputs);
    if (!inputs)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    o->inputs = inputs;
    o->inputs[o->ninputs++] = (named_input){{st.st_dev, st.st_ino}, strdup(path)};
    for (size_t i = 0; i < o->count; i++) {
        struct stat out;
        if (stat(o->items[i].final, &out) == 0 && out.st_dev == st.st_dev && out.st_ino == st.st_ino)
            return refuse_input(o->items[i].final, path);
    }
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_outputs_inputs(udfkit_outputs *o, const char *const *paths, size_t count)
{
    udfkit_rc rc = UDFKIT_RC_OK;
    for (size_t i = 0; i < count && !rc; i++)
        rc = udfkit_outputs_input(o, paths[i]);
    return rc;
}

/* mkdir -p, remembering each directory it creates (recorded: non-NULL). */
static bool make_dirs(const char *dir, udfkit_outputs *recorded)
{
    char *copy = strdup(dir);
    bool ok = true;
    for (char *p = copy + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char end = *p;
        *p = '\0';
        if (mkdir(copy, 0777) == 0) {
            char **made = recorded ? realloc(recorded->made_dirs, (recorded->nmade + 1) * sizeof *made) : NULL;
            if (made) {
                recorded->made_dirs = made;
                made[recorded->nmade++] = strdup(copy);
            }
        } else if (end == '\0') {
            ok = errno == EEXIST;
        }
        *p = end;
        if (end == '\0')
            break;
    }
    free(copy);
    return ok;
}

bool udfkit_make_dirs(const char *dir)
{
    return make_dirs(dir, NULL);
}

udfkit_rc udfkit_outputs_write(udfkit_outputs *o, const char *path, const void *data, size_t size)
{
    output *existing = find_output(o, path);
    if (existing && existing->written)
        return udfkit_fail(UDFKIT_RC_USAGE, path, 0, "would be written twice by one command");
    if (!existing) {
        udfkit_rc rc = udfkit_outputs_claim(o, path);
        if (rc)
            return rc;
        existing = find_output(o, path);
    }
    if (existing->through) {
        existing->data.size = 0;
        if (!udfkit_buf_append(&existing->data, data, size))
            return udfkit_fail(UDFKIT_RC_INTERNAL, path, 0, "out of memory");
        existing->written = true;
        return UDFKIT_RC_OK;
    }
    char *dir = udfkit_path_dirname(path);
    make_dirs(dir, o); /* outputs may go to directories that do not exist yet */
    udfkit_buf temp = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&temp, "%s/.%s.udfkit-XXXXXX", dir, udfkit_path_basename(path));
    free(dir);
    int fd = mkstemp(temp.data);
    if (fd < 0) {
        udfkit_rc rc = udfkit_fail(UDFKIT_RC_ENV, path, 0, "cannot create output: %s", strerror(errno));
        udfkit_buf_free(&temp);
        return rc;
    }
    udfkit_rc rc = write_all(fd, path, data, size);
    /* mkstemp creates 0600; outputs get the usual umask-governed mode. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    if (close(fd) != 0 && rc == UDFKIT_RC_OK)
        rc = udfkit_fail(UDFKIT_RC_ENV, path, 0, "cannot write: %s", strerror(errno));
    if (rc != UDFKIT_RC_OK) {
        unlink(temp.data);
        udfkit_buf_free(&temp);
        return rc;
    }
    existing->temp = udfkit_buf_detach(&temp);
    existing->written = true;
    return UDFKIT_RC_OK;
}

static atomic_bool touch_unchanged;

void udfkit_outputs_touch_unchanged(bool touch)
{
    atomic_store(&touch_unchanged, touch);
}

static bool same_contents(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0 || sa.st_size != sb.st_size)
        return false;
    udfkit_buf x = UDFKIT_BUF_INIT, y = UDFKIT_BUF_INIT;
    bool same = read_regular(a, &x, false) == UDFKIT_RC_OK && read_regular(b, &y, false) == UDFKIT_RC_OK &&
                x.size == y.size && memcmp(x.data, y.data, x.size) == 0;
    udfkit_diag_clear();
    udfkit_buf_free(&x);
    udfkit_buf_free(&y);
    return same;
}

/* A FIFO or device named as an output gets the bytes as a shell redirection would. */
static udfkit_rc write_through(output *out)
{
    int fd = open(out->final, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return udfkit_fail(UDFKIT_RC_ENV, out->final, 0, "cannot write: %s", strerror(errno));
    udfkit_rc rc = write_all(fd, out->final, out->data.data, out->data.size);
    if (close(fd) != 0 && !rc)
        rc = udfkit_fail(UDFKIT_RC_ENV, out->final, 0, "cannot write: %s", strerror(errno));
    return rc;
}

/* Puts one output in place; an input found there now is refused, and left as it is. */
static udfkit_rc commit_one(udfkit_outputs *o, output *out)
{
    if (out->through)
        return out->written ? write_through(out) : UDFKIT_RC_OK;
    if (!out->temp)
        return UDFKIT_RC_OK;
    struct stat st;
    const char *input;
    if (stat(out->final, &st) == 0 && S_ISREG(st.st_mode) && is_input(o, &st, &input))
        return refuse_input(out->final, input);
    /* An output whose bytes did not change keeps its file and time stamp: build systems
     * that re-check outputs (Ninja's restat) then rebuild nothing after it. Make does not
     * re-check: there it gets a new time stamp, or its rule would run at every build. */
    if (same_contents(out->temp, out->final)) {
        unlink(out->temp);
        if (atomic_load(&touch_unchanged) && utimensat(AT_FDCWD, out->final, NULL, 0) != 0)
            return udfkit_fail(UDFKIT_RC_ENV, out->final, 0, "cannot update the time stamp: %s", strerror(errno));
    } else if (rename(out->temp, out->final) != 0) {
        return udfkit_fail(UDFKIT_RC_ENV, out->final, 0, "cannot write: %s", strerror(errno));
    }
    free(out->temp);
    out->temp = NULL;
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_outputs_commit(udfkit_outputs *o)
{
    /* The first output is the one build systems watch (the manifest), so it goes last:
     * once it is in place every artifact it names already is. */
    for (size_t k = 0; k < o->count; k++) {
        udfkit_rc rc = commit_one(o, &o->items[(k + 1) % o->count]);
        if (rc) {
            udfkit_outputs_abort(o);
            return rc;
        }
    }
    o->committed = true;
    return UDFKIT_RC_OK;
}

void udfkit_outputs_abort(udfkit_outputs *o)
{
    for (size_t i = 0; i < o->count; i++) {
        output *out = &o->items[i];
        if (out->temp) {
            unlink(out->temp);
            free(out->temp);
            out->temp = NULL;
        }
        /* An older output goes too; never a FIFO, a device or an input. */
        struct stat st;
        const char *input;
        if (!out->through && lstat(out->final, &st) == 0 && !S_ISDIR(st.st_mode) &&
            !(stat(out->final, &st) == 0 && S_ISREG(st.st_mode) && is_input(o, &st, &input)))
            unlink(out->final);
    }
    /* Directories made for the outputs go too, innermost first, where they are empty. */
    for (size_t i = o->nmade; i-- > 0;) {
        rmdir(o->made_dirs[i]);
        free(o->made_dirs[i]);
    }
    o->nmade = 0;
    o->committed = false;
}

void udfkit_outputs_free(udfkit_outputs *o)
{
    if (!o)
        return;
    if (!o->committed)
        udfkit_outputs_abort(o);
    for (size_t i = 0; i < o->count; i++) {
        free(o->items[i].final);
        free(o->items[i].temp);
        udfkit_buf_free(&o->items[i].data);
    }
    for (size_t i = 0; i < o->ninputs; i++)
        free(o->inputs[i].path);
    for (size_t i = 0; i < o->nmade; i++)
        free(o->made_dirs[i]);
    free(o->made_dirs);
    free(o->inputs);
    free(o->items);
    free(o);
}
