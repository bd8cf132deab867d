/* Files: reading inputs, paths, and outputs that appear atomically or not at all. */
#ifndef UDFKIT_FS_H
#define UDFKIT_FS_H

#include "base/buf.h"
#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>

/* The largest input udfkit reads. */
#define UDFKIT_MAX_INPUT_SIZE (1ull << 30)

/* Reads a whole regular file of at most UDFKIT_MAX_INPUT_SIZE bytes; anything else (a
 * missing or unreadable file, a directory, FIFO or device) is an input error naming it.
 * The file is remembered as an input of this process: no output replaces or removes it. */
udfkit_rc udfkit_read_file(const char *path, udfkit_buf *out);
bool udfkit_file_exists(const char *path);
/* mkdir -p; whether the directory exists afterwards. */
bool udfkit_make_dirs(const char *dir);

/* Path helpers; all return malloc'd strings. */
char *udfkit_path_dirname(const char *path);
const char *udfkit_path_basename(const char *path);
char *udfkit_path_join(const char *dir, const char *name);
/* `path` written relative to directory `base` (both made absolute first). */
char *udfkit_path_relative(const char *path, const char *base);
char *udfkit_path_absolute(const char *path);
/* The file name without its directory and last extension ("a/b.x.cu" -> "b.x"). */
char *udfkit_path_stem(const char *path);
const char *udfkit_path_extension(const char *path); /* ".cu", or "" */
/* Whether a relative path stays inside the directory it is relative to, as written: not
 * absolute, not empty, and no ".." that climbs above its start. */
bool udfkit_path_stays_inside(const char *rel);
/* Whether `path`, resolved with its symbolic links, is inside directory `dir` (also
 * resolved); false where either cannot be resolved. */
bool udfkit_path_resolves_inside(const char *path, const char *dir);
/* Whether a function spec's "@file" names `source`: the same path, or a path ending in
 * "/<file>" ("@blend.cu", "@one/udfs.py"). */
bool udfkit_source_matches(const char *file, const char *source);

/* Removes an output that a later step failed for: a regular file or a link, never a FIFO
 * or device (-o /dev/null) or anything this process read as an input. */
void udfkit_remove_output(const char *path);

/* A set of outputs written beside their final names and renamed into place together.
 * Until commit nothing is visible; abort (or a failed commit) removes every file,
 * including an older version of an output, and the directories made for them, so a
 * failure leaves no output behind.
 *
 * Outputs never touch inputs: an output that is an input of the command (declared with
 * udfkit_outputs_input, or read through udfkit_read_file), the same file by device and
 * inode whatever its name, is refused (UDFKIT_RC_USAGE) and left as it is. An output that
 * already exists as a FIFO or a device (-o /dev/null) is written through at commit, as a
 * shell redirection would, and never replaced or removed. */
typedef struct udfkit_outputs udfkit_outputs;

udfkit_outputs *udfkit_outputs_new(void);
/* Declares an output before it is written, so that a failure before then still removes
 * an older version of it. */
udfkit_rc udfkit_outputs_claim(udfkit_outputs *o, const char *path);
/* Declares an input of the command; refused where a claimed output is that file. Call
 * after claiming the outputs, before the work, so a mistake costs nothing. */
udfkit_rc udfkit_outputs_input(udfkit_outputs *o, const char *path);
udfkit_rc udfkit_outputs_inputs(udfkit_outputs *o, const char *const *paths, size_t count);
udfkit_rc udfkit_outputs_write(udfkit_outputs *o, const char *path, const void *data, size_t size);
udfkit_rc udfkit_outputs_commit(udfkit_outputs *o);
/* Whether an output whose bytes did not change gets a new time stamp all the same (for
 * build tools that do not re-check outputs, as Ninja's restat does: Make). Default false:
 * it keeps its file and time stamp. */
void udfkit_outputs_touch_unchanged(bool touch);
void udfkit_outputs_abort(udfkit_outputs *o);
void udfkit_outputs_free(udfkit_outputs *o); /* aborts what was not committed */

#endif
