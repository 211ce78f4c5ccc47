import Codecs
import Containers
import Foundation
import GRDB
import Imaging

/// `camlib aux attach`: a depth map or matte (a PNG) added to a HEIC as an auxiliary item,
/// the photo's coded data untouched (see ``HEIFAuxiliaryWriter``). Every result is read
/// back with libheif before it is kept: the new item must be there with its URN, and a
/// lossless attach must give back exactly the samples it was given.
public enum AuxiliaryAttacher {
    public struct Result: Sendable {
        public var bytes: [UInt8]
        /// The attached image as read back from the new file.
        public var attached: FoundAuxiliaryImage
        /// Largest difference between the given and the read-back samples (0 when lossless).
        public var maxError: Int
    }

    public static func attach(
        toFile path: String, type: AuxiliaryImageType, from image: String, options: HEIFAuxiliaryWriter.Options,
        scratch: URL
    ) throws -> Result {
        guard let urn = type.urn else {
            throw MediaAnalyzer.Failure(reason: "choose what the image is with --type (depth, disparity, portrait-matte, …); `other` has no URN")
        }
        let header = try FileReading.prefix(of: path, count: 64)
        guard MediaFormat.sniff(header) == .heif else {
            throw MediaAnalyzer.Failure(reason: "\(path): auxiliary images can be attached to HEIC files only")
        }
        let samples = try readGray(image)
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let bytes = try HEIFAuxiliaryWriter.attach(to: original, path: path, samples: samples, urn: urn, options: options)

        // Read it back before anyone keeps it.
        let check = try AtomicFile.writeTemporary(bytes, in: scratch)
        defer { unlink(check.url.path) }
        let extras = try AuxiliaryExtractor.scan(path: check.url.path, decode: true)
        guard let attached = extras.auxiliaryImages.last(where: { $0.urn == urn }), let back = attached.samples else {
            throw MediaAnalyzer.Failure(reason: "internal error: the written file does not read back with its new \(urn) item")
        }
        let maxError = difference(samples, back)
        if options.lossless && maxError != 0 {
            throw MediaAnalyzer.Failure(reason: "internal error: the lossless item reads back with errors up to \(maxError)")
        }
        let primaryBefore = try HEIFFile(path: path).primaryImage()
        let primaryAfter = try HEIFFile(path: check.url.path).primaryImage()
        guard primaryBefore.width == primaryAfter.width, primaryBefore.height == primaryAfter.height else {
            throw MediaAnalyzer.Failure(reason: "internal error: the photo changed size in the written file")
        }
        return Result(bytes: bytes, attached: attached, maxError: maxError)
    }

    /// A PNG as one gray channel: gray PNGs as they are, RGB ones whose channels are equal
    /// (what many tools write for gray) reduced to one.
    static func readGray(_ path: String) throws -> ImageSamples {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let samples: ImageSamples
        do {
            samples = try PNGCodec.decodeSamples(data).samples
        } catch let e as PNGError {
            throw MediaAnalyzer.Failure(reason: "\(path): cannot read it as PNG: \(e.message)")
        }
        if samples.channels == 1 { return samples }
        func gray<C: PixelComponent>(_ p: PixelBuffer<C>) throws -> PixelBuffer<C> {
            var out = PixelBuffer<C>(width: p.width, height: p.height, channels: 1)
            for i in 0..<(p.width * p.height) {
                let r = p.components[i * 3], g = p.components[i * 3 + 1], b = p.components[i * 3 + 2]
                guard r == g && g == b else {
                    throw MediaAnalyzer.Failure(reason: "\(path): a colour image; an auxiliary image is gray (one channel)")
                }
                out.components[i] = r
            }
            return out
        }
        switch samples {
        case .eight(let p): return .eight(try gray(p))
        case .sixteen(let p, let bits): return .sixteen(try gray(p), significantBits: bits)
        }
    }

    static func difference(_ a: ImageSamples, _ b: ImageSamples) -> Int {
        switch (a, b) {
        case (.eight(let x), .eight(let y)) where x.components.count == y.components.count:
            return zip(x.components, y.components).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        case (.sixteen(let x, _), .sixteen(let y, _)) where x.components.count == y.components.count:
            return zip(x.components, y.components).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        default:
            return Int.max
        }
    }
}

