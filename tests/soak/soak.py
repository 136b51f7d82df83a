"""tests/soak/soak.py: the driver of `make soak` (tests/soak/soak.sh starts the emulator
and this script; docs/soak.md states the probes and the bounds). Every phase is bounded
in count and time; the sampler follows the emulator across kill -9 restarts."""
import argparse, http.client, json, multiprocessing, os, random, resource, signal, socket
import subprocess, sys
import threading, time
import boto3
from botocore.config import Config

BOUNDS = {"rss_mb": 300, "api_p99_ms": 100, "fd_cpu_pct": 20, "stop_s": 30, "capacity_s": 1.0}

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int)
ap.add_argument("--pid", type=int)
ap.add_argument("--tmp")
ap.add_argument("--emu")
ap.add_argument("--fuzz-rc", type=int, default=0)
ap.add_argument("emu_args", nargs="*")
a = ap.parse_args()
T0 = time.time()
LOAD0 = os.getloadavg()[0]  # the machine's 1-minute load average at the start, and at the end
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
TICK = os.sysconf("SC_CLK_TCK")

state = {"pid": a.pid, "port": a.port, "probe": True, "stop": False, "phase": "baseline"}
samples = []  # (t, rss_kb, fds, cpu_s, api_ms or None)
problems = []
crashes = 0


def ep():
    return "http://127.0.0.1:%d" % state["port"]


def proc_figures(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
        fds = len(os.listdir("/proc/%d/fd" % pid))
        with open("/proc/%d/stat" % pid) as f:
            st = f.read().rsplit(")", 1)[1].split()
        cpu = (int(st[11]) + int(st[12])) / TICK
        return rss, fds, cpu
    except (OSError, StopIteration, ValueError):
        return None


def probe_port_ms(port):
    """One DescribeAutoScalingGroups on a new connection: ms, or None if it failed."""
    t0 = time.perf_counter()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("POST", "/", "Action=DescribeAutoScalingGroups&Version=2011-01-01",
                  {"Content-Type": "application/x-www-form-urlencoded"})
        r = c.getresponse()
        r.read()
        c.close()
        if r.status != 200:
            return None
    except OSError:
        return None
    return (time.perf_counter() - t0) * 1000


def prober(conn):
    """The probe's own process: the load this script drives (boto3 building 1,000-datum
    requests, 1,010 sockets) holds the interpreter's lock for tens of ms at a time, and a
    probe timed in a thread beside it counted those waits as the API's answer time."""
    while True:
        port = conn.recv()
        if port is None:
            return
        conn.send(probe_port_ms(port))


probe_conn, probe_child = multiprocessing.Pipe()
probe_proc = multiprocessing.Process(target=prober, args=(probe_child,), daemon=True)
probe_proc.start()


def probe_ms():
    probe_conn.send(state["port"])
    return probe_conn.recv()


def sampler():
    while not state["stop"]:
        f = proc_figures(state["pid"])
        ms = probe_ms() if state["probe"] and f else None
        if f:
            samples.append((time.time() - T0, f[0], f[1], f[2], ms, state["probe"],
                            state["phase"]))
        time.sleep(0.25)


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def clients():
    cfg = Config(retries={"max_attempts": 2}, connect_timeout=5, read_timeout=10)
    return (boto3.client("autoscaling", endpoint_url=ep(), config=cfg),
            boto3.client("cloudwatch", endpoint_url=ep(), config=cfg))


def phase(name):
    state["phase"] = name.split(":")[0].split(" (")[0]
    print("# soak: %5.1fs %s" % (time.time() - T0, name), flush=True)


def check_alive(where):
    global crashes
    if not alive(state["pid"]):
        crashes += 1
        problems.append("emulator died during " + where)
        return False
    return True


# ---- the probes ----------------------------------------------------------------------

def raw_fuzz(n=1000):
    """Random and mutated HTTP requests on the live API (bounded: n cases, 2 s each)."""
    rnd = random.Random(19)
    seeds = [b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
             b"Content-Length: %d\r\n\r\n", b"GET /?Action=DescribeAlarms&Version=2010-08-01 HTTP/1.1\r\n"
             b"Host: x\r\n\r\n"]
    bodies = [b"Action=CreateLaunchConfiguration&Version=2011-01-01&LaunchConfigurationName=f%d"
              b"&ImageId=ami-1&InstanceType=m1.small", b"Action=PutMetricData&Version=2010-08-01"
              b"&Namespace=N&MetricData.member.1.MetricName=m&MetricData.member.1.Value=1"]
    for i in range(n):
        body = bytearray(rnd.choice(bodies).replace(b"%d", str(i).encode()))
        for _ in range(rnd.randrange(0, 6)):
            if body:
                body[rnd.randrange(len(body))] = rnd.randrange(256)
        head = rnd.choice(seeds)
        req = bytearray(head.replace(b"%d", str(len(body)).encode()) if b"%d" in head else head)
        for _ in range(rnd.randrange(0, 3)):
            req[rnd.randrange(len(req))] = rnd.randrange(256)
        data = bytes(req) + (bytes(body) if b"Content-Length" in head else b"")
        try:
            s = socket.create_connection(("127.0.0.1", state["port"]), timeout=1)
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            s.recv(65536)
            s.close()
        except OSError:
            pass
        if i % 250 == 0 and not check_alive("raw fuzz"):
            return


def slowloris(n=1010, hold_s=15):
    socks = []
    for i in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", state["port"]), timeout=5)
            if i % 2 == 0:
                s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)
        except OSError:
            pass
    t_end = time.time() + hold_s
    while time.time() < t_end:
        for s in socks[:50]:
            try:
                s.send(b"X")
            except OSError:
                pass
        time.sleep(1)
    for s in socks:
        s.close()
    check_alive("slowloris")


