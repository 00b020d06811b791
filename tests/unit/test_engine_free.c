/*
 * engine_free() refuses an engine that is not closed: its handles are
 * still on the loop, so freeing it would make the close that follows (and
 * uv_loop_close) read freed memory (ASan says so in the sanitizer build).
 * After engine_close() and its callback it frees, and the loop closes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <uv.h>

#include "engine.h"
#include "inventory.h"

static void
closed_cb(struct engine *e, void *arg)
{
	*(int *)arg = 1;
}

static void
test_free_unclosed_refused(void **state)
{
	const char *json = "{\"machines\": [{\"name\": \"a\", \"address\": "
	    "\"127.0.0.1\", \"transport\": \"local\"}]}";
	struct inventory *inv = NULL;
	struct engine *e = NULL;
	char *cause = NULL;
	uv_loop_t loop;
	int closed = 0;

	assert_int_equal(inventory_parse(json, "machines.json", &inv, &cause),
	    0);
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(engine_new(&loop, inv, NULL, &e), 0);
	engine_free(e);			/* refused: still open */
	engine_close(e, closed_cb, &closed);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(closed, 1);
	engine_free(e);
	assert_int_equal(uv_loop_close(&loop), 0);
	inventory_free(inv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_unclosed_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