extension AuxiliaryAttacher {
    /// Writes the result for a file outside the library.
    public static func write(_ result: Result, to destination: URL, overwrite: Bool) throws {
        try AtomicFile.write(result.bytes, to: destination, overwrite: overwrite)
    }
}

extension PhotoLibrary {
    /// The absolute path of the newest version `attachAuxiliaryImage` made of an asset (a
    /// `renderedPhoto` that aux images point at), or nil when there is none.
    func newestAttachedVersion(of asset: Int64) throws -> String? {
        try catalog.pool.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT r.path FROM resource r
                    WHERE r.asset_id = ? AND r.role = 'renderedPhoto'
                      AND EXISTS (SELECT 1 FROM aux_image x WHERE x.resource_id = r.id)
                    ORDER BY r.id DESC LIMIT 1
                    """, arguments: [asset])
        }.map { absolute($0).path }
    }

    /// Attaches an auxiliary image to a library asset's HEIC. The original stays as it is;
    /// the new file is kept beside it as the asset's `renderedPhoto` (its newest version)
    /// and the attached image is listed among the asset's aux images.
    public func attachAuxiliaryImage(
        to asset: Int64, type: AuxiliaryImageType, from image: String, options: HEIFAuxiliaryWriter.Options
    ) throws -> (path: String, result: AuxiliaryAttacher.Result) {
        guard let description = try describe([asset]).first, let original = description.resources.first(where: { $0.role == .photo })
        else { throw LibraryError.assetNotFound("\(asset) with a still") }
        // Attaching builds on the newest version an earlier attach made, so a depth map
        // and then a matte end up in one file.
        let base = try newestAttachedVersion(of: asset) ?? original.path
        let still = original
        let result = try AuxiliaryAttacher.attach(toFile: base, type: type, from: image, options: options, scratch: temporary)
        let staged = try AtomicFile.writeTemporary(result.bytes, in: temporary, readOnly: true)
        defer { unlink(staged.url.path) }
        let stem = URL(fileURLWithPath: still.originalName ?? still.path).deletingPathExtension().lastPathComponent
        let folder = URL(fileURLWithPath: still.path).deletingLastPathComponent()
        var published: [URL] = []
        do {
            guard let samples = result.attached.samples else {
                throw MediaAnalyzer.Failure(reason: "internal error: the attached image was not read back")
            }
            let png = try AuxiliaryPNG.encode(samples)
            let pngFile = try AtomicFile.writeTemporary(png, in: temporary)
            defer { unlink(pngFile.url.path) }
            return try catalog.pool.write { db in
                let url = try AtomicFile.publish(staged.url, to: folder.appendingPathComponent("\(stem)_aux.heic"))
                published.append(url)
                var resource = ResourceRecord(
                    id: nil, assetId: asset, role: .renderedPhoto, path: relative(url), sha256: staged.sha256, bytes: staged.bytes,
                    mime: MediaFormat.heif.mimeType, derivedFrom: nil, originalName: url.lastPathComponent, sourceDir: nil,
                    addedAt: utcNow())
                try resource.insert(db)
                let auxFolder = derived.appendingPathComponent("aux/\(staged.sha256.prefix(2))/\(staged.sha256)")
                let auxURL = try AtomicFile.publish(pngFile.url, to: auxFolder.appendingPathComponent("\(type.rawValue).png"))
                published.append(auxURL)
                let a = result.attached
                var row = AuxImageRecord(
                    id: nil, assetId: asset, resourceId: resource.id!, type: type, urn: a.urn, source: a.source, width: a.width,
                    height: a.height, bitDepth: a.bitDepth, channels: a.channels, path: relative(auxURL), sha256: pngFile.sha256,
                    bytes: pngFile.bytes, encoding: a.encoding.json, problem: nil, addedAt: utcNow())
                try row.insert(db)
                return (url.path, result)
            }
        } catch {
            for url in published { unlink(url.path) }
            throw error
        }
    }
}

