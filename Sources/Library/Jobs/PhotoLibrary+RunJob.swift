import Codecs
import Containers
import Filters
import Foundation
import Imaging

/// Why a job's attempt failed: the message names the asset and the file; `retry` is
/// false when another attempt cannot change the outcome: the asset or file is gone, or a
/// decoder refused the file (it will again). A read that failed (EIO, a network mount
/// gone) is tried again, and so is a crash, which the process running the job did not
/// survive to judge.
public struct JobFailure: Error, CustomStringConvertible {
    public let message: String
    public let retry: Bool
    /// The lease was lost before the work was recorded: nothing was.
    public var leaseLost = false
    public var description: String { message }
}

/// What a render job is asked to do (its `arguments`).
public struct RenderJobArguments: Codable, Sendable, Equatable {
    /// The filters, as `camlib edit --filter` takes them.
    public var steps: [String]
    /// After the current edit's steps (`--add-filter`), or from the original.
    public var extending: Bool

    public init(steps: [FilterStep], extending: Bool) {
        self.steps = steps.map(\.description)
        self.extending = extending
    }

    public var json: String { String(decoding: try! JobResultJSON.encoder.encode(self), as: UTF8.self) }
}

/// What a done render job records in its `result`, in the transaction of its rows: the
/// adjustment it made, its files (absolute paths, as the worker saw them) and warnings.
public struct RenderJobResult: Codable, Sendable, Equatable {
    public var adjustmentId: Int64?
    public var renders: [String]?
    public var warnings: [String]?

    init(_ result: EditResult) {
        (adjustmentId, renders, warnings) = (result.adjustmentID, result.renders, result.warnings.isEmpty ? nil : result.warnings)
    }

    /// A job's `result`, read; nil when it holds none (a job done before results were kept).
    public init?(_ text: String?) {
        guard let text, let result = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else { return nil }
        self = result
    }

    var json: String { String(decoding: try! JobResultJSON.encoder.encode(self), as: UTF8.self) }
}

extension PhotoLibrary {
    /// Does the work of a claimed job and records it, only while the lease is still this
    /// worker's (else ``LeaseLost`` is thrown and nothing is recorded). A failure is
    /// thrown as ``JobFailure``. Returns the job's warnings.
    ///
    /// Derived files are named by what they are made from, so a file already in place
    /// was made by another worker (or an earlier attempt): that is the work done.
    public func runJob(_ lease: JobLease, progress: @escaping (String) -> Void = { _ in }) throws -> [String] {
        let job = lease.job
        let file = try? catalog.read { db in try job.resource.flatMap { try ResourceRecord.find($0, db)?.path } }
        func failure(_ error: Error) -> JobFailure {
            if let lost = error as? LeaseLost { return JobFailure(message: lost.description, retry: false, leaseLost: true) }
            if let failure = error as? JobFailure { return failure }
            let what = "\(job.kind.noun) of asset \(job.asset)" + (file.map { " (\($0))" } ?? "")
            switch error {
            case DisplayError.notFound(let reason): return JobFailure(message: "\(what): \(reason)", retry: false)
            case DisplayError.cannotMake(_, _, _, let reason): return JobFailure(message: "\(what): \(reason)", retry: false)
            case LibraryError.assetNotFound, LibraryError.inTrash: return JobFailure(message: "\(what): \(error)", retry: false)
            case let e as EditError: return JobFailure(message: "render of \(e.description)", retry: false)
            case let e as FilterError: return JobFailure(message: "\(what): \(e.description)", retry: false)
            case is LibraryError, is CocoaError, is POSIXError: return JobFailure(message: "\(what): \(MediaAnalyzer.describe(error))", retry: true)
            default: return JobFailure(message: "\(what): \(MediaAnalyzer.describe(error))", retry: false)
            }
        }
        do {
            switch job.kind {
            case .thumbnail:
                try makeThumbnail(lease)
                return []
            case .preview, .proxy:
                guard let resource = job.resource else { throw DisplayError.notFound("the job names no file") }
                _ = try displayFile(asset: job.asset, resource: resource, kind: job.kind == .preview ? .preview : .movie)
                try completeJob(lease)
                return []
            case .auxPNG:
                struct Arguments: Decodable { var type: String }
                guard let resource = job.resource, let type = (try? JSONDecoder().decode(Arguments.self, from: Data(job.arguments.utf8)))
                    .flatMap({ AuxiliaryImageType(rawValue: $0.type) })
                else { throw DisplayError.notFound("the job names no file or auxiliary image type") }
                _ = try auxiliaryFile(asset: job.asset, resource: resource, type: type)
                try completeJob(lease)
                return []
            case .render:
                return try render(lease, progress: progress)
            case .repair:
                try repairAsset(lease)
                return []
            case .place:
                try namePlaces(lease)
                return []
            }
        } catch {
            throw failure(error)
        }
    }

