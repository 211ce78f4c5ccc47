import Containers
import Foundation
import GRDB

/// `camlib export`: assets out of the library as files other tools understand and that
/// `camlib import` turns back into the same asset.
///
/// Per asset, under one stem:
/// - the original(s), byte for byte: the still, and a Live Photo's movie renamed to the
///   still's stem (its content identifier already matches); a video's movie;
/// - unless `originalOnly`, when the current version is an edit: its render as
///   `STEM_E.ext`-style Apple name (`IMG_E1234.HEIC`, or `<stem>_E.heic` for other names)
///   and `<stem>.camlib.json`, the adjustment history, which import reads back; an Apple
///   edit's `.AAE` sidecars go along as they are.
public enum Exporter {
    public struct Exported: Codable, Sendable {
        public var asset: Int64
        public var files: [String]
        public var problem: String?

        public init(asset: Int64, files: [String], problem: String? = nil) {
            (self.asset, self.files, self.problem) = (asset, files, problem)
        }
    }

    /// The sidecar that carries camlib's adjustment history.
    public struct HistorySidecar: Codable, Sendable, Equatable {
        public static let suffix = ".camlib.json"
        public var format = "org.camlib.history"
        public var version = 1
        /// sha256 of the original still the history applies to.
        public var original: String
        public var adjustments: [AssetDescription.Adjustment]
    }

    /// The name of a render next to an original named `stem`: Apple's `IMG_E1234` for
    /// `IMG_1234`, `stem_E` otherwise.
    public static func renderStem(for stem: String) -> String { variant(of: stem, letter: "E") }

    /// Apple's names beside `IMG_1234`: `IMG_E1234` (a render), `IMG_O1234` (the camera's
    /// adjustments); `stem_E`, `stem_O` for other names.
    static func variant(of stem: String, letter: Character) -> String {
        if let underscore = stem.lastIndex(of: "_") {
            let digits = stem[stem.index(after: underscore)...]
            if !digits.isEmpty, digits.allSatisfy(\.isNumber) { return String(stem[...underscore]) + String(letter) + digits }
        }
        return stem + "_" + String(letter)
    }

    /// Where and under what names `export` writes: `--folder` and `--filename` templates.
    public struct Naming: Sendable {
        public var folder: ExportTemplate?
        public var filename: ExportTemplate?
        public init(folder: ExportTemplate? = nil, filename: ExportTemplate? = nil) { (self.folder, self.filename) = (folder, filename) }
    }

