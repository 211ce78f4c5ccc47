#!/usr/bin/env python3
"""Puts the benchmarks' latest results (bench/results/*.json, which each benchmark writes
when it ends) into docs/performance.md, between its `<!-- results -->` and
`<!-- /results -->` lines: one table per benchmark, with the date, the commit and the
machine of its run.

Usage: bench/report.py           rewrite docs/performance.md
       bench/report.py --check   exit 1 when docs/performance.md differs from the results
"""
import glob, json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "performance.md")
BEGIN, END = "<!-- results -->", "<!-- /results -->"
ORDER = ["import", "jobs", "query", "gallery", "edit", "aux", "capture"]


def number(value, unit):
    if value is None:
        return "–"
    if unit == "listings":  # a count
        return f"{value:.0f} {unit}"
    if unit in ("x", "SSIM"):
        return f"{value:.2f}x" if unit == "x" else f"{value:.4f}"
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
    return f"{value:,.{digits}f} {unit}"


def table(result):
    lines = [f"### {result['title']}", "",
             f"`{result['command']}` on {result['date']}, commit `{result['commit']}`, "
             f"{result['machine']['cores']} cores ({result['machine']['cpu'] or 'unknown processor'})."]
    for note in result.get("notes", []):
        lines.append(f"{note[0].upper()}{note[1:]}.")
    lines += ["", "| measure | camlib | peer or floor | ratio | goal |", "| --- | --- | --- | --- | --- |"]
    for row in result["rows"]:
        unit = row["unit"]
        peer = f"{number(row['peer'], unit)} ({row['peerName']})" if "peer" in row else "–"
        ratio = f"{row['ratio']:.2f}x" if row.get("ratio") is not None else "–"
        goal = f"{row['goal']}: {'met' if row['met'] else '**not met**'}" if "goal" in row else "–"
        lines.append(f"| {row['measure']} | {number(row['camlib'], unit)} | {peer} | {ratio} | {goal} |")
    return "\n".join(lines)


def section():
    results = []
    for path in glob.glob(os.path.join(ROOT, "bench", "results", "*.json")):
        with open(path) as f:
            results.append(json.load(f))
    results.sort(key=lambda r: (ORDER.index(r["benchmark"]) if r["benchmark"] in ORDER else len(ORDER), r["benchmark"]))
    body = "\n\n".join(table(r) for r in results) if results else "No results yet: run the benchmarks."
    return f"{BEGIN}\n<!-- made by bench/report.py from bench/results/*.json: do not edit by hand -->\n\n{body}\n\n{END}"


def main():
    with open(PAGE) as f:
        page = f.read()
    if BEGIN not in page or END not in page:
        sys.exit(f"bench/report.py: {PAGE} has no {BEGIN} … {END} lines")
    start, end = page.index(BEGIN), page.index(END) + len(END)
    updated = page[:start] + section() + page[end:]
    if "--check" in sys.argv[1:]:
        if updated != page:
            sys.exit("docs/performance.md is not what bench/results/*.json say: run bench/report.py")
        return
    with open(PAGE, "w") as f:
        f.write(updated)


if __name__ == "__main__":
    main()
