/* The task runtime's C API (interlace/tasks.h) from C99: dependencies, nesting,
 * il_task_wait_on and the errors a C caller can make. Prints "OK tasks_check". */
#include <interlace/tasks.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "tasks_check: %s:%d: %s failed (last error: %s)\n",    \
              __FILE__, __LINE__, #cond, il_task_last_error());              \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

enum { N = 200 };
static int chain[N];
static int chain_len;
static long value;

static void append(void* arg) { chain[chain_len++] = (int)(long)arg; }

static void add_child_value(void* arg) { value += (long)arg; }

static void parent(void* arg) {
  (void)arg;
  il_task_dep_t d = {&value, sizeof value, IL_TASK_INOUT};
  for (long i = 1; i <= 10; ++i) CHECK(il_task_spawn(add_child_value, (void*)i, &d, 1, 0) == 0);
  CHECK(il_task_wait() == 0);  /* this task's children only */
  CHECK(value == 55);
}

static void set_to_seven(void* arg) { *(int*)arg = 7; }

int main(void) {
  CHECK(il_task_workers() >= 1);

  /* inout chain on one address: spawn order is kept. */
  il_task_dep_t d = {&chain_len, sizeof chain_len, IL_TASK_INOUT};
  for (long i = 0; i < N; ++i) CHECK(il_task_spawn(append, (void*)i, &d, 1, 0) == 0);
  CHECK(il_task_wait() == 0);
  CHECK(chain_len == N);
  for (int i = 0; i < N; ++i) CHECK(chain[i] == i);

  /* A nested task waits for its own children. */
  CHECK(il_task_spawn(parent, NULL, NULL, 0, 3) == 0);
  CHECK(il_task_wait() == 0);
  CHECK(value == 55);

  /* il_task_wait_on: wait for the producer of x only. */
  int x = 0;
  il_task_dep_t wx = {&x, sizeof x, IL_TASK_OUT};
  CHECK(il_task_spawn(set_to_seven, &x, &wx, 1, 0) == 0);
  il_task_dep_t rx = {&x, sizeof x, IL_TASK_IN};
  CHECK(il_task_wait_on(&rx, 1) == 0);
  CHECK(x == 7);

  /* Bad input: a code and a message naming the value. */
  il_task_dep_t neg = {&x, -8, IL_TASK_IN};
  CHECK(il_task_spawn(set_to_seven, &x, &neg, 1, 0) == IL_TASK_ERR_ARG);
  CHECK(strstr(il_task_last_error(), "-8") != NULL);
  il_task_dep_t nul = {NULL, 16, IL_TASK_IN};
  CHECK(il_task_spawn(set_to_seven, &x, &nul, 1, 0) == IL_TASK_ERR_ARG);
  CHECK(strstr(il_task_last_error(), "null") != NULL);
  il_task_dep_t bad_access = {&x, 4, (il_task_access_t)17};
  CHECK(il_task_spawn(set_to_seven, &x, &bad_access, 1, 0) == IL_TASK_ERR_ARG);
  CHECK(strstr(il_task_last_error(), "17") != NULL);
  CHECK(il_task_spawn(set_to_seven, &x, &wx, -1, 0) == IL_TASK_ERR_ARG);
  CHECK(strstr(il_task_last_error(), "-1") != NULL);
  CHECK(il_task_spawn(set_to_seven, &x, NULL, 2, 0) == IL_TASK_ERR_ARG);
  CHECK(il_task_spawn(NULL, &x, &wx, 1, 0) == IL_TASK_ERR_ARG);
  CHECK(il_task_wait_on(&neg, 1) == IL_TASK_ERR_ARG);
  CHECK(il_task_wait() == 0);

  printf("OK tasks_check\n");
  return 0;
}
