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


PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def tree_rss_kb(pid):
    """Resident set size of pid and all its descendants, in KB. Follows each thread's
    /proc/PID/task/TID/children (a worker may be started by any thread) rather than
    listing all of /proc: a sample costs about a tenth as much, which matters when it
    runs every 10 ms beside a command that keeps both cores busy."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * PAGE_KB
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            pass  # the process (or thread) ended meanwhile
    return total


def measure(cmd, sample=True):
    """(seconds, peak RSS in MB, exit status) of a command, output discarded.
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
        return time.perf_counter() - start, usage.ru_maxrss / 1024, proc.returncode
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss_kb(proc.pid))
        time.sleep(0.01)
    return time.perf_counter() - start, peak / 1024, proc.returncode
