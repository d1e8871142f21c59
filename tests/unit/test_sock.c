/* test_sock.c -- the same end-to-end checks as test_engine.c with every
 * connection on the TCP socket transport (CHORUS_SHM_DISABLE=1, two streams
 * per connection): data integrity across striped steps, groups, streams,
 * mismatches, a killed peer noticed through the closed sockets, and the
 * secret. */
#define TEST_FORCE_SOCKETS 1
#include "test_engine.c"
