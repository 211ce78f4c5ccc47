"""Shared by the benchmarks: a release build of camlib, and timing a command with the
peak resident memory of its whole process tree (camlib analyses in worker processes)."""
import json, os, shutil, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_camlib():
    """Builds camlib in release mode and returns the executable's path."""
    print("bench: building camlib (release)...", file=sys.stderr)
    subprocess.run(["swift", "build", "-c", "release", "--product", "camlib"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build", "release", "camlib")


PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def tree_sum(pid, read):
    """The sum of read(p) over pid and all its descendants p. Follows each thread's
    /proc/PID/task/TID/children (a worker may be started by any thread) rather than
    listing all of /proc: a sample costs about a tenth as much, which matters when it
    runs every 10 ms beside a command that keeps both cores busy."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += read(p)
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            pass  # the process (or thread) ended meanwhile
    return total


def tree_rss_kb(pid):
    """Resident set size of pid and all its descendants, in KB."""
    def rss(p):
        with open(f"/proc/{p}/statm") as f:
            return int(f.read().split()[1]) * PAGE_KB
    return tree_sum(pid, rss)


def tree_cpu_seconds(pid):
    """CPU seconds (user and system) of pid and all its descendants so far: the living
    ones' own, and those of children they have reaped."""
    tick = os.sysconf("SC_CLK_TCK")

    def cpu(p):
        with open(f"/proc/{p}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(v) for v in fields[11:15]) / tick  # utime stime cutime cstime
    return tree_sum(pid, cpu)


def measure(cmd, sample=True, cpu=False):
    """(seconds, peak RSS in MB, exit status) of a command, output discarded; with
    cpu=True (and sample=False) a fourth figure, the CPU seconds (user and system) of the
    command and every process it waited for.
    sample=True: the peak is of the whole process tree (worker processes added up),
    sampled every 10 ms. sample=False: nothing watches the command, and the peak is the
    kernel's high-water mark of its largest process (exact for a command that works in
    one process): for timings on a machine whose cores the command keeps busy, where the
    sampling costs a few percent, and more the more threads the command runs (it reads
    every thread's children)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not sample:
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        measured = (time.perf_counter() - start, usage.ru_maxrss / 1024, proc.returncode)
        return measured + (usage.ru_utime + usage.ru_stime,) if cpu else measured
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss_kb(proc.pid))
        time.sleep(0.01)
    return time.perf_counter() - start, peak / 1024, proc.returncode


class Results:
    """What one run of a benchmark measured, kept as data: `bench/results/NAME.json`,
    committed, from which `bench/report.py` makes the tables of docs/performance.md.
    Each row is one measure: camlib's figure, and the peer's or the floor's from the
    same run when there is one, the goal and whether it was met."""

    def __init__(self, name, title):
        self.name, self.title, self.rows, self.notes = name, title, [], []

    def add(self, measure, camlib, unit, peer=None, peer_name=None, goal=None, met=None):
        row = {"measure": measure, "camlib": round(camlib, 4), "unit": unit}
        if peer is not None:
            row.update(peer=round(peer, 4), peerName=peer_name, ratio=round(camlib / peer, 3) if peer else None)
        if goal is not None:
            row.update(goal=goal, met=bool(met))
        self.rows.append(row)

    def note(self, text):
        self.notes.append(text)

    def write(self):
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        model = ""
        try:
            with open("/proc/cpuinfo") as f:
                model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
        except OSError:
            pass
        data = {
            "benchmark": self.name, "title": self.title,
            "date": time.strftime("%Y-%m-%d", time.gmtime()), "commit": commit,
            "command": "bench/" + os.path.basename(sys.argv[0]) + "".join(" " + a for a in sys.argv[1:]),
            "machine": {"cores": os.cpu_count(), "cpu": model},
            "rows": self.rows, "notes": self.notes,
        }
        folder = os.path.join(ROOT, "bench", "results")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, self.name + ".json")
        with open(path + ".part", "w") as f:
            json.dump(data, f, indent=2, ensure_ascii=False)
            f.write("\n")
        os.replace(path + ".part", path)
        print(f"bench: results in {os.path.relpath(path, ROOT)}; bench/report.py puts them into docs/performance.md", file=sys.stderr)


class PostgresCluster:
    """A private PostgreSQL cluster for a benchmark, as the tests make theirs: initdb (as the
    postgres user when run as root), a unix socket in its folder only. Unlike the tests'
    clusters it keeps PostgreSQL's durable defaults (fsync, synchronous commit), as a
    user's server has them. `folder`: a folder kept between runs (made when missing;
    `stop()` leaves it); without one, a temporary folder that `stop()` removes.
    `settings`: server settings for this start, e.g. {"shared_buffers": "4GB"}."""

    def __init__(self, folder=None, settings=None):
        import glob, tempfile
        versions = sorted(int(os.path.basename(p)) for p in glob.glob("/usr/lib/postgresql/*") if os.path.basename(p).isdigit())
        if not versions or versions[-1] < 15:
            raise SystemExit("bench: PostgreSQL 15 or newer is not installed (./setup.sh installs Debian's postgresql)")
        self.bin = f"/usr/lib/postgresql/{versions[-1]}/bin"
        self.kept = folder is not None
        if folder is None:
            folder = tempfile.mkdtemp(prefix="camlib-bench-pg-")
        self.folder = os.path.abspath(folder)
        os.makedirs(self.folder, exist_ok=True)
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if os.getuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        data = os.path.join(self.folder, "data")
        if not os.path.exists(os.path.join(data, "PG_VERSION")):
            subprocess.run([*self.as_postgres, f"{self.bin}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
                            "--no-locale"], check=True, capture_output=True)
        subprocess.run([*self.as_postgres, f"{self.bin}/pg_ctl", "-D", data, "-w", "-t", "300", "-l", os.path.join(self.folder, "log"),
                        "-o", f"-k {self.folder} -c listen_addresses=''" + "".join(f" -c {k}={v}" for k, v in (settings or {}).items()),
                        "start"], check=True, capture_output=True)
        self.databases = 0

    def psql(self, sql, database="postgres"):
        """Runs SQL as the superuser; returns its unaligned output."""
        return subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", self.folder, "-U", "postgres", "-d",
                               database, "-c", sql], check=True, capture_output=True, text=True).stdout.strip()

    def url(self, name):
        return f"postgresql://postgres@/{name}?host={self.folder}"

    def createdb(self, name=None, template=None):
        """A new database (a copy of `template` when given): its URL."""
        if name is None:
            self.databases += 1
            name = f"bench_{self.databases}"
        self.psql(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
        return self.url(name)

    def prewarm(self, name):
        """Reads every table and index of database `name` into the server's shared
        buffers (pg_prewarm), as a catalog in use sits there."""
        self.psql("CREATE EXTENSION IF NOT EXISTS pg_prewarm", name)
        self.psql("SELECT sum(pg_prewarm(c.oid)) FROM pg_class c WHERE c.relkind IN ('r', 'i', 'm') "
                  "AND c.relnamespace = 'public'::regnamespace", name)

    def dropdb(self, name):
        self.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self):
        subprocess.run([*self.as_postgres, f"{self.bin}/pg_ctl", "-D", os.path.join(self.folder, "data"), "-m", "fast", "-w", "stop"],
                       capture_output=True)
        if not self.kept:
            shutil.rmtree(self.folder, ignore_errors=True)


class PgBouncer:
    """Debian's PgBouncer in front of `cluster`, as the sharing guide sets it up: session
    pooling, a unix socket in a folder of its own (`cluster.folder`/pgbouncer), trusting
    the cluster's superuser. Run as the postgres user when run as root (PgBouncer
    refuses root)."""

    port = 6432

    def __init__(self, cluster):
        if not shutil.which("pgbouncer") and not os.path.exists("/usr/sbin/pgbouncer"):
            raise SystemExit("bench: PgBouncer is not installed (./setup.sh installs Debian's pgbouncer)")
        self.folder = os.path.join(cluster.folder, "pgbouncer")
        shutil.rmtree(self.folder, ignore_errors=True)
        os.makedirs(self.folder)
        with open(os.path.join(self.folder, "pgbouncer.ini"), "w") as f:
            f.write(f"[databases]\n* = host={cluster.folder}\n[pgbouncer]\nlisten_addr =\nlisten_port = {self.port}\n"
                    f"unix_socket_dir = {self.folder}\nauth_type = trust\nauth_file = {self.folder}/users.txt\n"
                    f"pool_mode = session\nlogfile = {self.folder}/log\npidfile = {self.folder}/pid\n")
        with open(os.path.join(self.folder, "users.txt"), "w") as f:
            f.write('"postgres" ""\n')
        if os.getuid() == 0:
            subprocess.run(["chown", "-R", "postgres:postgres", self.folder], check=True)
        subprocess.run([*cluster.as_postgres, shutil.which("pgbouncer") or "/usr/sbin/pgbouncer", "-d",
                        os.path.join(self.folder, "pgbouncer.ini")], check=True, capture_output=True)
        deadline = time.time() + 10
        while not os.path.exists(os.path.join(self.folder, f".s.PGSQL.{self.port}")):
            if time.time() > deadline:
                raise SystemExit(f"bench: PgBouncer did not start: {open(os.path.join(self.folder, 'log')).read()}")
            time.sleep(0.02)

    def url(self, name):
        return f"postgresql://postgres@/{name}?host={self.folder}&port={self.port}"

    def stop(self):
        """Stops PgBouncer, closing its server connections, and waits until it is gone."""
        try:
            pid = int(open(os.path.join(self.folder, "pid")).read())
            os.kill(pid, 15)
            for _ in range(500):
                os.kill(pid, 0)
                time.sleep(0.01)
        except (OSError, ValueError):
            pass