    /// A thumbnail of the job's still or movie, recorded as its `thumbnail` resource.
    private func makeThumbnail(_ lease: JobLease) throws {
        let job = lease.job
        guard let resource = job.resource else { throw DisplayError.notFound("the job names no file") }
        let (found, existing) = try catalog.read { db in
            (try ResourceRecord.fetchShowable(asset: job.asset, resource: resource, db), try ResourceRecord.fetchThumbnail(of: resource, db))
        }
        guard let source = found else { throw DisplayError.notFound("the asset has no photo or movie \(resource)") }
        if existing != nil { return try completeJob(lease) }
        let path = try file(source.path, of: job.asset).path
        let isMovie = [.pairedVideo, .video, .renderedVideo].contains(source.role)
        // Made as the import's analysis makes one (the same bytes whoever makes it, and
        // `repair` too): a still's embedded thumbnail when large enough, else its picture.
        let pixels: (PixelBuffer<UInt8>, String)
        if isMovie {
            pixels = (try DisplayRendering.posterFrame(path: path, maxSide: MediaAnalyzer.thumbnailSide), "decoded")
        } else {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped))
            guard let format = MediaFormat.sniff(Array(bytes.prefix(4096))), format.isStill else {
                throw MediaAnalyzer.Failure(reason: "its first bytes are not a still camlib reads")
            }
            pixels = try MediaAnalyzer.readStill(format: format, bytes: bytes).1!
        }
        let staged = try MediaAnalyzer.writeThumbnail(pixels, in: temporary)
        try AtomicFile.makeDurable([staged.temporaryPath])
        let destination = layout.thumbnail(of: source.sha256)
        try AtomicFile.publishIfAbsent(URL(fileURLWithPath: staged.temporaryPath), to: destination)
        // The file in place may be another worker's (or an earlier attempt's): its bytes.
        let sha256 = try FileReading.sha256(of: destination.path)
        let bytes = (try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int64) ?? staged.bytes
        try completeJob(lease) { db in
            guard try ResourceRecord.fetchThumbnail(of: resource, db) == nil else { return }
            var row = ResourceRecord(
                id: nil, assetId: job.asset, role: .thumbnail, path: relative(destination), sha256: sha256, bytes: bytes, mime: "image/jpeg",
                derivedFrom: resource, originalName: nil, sourceDir: nil, addedAt: utcNow())
            try db.insert(&row)
        }
    }

    /// An edit: the recipe rendered and recorded as the asset's current version, in one
    /// transaction with the job's completion.
    private func render(_ lease: JobLease, progress: @escaping (String) -> Void) throws -> [String] {
        let job = lease.job
        let arguments: RenderJobArguments
        do {
            arguments = try JSONDecoder().decode(RenderJobArguments.self, from: Data(job.arguments.utf8))
        } catch {
            throw JobFailure(message: "render of asset \(job.asset): its arguments are not a recipe (\(job.arguments))", retry: false)
        }
        let steps = try arguments.steps.map(FilterStep.init(parsing:))
        let result = try edit(
            asset: job.asset, steps: steps, extending: arguments.extending,
            progress: { step in
                switch step {
                case .still: progress(#"{"phase":"still"}"#)
                case .movieFrames(let done, let expected): progress(#"{"phase":"movie","framesDone":\#(done),"framesExpected":\#(expected)}"#)
                }
            },
            fence: { db, result in
                try JobRecord.complete(job.id, token: lease.token, db)
                try JobRecord.setResult(RenderJobResult(result).json, of: job.id, db)
            })
        return result.warnings
    }
}