    /// Writes the asset's files into `folder` and returns them (those there already
    /// included). With `dryRun`, writes nothing and returns the files it would write.
    /// Files written get the asset's capture time as their modification time, as
    /// osxphotos does, so a folder sorts by when the photos were taken.
    public static func export(
        _ asset: AssetDescription, from library: PhotoLibrary, to base: URL, originalOnly: Bool, naming: Naming = Naming(), dryRun: Bool = false
    ) throws -> [String] {
        guard let primary = asset.primaryOriginal else { throw LibraryError.assetNotFound("\(asset.id) with an original") }
        let originalStem = URL(fileURLWithPath: primary.originalName ?? primary.path).deletingPathExtension().lastPathComponent
        let stem = naming.filename.map { ExportTemplate.safe($0.render(asset, name: originalStem)) } ?? originalStem
        var folder = base
        if let template = naming.folder {
            for part in template.render(asset, name: originalStem).split(separator: "/") where part != "." && part != ".." {
                folder.appendPathComponent(String(part))
            }
            if !dryRun { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        }
        /// A sidecar's name: its own, or under a --filename template the new stem's
        /// (IMG_O1234.aae beside IMG_1234 keeps its O).
        func sidecarName(_ r: AssetDescription.Resource) -> String {
            let own = URL(fileURLWithPath: r.originalName ?? r.path)
            guard naming.filename != nil else { return own.lastPathComponent }
            let ownStem = own.deletingPathExtension().lastPathComponent
            let newStem = ownStem == originalStem ? stem : ownStem == variant(of: originalStem, letter: "O") ? variant(of: stem, letter: "O") : ownStem
            return newStem + (own.pathExtension.isEmpty ? "" : "." + own.pathExtension)
        }
        // Originals, the Live Photo movie under the still's stem.
        var plan: [(source: AssetDescription.Resource, name: String)] = []
        func ext(_ r: AssetDescription.Resource) -> String { URL(fileURLWithPath: r.originalName ?? r.path).pathExtension }
        for r in asset.resources where r.role == .photo || r.role == .video || (r.role == .pairedVideo && asset.kind == .live) {
            plan.append((r, "\(stem).\(ext(r))"))
        }
        if !originalOnly {
            // The current edit's render (none when the original is current).
            if asset.adjustments.contains(where: \.current) {
                for r in asset.resources where r.role == .renderedPhoto || r.role == .renderedVideo {
                    plan.append((r, "\(renderStem(for: stem)).\(URL(fileURLWithPath: r.path).pathExtension)"))
                }
            }
            // Apple's sidecars (IMG_1234.AAE, IMG_O1234.AAE) always: they are Apple's edit
            // history, which importing the export restores, whatever edit is current.
            for r in asset.resources where r.role == .adjustmentSidecar {
                // Its own name, as a name only: never a path out of the folder.
                plan.append((r, sidecarName(r)))
            }
        }
        var history: [UInt8]?
        if !originalOnly, let photo = asset.resources.first(where: { $0.role == .photo }) {
            let adjustments = asset.adjustments.filter { $0.formatIdentifier == CamlibAdjustment.formatIdentifier }
            if !adjustments.isEmpty {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                history = [UInt8](try encoder.encode(HistorySidecar(original: photo.sha256, adjustments: adjustments)))
            }
        }
        // One stem for every file: the first of stem, stem-2, … whose names are free or
        // hold these very bytes already (an earlier export of the asset, whole or cut
        // short): that is completed, never copied again as -2, and nothing is overwritten.
        let fm = FileManager.default
        func holds(_ url: URL, bytes: Int64, sha256: @autoclosure () -> String) -> Bool {
            guard let size = (try? fm.attributesOfItem(atPath: url.path))?[.size] as? Int64, size == bytes else { return false }
            return (try? FileReading.sha256(of: url.path)) == sha256()
        }
        var suffix = ""
        var present: Set<String> = []
        for n in 1...10_000 {
            suffix = n == 1 ? "" : "-\(n)"
            present = []
            var usable = true
            for (source, name) in plan {
                let url = folder.appendingPathComponent(rename(name, stem: stem, suffix: suffix))
                guard fm.fileExists(atPath: url.path) else { continue }
                if holds(url, bytes: source.bytes, sha256: source.sha256) { present.insert(url.path) } else { usable = false; break }
            }
            if usable, let history {
                let url = folder.appendingPathComponent("\(stem)\(suffix)\(HistorySidecar.suffix)")
                if fm.fileExists(atPath: url.path) {
                    if (try? Data(contentsOf: url)).map({ [UInt8]($0) == history }) == true { present.insert(url.path) } else { usable = false }
                }
            }
            if usable { break }
        }
        if dryRun {
            var names = plan.map { folder.appendingPathComponent(rename($0.name, stem: stem, suffix: suffix)).path }
            if history != nil { names.append(folder.appendingPathComponent("\(stem)\(suffix)\(HistorySidecar.suffix)").path) }
            return names.filter { !present.contains($0) }
        }
        var files: [String] = []
        var written: [String] = []
        let taken = fileTime(asset.capturedAt)
        defer { if let taken { for path in written { try? fm.setAttributes([.modificationDate: taken], ofItemAtPath: path) } } }
        do {
            for (source, name) in plan {
                let destination = folder.appendingPathComponent(rename(name, stem: stem, suffix: suffix))
                files.append(destination.path)
                guard !present.contains(destination.path) else { continue }
                try copy(source, of: asset.id, to: destination)
                written.append(destination.path)
            }
            if let history {
                let destination = folder.appendingPathComponent("\(stem)\(suffix)\(HistorySidecar.suffix)")
                files.append(destination.path)
                if !present.contains(destination.path) {
                    try AtomicFile.write(history, to: destination, overwrite: false)
                    written.append(destination.path)
                }
            }
        } catch {
            // An asset is exported whole or not at all: what this run wrote goes.
            for path in written { unlink(path) }
            throw error
        }
        return files
    }

    /// When the asset was taken, as a moment: a time without a UTC offset is read in this
    /// machine's time zone, as the camera's clock showed it.
    static func fileTime(_ capturedAt: String?) -> Date? {
        guard let text = capturedAt, let time = CaptureTime(iso8601: text) else { return nil }
        var seconds = time.secondsSinceEpoch
        if time.utcOffsetMinutes == nil { seconds -= Double(TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: seconds))) }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Temporary files an export killed half-way left in `folder` (`PID-UUID.part`, the
    /// process gone): deleted before exporting there again.
    public static func removeAbandonedTemporaries(in folder: URL) {
        AtomicFile.removeAbandonedTemporaries(in: folder)
    }

    /// `IMG_1234.HEIC` with suffix "-2" → `IMG_1234-2.HEIC`; render names keep their E.
    static func rename(_ name: String, stem: String, suffix: String) -> String {
        guard !suffix.isEmpty else { return name }
        let url = URL(fileURLWithPath: name)
        let base = url.deletingPathExtension().lastPathComponent
        let ext = url.pathExtension
        return base + suffix + (ext.isEmpty ? "" : ".\(ext)")
    }

    /// A byte-for-byte copy through a temporary file beside the destination, never
    /// replacing an existing file, and only of the bytes the catalog recorded: a file
    /// changed or damaged in the library is refused, not handed on.
    static func copy(_ source: AssetDescription.Resource, of asset: Int64, to destination: URL) throws {
        let temporary = try AtomicFile.copyToTemporary(from: URL(fileURLWithPath: source.path), in: destination.deletingLastPathComponent(), readOnly: false)
        defer { unlink(temporary.url.path) }
        guard temporary.bytes == source.bytes, temporary.sha256 == source.sha256 else {
            throw LibraryError.damaged(
                asset: asset, path: source.path,
                detail: "its bytes are not the ones recorded (\(temporary.bytes) bytes, sha256 \(temporary.sha256.prefix(12))…; recorded \(source.bytes) bytes, \(source.sha256.prefix(12))…), so it is not exported")
        }
        guard link(temporary.url.path, destination.path) == 0 else {
            if errno == EEXIST { throw LibraryError.exists(path: destination.path) }
            throw LibraryError.io(path: destination.path, operation: "link", errno: errno)
        }
        try AtomicFile.syncDirectory(destination.deletingLastPathComponent())
    }
}
