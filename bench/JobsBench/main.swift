// jobs-bench: what the job queue costs a worker, timed in one long-lived process.
//
//   jobs-bench queue LIBRARY [RUNS]         claim, then complete, with 10,000 jobs waiting;
//                                           floor: a one-row write (a progress report) on
//                                           the same catalog
//   jobs-bench wake LIBRARY CAMLIB [RUNS]   a `camlib worker` process left idle for 0.3–1 s,
//                                           then a job queued: until the worker says it
//                                           started it
//
// LIBRARY's catalog may be in its folder or on PostgreSQL (bench/jobs.py times both); it
// must hold at least one photo. Prints one JSON object per line:
// {"name", "runs", "p50_ms", "p95_ms"}. Used by bench/jobs.py; not part of camlib.
import Foundation
import Library
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["queue", "wake"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: jobs-bench queue LIBRARY [RUNS] | wake LIBRARY CAMLIB [RUNS]\n".utf8))
    exit(64)
}
let library = try PhotoLibrary(root: URL(fileURLWithPath: arguments[2]), mode: .write)
let photo = try library.assetIDs(matching: AssetQuery()).lazy.compactMap { id in
    (try? library.media(of: [id]))?[id]?.still.map { (asset: id, still: $0) }
}.first
guard let photo else {
    FileHandle.standardError.write(Data("jobs-bench: the library holds no photo\n".utf8))
    exit(65)
}

func report(_ name: String, _ times: [Double]) {
    let sorted = times.sorted()
    let p95 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)]
    let line = #"{"name": "\#(name)", "runs": \#(sorted.count), "p50_ms": \#(sorted[sorted.count / 2]), "p95_ms": \#(p95)}"#
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func milliseconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }

/// Claims, reports progress on (the floor: a one-row write) and completes `runs` jobs,
/// each step timed, and prints the three.
func timeQueue(runs: Int, claim: () throws -> JobLease?, progress: (JobLease, String) throws -> Void, complete: (JobLease) throws -> Void) throws {
    var claims: [Double] = [], completions: [Double] = [], floor: [Double] = []
    for _ in 0..<runs {
        var start = DispatchTime.now().uptimeNanoseconds
        guard let lease = try claim() else { fatalError("no job to claim") }
        claims.append(milliseconds(since: start))
        start = DispatchTime.now().uptimeNanoseconds
        try progress(lease, #"{"phase":"still"}"#)
        floor.append(milliseconds(since: start))
        start = DispatchTime.now().uptimeNanoseconds
        try complete(lease)
        completions.append(milliseconds(since: start))
    }
    report("claim", claims)
    report("complete", completions)
    report("floor: a one-row write", floor)
}

/// A preview job of the photo: once its preview exists, running one does next to nothing.
func previewJob() -> NewJob { NewJob(kind: .preview, asset: photo.asset, resource: photo.still) }

switch arguments[1] {
case "queue":
    let runs = arguments.count > 3 ? Int(arguments[3]) ?? 2000 : 2000
    // A backlog, as after a large import, of kinds this worker does not take.
    let backlog = 10_000
    for start in stride(from: 0, to: backlog, by: 1000) {
        _ = try library.enqueue((start..<min(backlog, start + 1000)).map { _ in NewJob(kind: .auxPNG, asset: photo.asset, resource: photo.still) })
    }
    _ = try library.enqueue((0..<runs).map { _ in previewJob() })
    try timeQueue(runs: runs, claim: { try library.claimJob(kinds: [.preview]) }, progress: { _ = try library.reportProgress($0, $1) },
                  complete: { try library.completeJob($0) })
    _ = try library.cancelJobs(try library.jobQueueStatus(failedLimit: 0).running.map(\.id))

case "wake":
    let camlib = arguments[3]
    let runs = arguments.count > 4 ? Int(arguments[4]) ?? 40 : 40
    let worker = Process()
    worker.executableURL = URL(fileURLWithPath: camlib)
    worker.arguments = ["worker", "--library", arguments[2], "--kinds", "preview", "--jobs", "1", "--json"]
    let pipe = Pipe()
    worker.standardOutput = pipe
    worker.standardError = FileHandle.nullDevice
    try worker.run()
    // When each job's "started" line arrived, and which jobs are done.
    let started = Mutex<[Int64: UInt64]>([:])
    let done = Mutex<Set<Int64>>([])
    let reader = Thread {
        var buffer = Data()
        while true {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            let arrived = DispatchTime.now().uptimeNanoseconds
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                guard let event = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                    let job = (event["job"] as? NSNumber)?.int64Value
                else { continue }
                switch event["event"] as? String {
                case "started": started.withLock { $0[job] = arrived }
                case "done", "failed": _ = done.withLock { $0.insert(job) }
                default: break
                }
            }
        }
    }
    reader.start()
    func waitFor(_ job: Int64) {
        let end = Date().addingTimeInterval(60)
        while !done.withLock({ $0.contains(job) }) {
            guard Date() < end else { fatalError("job \(job) was not done in 60 s") }
            usleep(1000)
        }
    }
    // The first makes the preview; the others find it made.
    waitFor(try library.enqueue([previewJob()])[0])
    var waits: [Double] = []
    for _ in 0..<runs {
        usleep(UInt32.random(in: 300_000...1_000_000))
        let start = DispatchTime.now().uptimeNanoseconds
        let job = try library.enqueue([previewJob()])[0]
        waitFor(job)
        guard let arrived = started.withLock({ $0[job] }) else { fatalError("no start of job \(job)") }
        waits.append(Double(arrived - start) / 1e6)
    }
    report("idle worker to job started", waits)
    worker.terminate()
    worker.waitUntilExit()

default:
    exit(64)
}
