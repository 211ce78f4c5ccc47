"""Shared by the benchmarks: a release build of camlib, and timing a command with the
peak resident memory of its whole process tree (camlib analyses in worker processes)."""
import os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_camlib():
    """Builds camlib in release mode and returns the executable's path."""
    print("bench: building camlib (release)...", file=sys.stderr)
    subprocess.run(["swift", "build", "-c", "release", "--product", "camlib"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build", "release", "camlib")


def tree_rss_kb(pid):
    """Resident set size of pid and all its descendants, in KB."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            children.setdefault(ppid, []).append(int(entry))
        except (OSError, ValueError):
            pass
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
        todo.extend(children.get(p, []))
    return total


def measure(cmd):
    """(seconds, peak tree RSS in MB, exit status) of a command, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss_kb(proc.pid))
        time.sleep(0.01)
    return time.perf_counter() - start, peak / 1024, proc.returncode
