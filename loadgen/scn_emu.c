/* loadgen/scn_emu.c: see scn_emu.h. */
#include "loadgen/scn_emu.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&ts, NULL);
}

int scn_emu_find(char *out, size_t n, char *err, size_t errlen)
{
    const char *env = getenv("SCALELAB_EMULATOR");
    char self[4096];
    ssize_t len;
    char *slash;

    if (env && env[0]) {
        snprintf(out, n, "%s", env);
        return 0;
    }
    len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0) {
        snprintf(err, errlen, "cannot find loadgen's own path: %s", strerror(errno));
        return -1;
    }
    self[len] = '\0';
    slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    if ((size_t)snprintf(out, n, "%s/emulator", self) >= n) {
        snprintf(err, errlen, "path too long");
        return -1;
    }
    if (access(out, X_OK) != 0) {
        snprintf(err, errlen, "no emulator binary at %s (build it, or set SCALELAB_EMULATOR)", out);
        return -1;
    }
    return 0;
}

static size_t on_body(char *p, size_t sz, size_t nm, void *ud)
{
    return cm_buf_append(ud, p, sz * nm) == 0 ? sz * nm : 0;
}

int scn_http_auth(void *curl, struct curl_slist **hdr)
{
    CURL *c = curl;
    const char *akid = getenv("AWS_ACCESS_KEY_ID"), *secret = getenv("AWS_SECRET_ACCESS_KEY");
    const char *token = getenv("AWS_SESSION_TOKEN");
    const char *region = getenv("AWS_REGION") ? getenv("AWS_REGION") : getenv("AWS_DEFAULT_REGION");
    char sigv4[128], userpwd[1024];

    if (!akid || !*akid || !secret || !*secret)
        return 0;
    /* an emulator under --auth sigv4 wants its admin API signed too (docs/auth.md); curl
     * copies the strings */
    snprintf(sigv4, sizeof(sigv4), "aws:amz:%s:scalelab", region && *region ? region : "us-east-1");
    snprintf(userpwd, sizeof(userpwd), "%s:%s", akid, secret);
    curl_easy_setopt(c, CURLOPT_AWS_SIGV4, sigv4);
    curl_easy_setopt(c, CURLOPT_USERPWD, userpwd);
    if (token && *token) {
        char h[4200];

        snprintf(h, sizeof(h), "X-Amz-Security-Token: %s", token);
        *hdr = curl_slist_append(*hdr, h);
    }
    return 1;
}