def fd_exhaustion():
    """A second emulator with ulimit -n 200 and 400 idle clients: it must not spin (CPU
    under a bound) and must answer once they are gone."""
    pf = os.path.join(a.tmp, "fd.port")
    p = subprocess.Popen([a.emu, "--port", "0", "--port-file", pf, "--quiet"],
                         stdin=subprocess.DEVNULL, stdout=open(os.path.join(a.tmp, "fd.log"), "ab"),
                         stderr=subprocess.STDOUT, start_new_session=True,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200)))
    for _ in range(100):
        if os.path.exists(pf) and os.path.getsize(pf):
            break
        time.sleep(0.1)
    port = int(open(pf).read())
    socks = []
    for _ in range(400):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        except OSError:
            break
    f0 = proc_figures(p.pid)
    time.sleep(5)
    f1 = proc_figures(p.pid)
    cpu_pct = (f1[2] - f0[2]) / 5 * 100 if f0 and f1 else 100
    for s in socks:
        s.close()
    ok = False
    t0 = time.time()
    while time.time() - t0 < 15 and not ok:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/_scalelab/health")
            ok = c.getresponse().status == 200
        except OSError:
            time.sleep(0.2)
    answered = time.time() - t0
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
    if cpu_pct > BOUNDS["fd_cpu_pct"]:
        problems.append("out of fds the emulator used %.0f%% CPU" % cpu_pct)
    if not ok:
        problems.append("out of fds: no answer 15 s after the clients left")
    return cpu_pct, answered


def huge_capacity_and_stopped_instances():
    asg, _ = clients()
    asg.create_launch_configuration(LaunchConfigurationName="soak-lc", ImageId="ami-12345678",
                                    InstanceType="m1.small", UserData=json.dumps({"boot_s": 1}))
    t0 = time.time()
    try:
        asg.create_auto_scaling_group(AutoScalingGroupName="soak-big", LaunchConfigurationName="soak-lc",
                                      MinSize=0, MaxSize=10000, DesiredCapacity=10000,
                                      AvailabilityZones=["us-east-1a"])
    except Exception as e:  # an AWS error is an answer too
        print("# soak: DesiredCapacity 10000: %s" % e)
    took = time.time() - t0
    if took > BOUNDS["capacity_s"]:
        problems.append("DesiredCapacity 10000 took %.1f s" % took)
    time.sleep(15)
    kids = subprocess.run(["pgrep", "-P", str(state["pid"])], capture_output=True,
                          text=True).stdout.split()
    # stop three instances from outside, then delete the group: they must end anyway
    for k in kids[:3]:
        try:
            os.kill(int(k), signal.SIGSTOP)
        except OSError:
            pass
    running = len([k for k in kids if alive(int(k))])
    asg.delete_auto_scaling_group(AutoScalingGroupName="soak-big", ForceDelete=True)
    t1 = time.time()
    left = kids
    while time.time() - t1 < BOUNDS["stop_s"] + 10:
        left = [k for k in kids if alive(int(k))]
        if not left:
            break
        time.sleep(0.5)
    stop_s = time.time() - t1
    if left:
        problems.append("%d instances (3 SIGSTOPped) still alive %.0f s after ForceDelete"
                        % (len(left), stop_s))
    check_alive("huge capacity")
    return took, running, stop_s


def series_explosion(calls=60, per=1000):
    _, cw = clients()
    limited = 0
    for i in range(calls):
        data = [{"MetricName": "m", "Value": 1.0,
                 "Dimensions": [{"Name": "k", "Value": "v%d-%d" % (i, j)}]} for j in range(per)]
        try:
            cw.put_metric_data(Namespace="Soak", MetricData=data)
        except Exception as e:
            if "LimitExceeded" in str(e):
                limited += 1
            else:
                problems.append("PutMetricData: %s" % e)
                break
    check_alive("series explosion")
    return limited


