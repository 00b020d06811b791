/*
 * Pair scheduling: shift rounds for the probes that overlap, circle-method
 * rounds for the exclusive ones, shift rounds again for duplex, and the
 * one-pair-at-a-time order of the upstream tool. Rounds are built as plain
 * arrays; the dispatcher decides how strictly to follow them.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "schedule.h"

static int
schedule_alloc(size_t n, size_t n_rounds, struct schedule **out)
{
	struct schedule *s;

	*out = NULL;
	if ((s = calloc(1, sizeof *s)) == NULL)
		return NP_ERR_NOMEM;
	s->n_hosts = n;
	if (n_rounds > 0 &&
	    (s->rounds = calloc(n_rounds, sizeof *s->rounds)) == NULL) {
		free(s);
		return NP_ERR_NOMEM;
	}
	s->n_rounds = n_rounds;
	*out = s;
	return 0;
}

static int
round_reserve(struct round *r, size_t n)
{
	if ((r->pairs = calloc(n > 0 ? n : 1, sizeof *r->pairs)) == NULL)
		return NP_ERR_NOMEM;
	return 0;
}

static void
round_add(struct round *r, size_t source, size_t target)
{
	r->pairs[r->n_pairs].source = source;
	r->pairs[r->n_pairs].target = target;
	r->n_pairs++;
}

/* Rounds of `width` consecutive shifts: round k holds shifts k*width+1 ..
   (k+1)*width, host i -> (i + shift) mod n. */
int
schedule_overlap(size_t n, size_t width, struct schedule **out)
{
	struct schedule *s;
	size_t n_rounds, k, i, shift;
	int r;

	if (width < 1)
		width = 1;
	n_rounds = n < 2 ? 0 : (n - 2) / width + 1;
	if ((r = schedule_alloc(n, n_rounds, &s)) != 0)
		return r;
	for (k = 0; k < n_rounds; k++) {
		struct round *rd = &s->rounds[k];

		if ((r = round_reserve(rd, n * width)) != 0)
			goto fail;
		for (shift = k * width + 1;
		    shift <= (k + 1) * width && shift < n; shift++) {
			for (i = 0; i < n; i++)
				round_add(rd, i, (i + shift) % n);
		}
	}
	*out = s;
	return 0;
fail:
	schedule_free(s);
	return r;
}

/*
 * Duplex: shift round k has host i send to (i + k) mod n, so every host is
 * the client of one test and the server of another, at once: n - 1 rounds
 * instead of the exclusive 2(n - 1).
 */
int
schedule_duplex(size_t n, struct schedule **out)
{
	return schedule_overlap(n, 1, out);
}

/*
 * Circle method: position 0 stays, positions 1..m-1 rotate. In matching j
 * the host at position p meets the one at position m-1-p. With odd n a
 * virtual host (index n) takes the missing place; its partner sits out.
 */
int
schedule_exclusive(size_t n, struct schedule **out)
{
	struct schedule *s;
	size_t m, j, p, *pos = NULL;
	int r;

	*out = NULL;
	m = n % 2 == 0 ? n : n + 1;
	if (n < 2)
		return schedule_alloc(n, 0, out);
	if ((r = schedule_alloc(n, 2 * (m - 1), &s)) != 0)
		return r;
	if ((pos = calloc(m, sizeof *pos)) == NULL) {
		r = NP_ERR_NOMEM;
		goto fail;
	}
	for (j = 0; j < m - 1; j++) {
		struct round *fwd = &s->rounds[2 * j];
		struct round *back = &s->rounds[2 * j + 1];

		if ((r = round_reserve(fwd, m / 2)) != 0 ||
		    (r = round_reserve(back, m / 2)) != 0)
			goto fail;
		pos[0] = 0;
		for (p = 1; p < m; p++)
			pos[p] = 1 + (p - 1 + j) % (m - 1);
		for (p = 0; p < m / 2; p++) {
			size_t a = pos[p], b = pos[m - 1 - p];

			if (a >= n || b >= n)
				continue;	/* the bye */
			/* alternate who serves first so no host always waits */
			if ((p + j) % 2 == 0) {
				round_add(fwd, a, b);
				round_add(back, b, a);
			} else {
				round_add(fwd, b, a);
				round_add(back, a, b);
			}
		}
	}
	free(pos);
	*out = s;
	return 0;
fail:
	free(pos);
	schedule_free(s);
	return r;
}

int
schedule_serial(size_t n, struct schedule **out)
{
	struct schedule *s;
	size_t i, j, k = 0;
	int r;

	if ((r = schedule_alloc(n, n < 2 ? 0 : n * (n - 1), &s)) != 0)
		return r;
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			if ((r = round_reserve(&s->rounds[k], 1)) != 0) {
				schedule_free(s);
				return r;
			}
			round_add(&s->rounds[k++], i, j);
		}
	}
	*out = s;
	return 0;
}

size_t
schedule_n_pairs(const struct schedule *s)
{
	size_t k, total = 0;

	for (k = 0; k < s->n_rounds; k++)
		total += s->rounds[k].n_pairs;
	return total;
}

/*
 * Check every round: a host may be the source of one pair and the target
 * of one pair (duplex), or be in one pair at all (exclusive).
 */
static int
rounds_keep_roles(const struct schedule *s, int exclusive)
{
	unsigned char *role;
	size_t k, i;
	int ok = 1;

	if ((role = calloc(s->n_hosts + 1, 1)) == NULL)
		return 0;
	for (k = 0; k < s->n_rounds && ok; k++) {
		const struct round *rd = &s->rounds[k];

		memset(role, 0, s->n_hosts + 1);
		for (i = 0; i < rd->n_pairs && ok; i++) {
			const struct pair *p = &rd->pairs[i];

			/* bit 1: a source here; bit 2: a target here */
			if (exclusive ? role[p->source] || role[p->target] :
			    (role[p->source] & 1) || (role[p->target] & 2))
				ok = 0;
			role[p->source] |= 1;
			role[p->target] |= 2;
		}
	}
	free(role);
	return ok;
}

int
schedule_is_duplex(const struct schedule *s)
{
	return rounds_keep_roles(s, 0);
}

int
schedule_is_exclusive(const struct schedule *s)
{
	return rounds_keep_roles(s, 1);
}

void
schedule_free(struct schedule *s)
{
	size_t k;

	if (s == NULL)
		return;
	for (k = 0; k < s->n_rounds; k++)
		free(s->rounds[k].pairs);
	free(s->rounds);
	free(s);
}