int scn_http(const char *url, const char *body, struct cm_buf *out, long timeout_ms, char *err,
             size_t errlen)
{
    CURL *c = curl_easy_init();
    struct curl_slist *hdr = NULL;
    CURLcode cc;
    long status = 0;

    if (!c) {
        snprintf(err, errlen, "curl_easy_init failed");
        return -1;
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    scn_http_auth(c, &hdr);
    if (body)
        hdr = curl_slist_append(hdr, "Content-Type: application/json");
    if (hdr)
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    cc = curl_easy_perform(c);
    if (cc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    else
        snprintf(err, errlen, "%s: %s", url, curl_easy_strerror(cc));
    curl_slist_free_all(hdr);
    curl_easy_cleanup(c);
    return cc == CURLE_OK ? (int)status : -1;
}

/* GET base+path of the admin API: its JSON reply (NULL with err set: no answer, another
 * status, or not JSON); url receives the address for the caller's own messages */
static json_t *admin_get(const char *base, const char *path, char *url, size_t urllen, char *err,
                         size_t errlen)
{
    struct cm_buf b;
    json_t *o = NULL;
    int st;

    snprintf(url, urllen, "%s%s", base, path);
    cm_buf_init(&b, 1 << 16);
    st = scn_http(url, NULL, &b, 5000, err, errlen);
    if (st >= 0 && st != 200)
        snprintf(err, errlen, "%s: HTTP %d (not a scalelab emulator)", url, st);
    else if (st == 200 && !(o = json_loadb(b.data ? b.data : "", b.len, 0, NULL)))
        snprintf(err, errlen, "%s: not JSON", url);
    cm_buf_cleanup(&b);
    return o;
}

int scn_emu_clock(const char *base, int64_t *now_ms, double *time_scale, char *err, size_t errlen)
{
    char url[512];
    json_t *o = admin_get(base, "/_scalelab/clock", url, sizeof(url), err, errlen);
    json_t *now = json_object_get(o, "now_ms"), *ts = json_object_get(o, "time_scale");
    int rc = -1;

    if (!o)
        return -1;
    if (!json_is_integer(now) || !json_is_number(ts)) {
        snprintf(err, errlen, "%s: not a scalelab clock reply", url);
    } else {
        *now_ms = (int64_t)json_integer_value(now);
        *time_scale = json_number_value(ts);
        rc = 0;
    }
    json_decref(o);
    return rc;
}

static int read_port(const char *path)
{
    FILE *f = fopen(path, "r");
    int port = 0;

    if (!f)
        return 0;
    if (fscanf(f, "%d", &port) != 1)
        port = 0;
    fclose(f);
    return port;
}

int scn_emu_start(struct scn_emu *e, const char *bin, double scale, int die_with_parent, char *err,
                  size_t errlen)
{
    char portf[300], scale_s[64];
    const char *tmp = getenv("TMPDIR");
    int port = 0, status;

    memset(e, 0, sizeof(*e));
    e->pid = -1;
    snprintf(e->dir, sizeof(e->dir), "%s/scalelab-emu-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(e->dir)) {
        snprintf(err, errlen, "mkdtemp %s: %s", e->dir, strerror(errno));
        e->dir[0] = '\0';
        return -1;
    }
    snprintf(portf, sizeof(portf), "%s/port", e->dir);
    snprintf(e->log, sizeof(e->log), "%s/emulator.log", e->dir);
    snprintf(scale_s, sizeof(scale_s), "%.17g", scale);
    fflush(NULL);
    e->pid = fork();
    if (e->pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto fail;
    }
    if (e->pid == 0) {
        int fd = open(e->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

        setpgid(0, 0);
        if (die_with_parent)
            prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
        }
        if (fd >= 0)
            dup2(fd, 2);
        execl(bin, bin, "--port", "0", "--port-file", portf, "--time-scale", scale_s, "--quiet",
              (char *)NULL);
        _exit(127);
    }
    setpgid(e->pid, e->pid);
    for (int i = 0; i < 200; i++) {
        if (waitpid(e->pid, &status, WNOHANG) == e->pid) {
            e->pid = -1;
            snprintf(err, errlen, "the emulator (%s) exited at start (%s %d); its log: %s", bin,
                     WIFEXITED(status) ? "status" : "signal",
                     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), e->log);
            goto fail_keep_log;
        }
        port = read_port(portf);
        if (port > 0)
            break;
        sleep_ms(50);
    }
    if (port <= 0) {
        snprintf(err, errlen, "the emulator did not write its port within 10 s");
        goto fail;
    }
    snprintf(e->url, sizeof(e->url), "http://127.0.0.1:%d", port);
    for (int i = 0; i < 100; i++) {
        char url[200], herr[256];
        struct cm_buf b;
        int st;

        snprintf(url, sizeof(url), "%s/_scalelab/health", e->url);
        cm_buf_init(&b, 1 << 16);
        st = scn_http(url, NULL, &b, 1000, herr, sizeof(herr));
        cm_buf_cleanup(&b);
        if (st == 200)
            return 0;
        sleep_ms(100);
    }
    snprintf(err, errlen, "the emulator at %s did not answer /_scalelab/health", e->url);
fail:
    scn_emu_stop(e, 0);
    return -1;
fail_keep_log:
    return -1;
}

void scn_emu_stop(struct scn_emu *e, int keep_dir)
{
    if (e->pid > 0) {
        int status, gone = 0;

        kill(e->pid, SIGTERM);
        for (int i = 0; i < 100 && !gone; i++) {
            if (waitpid(e->pid, &status, WNOHANG) == e->pid)
                gone = 1;
            else
                sleep_ms(50);
        }
        if (!gone) {
            kill(e->pid, SIGKILL);
            waitpid(e->pid, &status, 0);
        }
        e->pid = -1;
    }
    if (!keep_dir && e->dir[0]) {
        char p[320];

        snprintf(p, sizeof(p), "%s/port", e->dir);
        unlink(p);
        unlink(e->log);
        rmdir(e->dir);
        e->dir[0] = '\0';
    }
}

int scn_emu_loop_stalls(const char *base, uint64_t since, struct scn_emu_stall *out, int max,
                        uint64_t *total, char *err, size_t errlen)
{
    char url[512];
    json_t *o = admin_get(base, "/_scalelab/health", url, sizeof(url), err, errlen), *loop, *recent,
           *v;
    size_t i;
    int n = -1;

    if (!o)
        return -1;
    loop = json_object_get(o, "loop");
    recent = json_object_get(loop, "recent");
    if (!json_is_integer(json_object_get(loop, "stalls")) || !json_is_array(recent)) {
        snprintf(err, errlen, "%s: no \"loop\" (the emulator does not measure its loop)", url);
        goto out;
    }
    *total = (uint64_t)json_integer_value(json_object_get(loop, "stalls"));
    n = 0;
    json_array_foreach(recent, i, v)
    {
        json_t *q = json_object_get(v, "seq"), *at = json_object_get(v, "at_ms"),
               *late = json_object_get(v, "late_ms");

        if (!json_is_integer(q) || !json_is_integer(at) || !json_is_number(late) ||
            (uint64_t)json_integer_value(q) < since || n >= max)
            continue;
        out[n].seq = (uint64_t)json_integer_value(q);
        out[n].at_ms = (int64_t)json_integer_value(at);
        out[n].late_ms = json_number_value(late);
        n++;
    }
out:
    json_decref(o);
    return n;
}
