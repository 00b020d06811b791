/*
 * The ranges of bounds.h. A range changed here changes the option and the
 * inventory field together.
 */
#include "bounds.h"

const struct bounds bounds_port = { 1, 65535 };
const struct bounds bounds_libp2p_port = { 1, 65534 };
const struct bounds bounds_ping_count = { 1, 100000 };
const struct bounds bounds_ping_interval = { 0.002, 60 };
const struct bounds bounds_iperf_seconds = { 1, 86400 };
const struct bounds bounds_connect_timeout = { 1, 3600 };
const struct bounds bounds_max_channels = { 1, 64 };
const struct bounds bounds_fanout = { 1, 4096 };
/* collect --sample: pairs per host across sites in a sweep */
const struct bounds bounds_sample = { 1, 4096 };
const struct bounds bounds_count = { 1, 100000 };
const struct bounds bounds_bytes = { 1, 1073741824 };
const struct bounds bounds_wait = { 0.1, 86400 };
const struct bounds bounds_timeout = { 0.001, 1e7 };
const struct bounds bounds_repeat = { 1, 1e7 };
