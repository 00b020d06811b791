/*
 * The remote_command argv template of machines.json, expanded for one
 * machine and one command: how the "command" transport (and the upstream
 * profiler) runs something on a host through rcc, ssh or any wrapper.
 */
#ifndef NETPROF_TEMPLATE_H
#define NETPROF_TEMPLATE_H

#include <stddef.h>

struct machine;

/*
 * Expand each of the n elements of tmpl into a new NULL-terminated argv.
 * Placeholders, anywhere inside an element and as often as they occur:
 *   {host}     the machine's rcc_host, else its ssh_host
 *   {name}     the machine's name
 *   {address}  the machine's address
 *   {command}  command, verbatim: it is already a shell command line and
 *              the template decides which shell reads it (e.g. the
 *              "bash -lc '...; {command}'" element of the upstream example)
 * Any other {word} is left as it is. Returns 0 or NP_ERR_NOMEM; *out is
 * set only on success and freed with template_argv_free().
 */
int template_expand(char *const *tmpl, size_t n, const struct machine *m,
    const char *command, char ***out);

/* Free an argv from template_expand(); NULL is a no-op. */
void template_argv_free(char **argv);

#endif
