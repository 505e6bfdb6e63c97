/* A Kineto plugin library that crashes while it loads, for orprof plugins' tests: with
 * -DCRASH_CTOR in its constructor (at dlopen), with -DEXIT_CTOR its constructor calls exit(0)
 * (the process ends "successfully" before anything is reported), else in KinetoPlugin_register.
 * Written for orprof; no code from Kineto. */
#include <stddef.h>
#include <stdlib.h>

static void crash(void) {
  volatile int* volatile p = NULL; /* both volatile: the store is neither dropped nor made a trap */
  *p = 42;                         /* SIGSEGV */
}

#ifdef CRASH_CTOR
__attribute__((constructor)) static void crashAtLoad(void) { crash(); }
#endif

#ifdef EXIT_CTOR
__attribute__((constructor)) static void exitAtLoad(void) { exit(0); }
#endif

int KinetoPlugin_register(const void* registry) {
  (void)registry;
  crash();
  return 0;
}