def start_emu():
    pf = os.path.join(a.tmp, "emu.port")
    if os.path.exists(pf):
        os.unlink(pf)
    p = subprocess.Popen([a.emu, "--port", "0", "--port-file", pf] + a.emu_args,
                         stdin=subprocess.DEVNULL, stdout=open(os.path.join(a.tmp, "emu.log"), "ab"),
                         stderr=subprocess.STDOUT, start_new_session=True,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1300, 1300)))
    for _ in range(200):
        if os.path.exists(pf) and os.path.getsize(pf):
            return p.pid, int(open(pf).read())
        if p.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError("the emulator did not restart on its state")


def kill9_rounds(rounds=8, per=5):
    acked, lost = [], 0
    for r in range(rounds):
        asg, _ = clients()
        for j in range(per):
            name = "k9-%d-%d" % (r, j)
            asg.create_launch_configuration(LaunchConfigurationName=name, ImageId="ami-12345678",
                                            InstanceType="m1.small")
            acked.append(name)
        state["probe"] = False
        os.killpg(state["pid"], signal.SIGKILL)
        while alive(state["pid"]):
            time.sleep(0.02)
        state["pid"], state["port"] = start_emu()
        time.sleep(0.3)
        state["probe"] = True
        asg, _ = clients()
        have = set()
        for page in asg.get_paginator("describe_launch_configurations").paginate():
            have.update(c["LaunchConfigurationName"] for c in page["LaunchConfigurations"])
        lost = len([n for n in acked if n not in have])
        if lost:
            problems.append("%d acknowledged launch configurations lost after kill -9" % lost)
            break
    return rounds, lost


th = threading.Thread(target=sampler, daemon=True)
th.start()
phase("baseline")
time.sleep(4)
phase("raw HTTP fuzz (1,000 cases)")
raw_fuzz()
phase("slowloris: 1,010 slow clients for 15 s")
slowloris()
phase("fd exhaustion: a second emulator, ulimit -n 200, 400 idle clients")
fd_cpu, fd_answer = fd_exhaustion()
phase("DesiredCapacity 10000, then 3 instances SIGSTOPped and ForceDelete")
cap_s, kids, stop_s = huge_capacity_and_stopped_instances()
phase("series explosion: 60 PutMetricData of 1,000 new series")
limited = series_explosion()
phase("kill -9 rounds under --state")
rounds, lost = kill9_rounds()
phase("cool down")
time.sleep(4)
state["stop"] = True
th.join(5)
probe_conn.send(None)
probe_proc.join(5)

rss_max = max(s[1] for s in samples) / 1024
fds_max = max(s[2] for s in samples)
probed = [s for s in samples if s[5]]
lat = sorted(s[4] if s[4] is not None else 5000.0 for s in probed)
p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else 0
failed_probes = sum(1 for s in probed if s[4] is None)
# CPU: the emulator's seconds over the run (across restarts: per-process deltas summed)
cpu_s, prev = 0.0, None
for s in samples:
    if prev and s[3] >= prev:
        cpu_s += s[3] - prev
    prev = s[3]
wall = time.time() - T0
worst = ""
for ph in dict.fromkeys(s[6] for s in probed):
    pl = sorted(s[4] if s[4] is not None else 5000.0 for s in probed if s[6] == ph)
    q = pl[min(len(pl) - 1, int(len(pl) * 0.99))]
    print("# soak: phase %-22s probes %3d p50 %6.1f ms p99 %7.1f ms max %7.1f ms"
          % (ph, len(pl), pl[len(pl) // 2], q, pl[-1]))
if rss_max > BOUNDS["rss_mb"]:
    problems.append("RSS %.0f MB over %d MB" % (rss_max, BOUNDS["rss_mb"]))
if p99 > BOUNDS["api_p99_ms"]:
    problems.append("API p99 %.0f ms over %d ms" % (p99, BOUNDS["api_p99_ms"]))
if fds_max >= 1300:
    problems.append("fd table full (%d)" % fds_max)
if a.fuzz_rc:
    problems.append("a libFuzzer target failed (rc %d, build-fuzz/fuzz/)" % a.fuzz_rc)
print("soak: %s %.0fs rss_max=%.0fMB fds_max=%d cpu=%.0f%% api_p50=%.1fms api_p99=%.1fms "
      "api_max=%.0fms probes=%d failed=%d fd_exhaustion_cpu=%.0f%% fd_answer=%.1fs "
      "capacity10000=%.2fs instances=%d stopped_gone=%.1fs limit_exceeded=%d kill9_rounds=%d "
      "crashes=%d lost=%d load=%.1f..%.1f%s"
      % ("PASS" if not problems else "FAIL", wall, rss_max, fds_max, cpu_s / wall * 100,
         lat[len(lat) // 2] if lat else 0, p99, lat[-1] if lat else 0, len(lat), failed_probes,
         fd_cpu, fd_answer, cap_s, kids, stop_s, limited, rounds, crashes, lost, LOAD0,
         os.getloadavg()[0],
         " [failed: %s]" % "; ".join(problems) if problems else ""))
sys.exit(1 if problems else 0)
