/*
 * Command lines that reproduce a probe by hand. A remote command (the
 * shell text netprof hands to the engine for one machine) runs on the
 * host after the machine's remote_setup; command_line_reproduce() turns
 * it into one line a user can paste into a shell on this machine to run
 * the same thing the same way, for the machine's transport:
 *   ssh      ssh [-p PORT] [-l USER] [-i KEY] [-F CONFIG]
 *                [-o UserKnownHostsFile=FILE] HOST 'REMOTE'
 *   command  the remote_command template expanded, as one shell-quoted line
 *            (e.g. bash -lc 'ping -c 2 -W 2 10.0.0.2', as upstream records)
 *   local    sh -c 'REMOTE'
 * REMOTE is command_line_on_host(). Records (`command`) and the plan carry
 * these lines.
 */
#ifndef NETPROF_COMMAND_LINE_H
#define NETPROF_COMMAND_LINE_H

struct inventory;
struct machine;

/*
 * What runs on m's shell for command: m's remote_setup, then command in
 * the same shell (so the setup's exports and cd apply; a failing setup
 * exits with its status); command itself when there is no setup. A new
 * string; NULL when out of memory.
 */
char *command_line_on_host(const struct machine *m, const char *command);

/*
 * What the engine runs: command_line_on_host(), with a line of its own
 * between the setup and the command, command_line_setup_marker(), so that
 * whatever the setup prints on stdout can be told from the command's
 * output (*marked 1; 0 without a setup). A new string; NULL when out of
 * memory.
 */
char *command_line_on_host_marked(const struct machine *m,
    const char *command, int *marked);

/*
 * The marker line (without its newline): "netprof-setup-done-" and 16 hex
 * digits drawn once per process, which no setup prints by chance.
 */
const char *command_line_setup_marker(void);

/*
 * Eight hex digits drawn once per process, to tell this netprof's names
 * (Slurm step names) from another's of the same PID on another machine.
 */
const char *command_line_process_tag(void);

/*
 * The local shell line that runs command on m (of inv) through m's
 * transport, remote_setup included. *out is a new string, set only on
 * success. Returns 0, NP_ERR_NOMEM, or NP_ERR_INVENTORY (the "command"
 * transport without a remote_command template).
 */
int command_line_reproduce(const struct inventory *inv,
    const struct machine *m, const char *command, char **out);

#endif
