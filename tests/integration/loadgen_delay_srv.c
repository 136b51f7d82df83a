/* tests/integration/loadgen_delay_srv.c: an HTTP/1.1 server that answers every request
 * after a fixed delay measured from the request's arrival (for loadgen's latency
 * accuracy bar). One thread per connection sleeping to an absolute deadline with 1 ns
 * timer slack. Usage: loadgen_delay_srv DELAY_US PORT_FILE MAX_SECONDS. Binds 127.0.0.1:0
 * and writes the port to PORT_FILE (tmp + rename). Built by bench/bench_loadgen.sh. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long delay_ns;

static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[8192];
    size_t have = 0;
    static const char reply[] = "HTTP/1.1 200 OK\r\nServer: delay\r\nContent-Length: 2\r\n\r\nok";

    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof(buf) - have - 1);
        struct timespec t;
        char *end;

        if (n <= 0)
            break;
        clock_gettime(CLOCK_MONOTONIC, &t);
        have += (size_t)n;
        buf[have] = '\0';
        end = strstr(buf, "\r\n\r\n");
        if (!end) {
            if (have >= sizeof(buf) - 1)
                break;
            continue;
        }
        t.tv_nsec += delay_ns;
        while (t.tv_nsec >= 1000000000L) {
            t.tv_nsec -= 1000000000L;
            t.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) != 0)
            ;
        if (write(fd, reply, sizeof(reply) - 1) < 0)
            break;
        /* requests carry no body here; keep what follows the header block */
        have -= (size_t)(end + 4 - buf);
        memmove(buf, end + 4, have);
    }
    close(fd);
    return NULL;
}

int main(int argc, char **argv)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int s, one = 1;
    FILE *f;
    char tmp[4096];
    time_t stop;

    if (argc != 4)
        return 2;
    delay_ns = atol(argv[1]) * 1000L;
    stop = time(NULL) + atol(argv[3]);
    s = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1024) < 0)
        return 1;
    getsockname(s, (struct sockaddr *)&a, &len);
    snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
    f = fopen(tmp, "w");
    if (!f)
        return 1;
    fprintf(f, "%u\n", ntohs(a.sin_port));
    fclose(f);
    rename(tmp, argv[2]);
    while (time(NULL) < stop) {
        int c = accept(s, NULL, NULL);
        pthread_t t;

        if (c < 0)
            continue;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (pthread_create(&t, NULL, serve, (void *)(intptr_t)c) == 0)
            pthread_detach(t);
        else
            close(c);
    }
    return 0;
}
