/*
 * Moves one process's wall clock: preloaded (LD_PRELOAD) into a node's JVM, it adds a skew in seconds
 * to every reading of CLOCK_REALTIME (clock_gettime, gettimeofday, time). The skew is CLOCK_SKEW_SECONDS,
 * or, when CLOCK_SKEW_FILE names a file, the number in that file, read again at most every 100 ms of
 * monotonic time: writing a smaller number steps the running process's clock back, as NTP correcting a
 * clock that ran fast does. The monotonic clocks, and the kernel's own timed waits, are left alone, so
 * the JVM's timeouts, sleeps and nanoTime behave as usual; only what the process believes the date is
 * changes. Built by the fault harness with the machine's gcc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int (*real_clock_gettime)(clockid_t, struct timespec *);

static long skew = 0;
static int skew_known = 0;
static long long next_read_ns = 0;

static long long monotonic_ns(void) {
    struct timespec ts;
    real_clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The skew now; races between threads only make one of them read the file again. */
static long skew_seconds(void) {
    static const char *file;
    static int file_known = 0;
    if (!__atomic_load_n(&file_known, __ATOMIC_ACQUIRE)) {
        file = getenv("CLOCK_SKEW_FILE");
        __atomic_store_n(&file_known, 1, __ATOMIC_RELEASE);
    }
    if (file == NULL) {
        if (!__atomic_load_n(&skew_known, __ATOMIC_ACQUIRE)) {
            const char *s = getenv("CLOCK_SKEW_SECONDS");
            __atomic_store_n(&skew, s == NULL ? 0 : strtol(s, NULL, 10), __ATOMIC_RELAXED);
            __atomic_store_n(&skew_known, 1, __ATOMIC_RELEASE);
        }
        return __atomic_load_n(&skew, __ATOMIC_RELAXED);
    }
    long long now = monotonic_ns();
    if (now >= __atomic_load_n(&next_read_ns, __ATOMIC_RELAXED)) {
        __atomic_store_n(&next_read_ns, now + 100000000LL, __ATOMIC_RELAXED);
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            char buf[32];
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n > 0) {
                buf[n] = 0;
                __atomic_store_n(&skew, strtol(buf, NULL, 10), __ATOMIC_RELAXED);
            }
        }
    }
    return __atomic_load_n(&skew, __ATOMIC_RELAXED);
}

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
