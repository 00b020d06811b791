/*
 * The heatmap's derived "path" kind (matrix_path.c): per pair the path
 * class bench recorded, the libp2p_ping round trip it got and, for a
 * relayed pair, the sum of its two legs through its relay.
 */
#ifndef NETPROF_MATRIX_PATH_H
#define NETPROF_MATRIX_PATH_H

#include "matrix.h"

/* Adds the kind when some record says its path; 0 or NP_ERR_NOMEM. */
int matrix_path_build(struct matrix *hm);
/* The node's round trip: the first node kind whose default metric is the
   network's (the kinds' table: libp2p_ping); NULL if none ran. */
const struct matrix_kind *matrix_path_ping(const struct matrix *hm);
/* The default metric's value of kind k for src -> tgt, or NAN. */
double matrix_path_value(const struct matrix *hm,
    const struct matrix_kind *k, size_t src, size_t tgt);
/* A leg between a and b: a -> b measured, else b -> a; or NAN. */
double matrix_path_leg(const struct matrix *hm, const struct matrix_kind *k,
    size_t a, size_t b);

#endif
