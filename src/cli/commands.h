/* One function per subcommand; argv starts after the command's name. */
#ifndef UDFKIT_CLI_COMMANDS_H
#define UDFKIT_CLI_COMMANDS_H

int udfkit_cmd_cache(int argc, char **argv);
int udfkit_cmd_compile(int argc, char **argv);
int udfkit_cmd_link(int argc, char **argv);
int udfkit_cmd_merge(int argc, char **argv);
int udfkit_cmd_pack(int argc, char **argv);
int udfkit_cmd_header(int argc, char **argv);
int udfkit_cmd_embed(int argc, char **argv);
int udfkit_cmd_inspect(int argc, char **argv);
int udfkit_cmd_kernels(int argc, char **argv);
int udfkit_cmd_version(int argc, char **argv);
int udfkit_cmd_doctor(int argc, char **argv);
int udfkit_cmd_setup_python(int argc, char **argv);

#endif
