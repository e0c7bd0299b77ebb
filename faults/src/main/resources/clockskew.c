/*
 * Moves one process's wall clock: preloaded (LD_PRELOAD) into a node's JVM, it adds CLOCK_SKEW_SECONDS
 * to every reading of CLOCK_REALTIME (clock_gettime, gettimeofday, time). The monotonic clocks, and the
 * kernel's own timed waits, are left alone, so the JVM's timeouts, sleeps and nanoTime behave as usual;
 * only what the process believes the date is changes. Built by the fault harness with the machine's gcc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long skew_seconds(void) {
    static long skew = -1;
    if (skew == -1) {
        const char *s = getenv("CLOCK_SKEW_SECONDS");
        skew = s == NULL ? 0 : strtol(s, NULL, 10);
    }
    return skew;
}

static int (*real_clock_gettime)(clockid_t, struct timespec *);

int clock_gettime(clockid_t id, struct timespec *ts) {
    if (real_clock_gettime == NULL) {
        real_clock_gettime = (int (*)(clockid_t, struct timespec *)) dlsym(RTLD_NEXT, "clock_gettime");
    }
    int rc = real_clock_gettime(id, ts);
    if (rc == 0 && ts != NULL && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        ts->tv_sec += skew_seconds();
    }
    return rc;
}

int gettimeofday(struct timeval *tv, void *tz) {
    struct timespec ts;
    int rc = clock_gettime(CLOCK_REALTIME, &ts);
    if (rc == 0 && tv != NULL) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    if (tz != NULL) {
        ((struct timezone *) tz)->tz_minuteswest = 0;
        ((struct timezone *) tz)->tz_dsttime = 0;
    }
    return rc;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out != NULL) {
        *out = ts.tv_sec;
    }
    return ts.tv_sec;
}
