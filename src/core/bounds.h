/*
 * The ranges of the numbers a user gives, in one place: the command line's
 * option tables (option.h) and the inventory loader (inventory.c) check
 * the same setting against the same bounds, as nginx's command tables
 * carry theirs (ngx_conf_check_num_bounds).
 */
#ifndef NETPROF_BOUNDS_H
#define NETPROF_BOUNDS_H

struct bounds {
	double lo, hi;		/* inclusive */
};

extern const struct bounds bounds_port;		/* TCP port: 1-65535 */
/* libp2p's TCP port; its UDP port (QUIC) is the next one, so 1-65534 */
extern const struct bounds bounds_libp2p_port;
extern const struct bounds bounds_ping_count;
extern const struct bounds bounds_ping_interval;	/* seconds */
extern const struct bounds bounds_iperf_seconds;	/* iperf3 -t: a day */
extern const struct bounds bounds_connect_timeout;	/* seconds */
extern const struct bounds bounds_max_channels;
extern const struct bounds bounds_fanout;
extern const struct bounds bounds_sample;
extern const struct bounds bounds_count;	/* samples, transfers, probes */
extern const struct bounds bounds_bytes;	/* one transfer: 1 GiB */
extern const struct bounds bounds_wait;		/* bench's waits, seconds */
extern const struct bounds bounds_timeout;	/* exec --timeout, seconds */
extern const struct bounds bounds_repeat;

/* b's ends as the two int arguments of an integer check */
#define BOUNDS_INT(b) (int)(b).lo, (int)(b).hi

#endif
