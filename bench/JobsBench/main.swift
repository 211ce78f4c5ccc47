// jobs-bench: what the job queue costs a worker, timed in one long-lived process.
//
//   jobs-bench queue LIBRARY [RUNS]         claim, then complete, with 10,000 jobs waiting;
//                                           floor: a one-row write transaction (a progress
//                                           report) on the same catalog
//   jobs-bench wake LIBRARY CAMLIB [RUNS]   a `camlib worker` process left idle for 0.3–1 s,
//                                           then a job queued: until the worker says it
//                                           started it
//   jobs-bench queue-postgres LIBRARY URL [RUNS]
//                                           the same claim and complete on a PostgreSQL
//                                           catalog (LIBRARY's copied into the empty
//                                           database URL), its floor the same one-row write
//   jobs-bench wake-postgres LIBRARY URL [RUNS]
//                                           an idle listener (LISTEN) woken by a job queued
//                                           after 0.3–1 s: from the enqueue until the
//                                           listener returns (camlib worker does not run on
//                                           a PostgreSQL catalog yet); URL: the database
//                                           queue-postgres filled
//
// LIBRARY must hold at least one photo. Prints one JSON object per line:
// {"name", "runs", "p50_ms", "p95_ms"}. Used by bench/jobs.py; not part of camlib.
import Foundation
import Library
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["queue", "wake", "queue-postgres", "wake-postgres"].contains(arguments[1]) else {
    FileHandle.standardError.write(
        Data("usage: jobs-bench queue LIBRARY [RUNS] | wake LIBRARY CAMLIB [RUNS] | queue-postgres LIBRARY URL [RUNS] | wake-postgres LIBRARY URL [RUNS]\n".utf8))
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
    report("floor: a one-row write transaction", floor)
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

case "queue-postgres":
    let catalog = try PostgresCatalog(location: PostgresLocation(url: arguments[3]))
    _ = try catalog.copy(from: library.catalog)
    let runs = arguments.count > 4 ? Int(arguments[4]) ?? 2000 : 2000
    let backlog = 10_000
    for start in stride(from: 0, to: backlog, by: 1000) {
        _ = try catalog.enqueue((start..<min(backlog, start + 1000)).map { _ in NewJob(kind: .auxPNG, asset: photo.asset, resource: photo.still) })
    }
    _ = try catalog.enqueue((0..<runs).map { _ in previewJob() })
    try timeQueue(runs: runs, claim: { try catalog.claimJob(kinds: [.preview]) }, progress: { _ = try catalog.reportProgress($0, $1) },
                  complete: { try catalog.completeJob($0) })
    catalog.close()

case "wake-postgres":
    let location = try PostgresLocation(url: arguments[3])
    let catalog = try PostgresCatalog(location: location)
    let listener = try PostgresJobListener(location)
    let runs = arguments.count > 4 ? Int(arguments[4]) ?? 40 : 40
    var waits: [Double] = []
    for _ in 0..<runs {
        usleep(UInt32.random(in: 300_000...1_000_000))
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try catalog.enqueue([NewJob(kind: .thumbnail, asset: photo.asset, resource: photo.still)])
        guard listener.wait(timeout: 10) else { fatalError("no notification within 10 s") }
        waits.append(milliseconds(since: start))
    }
    report("idle listener woken by a queued job", waits)
    listener.close()
    catalog.close()

default:
    exit(64)
}
