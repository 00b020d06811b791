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

/* ------------------------------------------------------------------ */
/* Samples                                                            */

/* Hosts in another site than i: M_i. */
static size_t
peers_across(size_t n, const size_t *group, size_t i)
{
	size_t j, m = 0;

	for (j = 0; j < n; j++)
		if (group[j] != group[i])
			m++;
	return m;
}

size_t
schedule_sample_cycle(size_t n, const size_t *group, size_t k)
{
	size_t i, m, most = 1;

	if (k < 1)
		k = 1;
	for (i = 0; i < n; i++) {
		m = peers_across(n, group, i);
		if ((m + k - 1) / k > most)
			most = (m + k - 1) / k;
	}
	return most;
}

int
schedule_sample(size_t n, const size_t *group, size_t k, long sweep,
    struct pair **out, size_t *n_out)
{
	struct pair *p = NULL;
	size_t *across = NULL, i, j, t, m, take, cap = 0, np = 0;
	int r = NP_ERR_NOMEM;

	*out = NULL;
	*n_out = 0;
	if (sweep < 0)
		sweep = 0;
	for (i = 0; i < n; i++) {
		m = peers_across(n, group, i);
		cap += (n - 1 - m) + (k < m ? k : m);
	}
	if (cap == 0)
		return 0;
	if ((p = calloc(cap, sizeof *p)) == NULL ||
	    (across = calloc(n + 1, sizeof *across)) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		m = 0;
		for (j = 0; j < n; j++) {
			if (j == i)
				continue;
			if (group[j] == group[i]) {
				p[np].source = i;
				p[np++].target = j;
			} else
				across[m++] = j;
		}
		take = k < m ? k : m;
		for (t = 0; t < take; t++) {
			p[np].source = i;
			p[np++].target = across[(i + (size_t)sweep % m * (k % m) +
			    t) % m];
		}
	}
	*out = p;
	*n_out = np;
	p = NULL;
	r = 0;
out:
	free(p);
	free(across);
	return r;
}

/* Round rd of a first-fit's table of who is busy (a byte per host and
   role), grown to hold it; NULL without memory. */
static unsigned char *
busy_round(unsigned char **table, size_t *rounds, size_t n, size_t rd)
{
	unsigned char *t;
	size_t grow;

	if (rd >= *rounds) {
		grow = *rounds ? *rounds * 2 : 16;
		while (grow <= rd)
			grow *= 2;
		if ((t = realloc(*table, grow * 2 * n)) == NULL)
			return NULL;
		memset(t + *rounds * 2 * n, 0, (grow - *rounds) * 2 * n);
		*table = t;
		*rounds = grow;
	}
	return *table + rd * 2 * n;
}

int
schedule_pairs(size_t n, const struct pair *pairs, size_t n_pairs,
    enum schedule_rule rule, size_t width, struct schedule **out)
{
	struct schedule *s = NULL;
	unsigned char *table = NULL, *b;
	size_t *next = NULL, *busy = NULL, *round_of = NULL, *count = NULL;
	size_t q, k, rd, n_rounds = 0, table_rounds = 0;
	int r = NP_ERR_NOMEM;

	*out = NULL;
	if (width < 1)
		width = 1;
	if ((next = calloc(n + 1, sizeof *next)) == NULL ||
	    (busy = calloc(n + 1, sizeof *busy)) == NULL ||
	    (round_of = calloc(n_pairs + 1, sizeof *round_of)) == NULL)
		goto out;
	for (q = 0; q < n_pairs; q++) {
		size_t a = pairs[q].source, t = pairs[q].target;

		if (rule == SCHEDULE_SERIAL)
			rd = q;
		else if (rule == SCHEDULE_OVERLAP) {
			/* a source's pairs in rounds of width, in order */
			rd = next[a];
			if (++busy[a] == width) {
				next[a]++;
				busy[a] = 0;
			}
		} else {
			/* first fit: bytes [0, n) a host as a source (or,
			   EXCLUSIVE, in any role), [n, 2n) as a target */
			for (rd = 0;; rd++) {
				if ((b = busy_round(&table, &table_rounds, n,
				    rd)) == NULL)
					goto out;
				if (rule == SCHEDULE_DUPLEX ? !b[a] && !b[n + t] :
				    !b[a] && !b[t])
					break;
			}
			if (rule == SCHEDULE_DUPLEX)
				b[a] = b[n + t] = 1;
			else
				b[a] = b[t] = 1;
		}
		round_of[q] = rd;
		if (rd + 1 > n_rounds)
			n_rounds = rd + 1;
	}
	if ((r = schedule_alloc(n, n_rounds, &s)) != 0)
		goto out;
	r = NP_ERR_NOMEM;
	if ((count = calloc(n_rounds + 1, sizeof *count)) == NULL)
		goto out;
	for (q = 0; q < n_pairs; q++)
		count[round_of[q]]++;
	for (k = 0; k < n_rounds; k++)
		if (round_reserve(&s->rounds[k], count[k]) != 0)
			goto out;
	for (q = 0; q < n_pairs; q++)
		round_add(&s->rounds[round_of[q]], pairs[q].source,
		    pairs[q].target);
	*out = s;
	s = NULL;
	r = 0;
out:
	schedule_free(s);
	free(table);
	free(next);
	free(busy);
	free(round_of);
	free(count);
	return r;
}
