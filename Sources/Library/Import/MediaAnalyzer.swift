import Codecs
import Containers
import Crypto
import Foundation
import Imaging

/// Reads one file: what it is (from its bytes), its sha256, its metadata, a small
/// oriented JPEG thumbnail, and a staged copy of the original; both files go into
/// `stagingDirectory` (the library's tmp/) for the import to link into place.
///
/// Runs inside an analysis worker process (see ``AnalysisWorkers``) so that a C
/// library crashing or hanging on a hostile file costs that file, not the import.
public enum MediaAnalyzer {
    /// Longest side of a thumbnail, in pixels.
    public static let thumbnailSide = 320
    /// JPEG quality of thumbnails, whoever makes them (import, or the gallery for an edit).
    static let thumbnailQuality = 82
    /// An embedded thumbnail is used when its longest side reaches this; otherwise the
    /// image is decoded (iPhone JPEGs embed 160x120, too small; HEICs 320x240 or more).
    public static let smallestUsableEmbeddedThumbnail = 240
    /// Stills are read whole into memory; larger ones are refused.
    public static let largestStill: Int64 = 512 << 20

    /// `isKnown` answers whether the library already holds an original with this sha256;
    /// such files are reported as ``AnalysisOutcome/alreadyInLibrary(path:sha256:format:)``
    /// without decoding anything, which keeps re-imports cheap.
    ///
    /// `decodePictures: false` reads what costs no decode (metadata, an embedded
    /// thumbnail large enough) and leaves the thumbnail of a still without one, and a
    /// movie's poster frame, to a job after the import commits (``JobKind/thumbnail``).
    public static func analyze(path: String, stagingDirectory: URL, isKnown: (String) -> Bool = { _ in false }, decodePictures: Bool = true)
        -> AnalysisOutcome
    {
        do {
            return try analyzeOrThrow(path: path, stagingDirectory: stagingDirectory, isKnown: isKnown, decodePictures: decodePictures)
        } catch let failure as Failure {
            return .failed(path: path, reason: failure.reason)
        } catch {
            return .failed(path: path, reason: describe(error))
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case let e as HEIFError: "cannot read HEIF: \(e.message)"
        case let e as FFmpegError where e.isLibraryMissing: e.message
        case let e as FFmpegError where e.isWriting: "cannot write the new movie: \(e.message)"
        case let e as FFmpegError: "cannot read movie: \(e.message)"
        case let e as JPEGError: "cannot decode JPEG: \(e.message)"
        case let e as PNGError: "cannot decode PNG: \(e.message)"
        case let e as FormatError: "damaged file: \(e)"
        case let e as LibraryError: e.description
        case let e as Failure: e.reason
        // Foundation's file errors in words (the report names the file already).
        default: FileAccessError.from(error)?.cause ?? "\(error)"
        }
    }

    static func analyzeOrThrow(path: String, stagingDirectory: URL, isKnown: (String) -> Bool, decodePictures: Bool = true) throws
        -> AnalysisOutcome
    {
        let url = URL(fileURLWithPath: path)
        let claimed = MediaFormat.claimed(byExtension: url.pathExtension)
        var info = stat()
        guard stat(path, &info) == 0 else { throw LibraryError.io(path: path, operation: "stat", errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .skipped(path: path, reason: "not a regular file") }
        let size = Int64(info.st_size)
        guard size > 0 else {
            if claimed != nil { throw Failure(reason: "the file is empty (0 bytes)") }
            return .skipped(path: path, reason: "empty file")
        }
        // Every read of the file from here on goes through this one descriptor.
        let source = try SourceFile(path: path)
        let header = try source.bytes(count: 4096)
        guard let format = MediaFormat.sniff(header), format != .appleAdjustment else {
            if let claimed, claimed != .appleAdjustment {
                throw Failure(reason: "not \(claimed.withArticle) file: its first bytes (\(describeMagic(header))) match no format camlib reads")
            }
            return .skipped(path: path, reason: "not a photo or movie camlib imports")
        }
        var warnings: [String] = []
        if let claimed, claimed != format, !(claimed.isMovie && format.isMovie), !(claimed == .heif && format == .avif) {
            warnings.append("named .\(url.pathExtension) but its content is \(format.displayName)")
        }
        var analysis: MediaAnalysis
        if format.isStill {
            guard size <= largestStill else {
                throw Failure(reason: "a \(size >> 20) MB still is larger than camlib accepts (\(largestStill >> 20) MB)")
            }
            // One read serves the hash, the parsers, the decoders and the staged copy.
            let bytes = try source.readAll()
            guard !source.changed else { throw LibraryError.changedDuringImport(path: path) }
            let sha = SHA256.hash(data: bytes).hexString
            if isKnown(sha) { return .alreadyInLibrary(path: path, sha256: sha, format: format) }
            let (metadata, pixels, stillWarnings, extras) = try readStill(format: format, bytes: bytes, decodePictures: decodePictures)
            warnings += stillWarnings + extras.warnings
            for aux in extras.auxiliaryImages {
                if let problem = aux.problem { warnings.append("auxiliary image \(aux.source) (\(aux.type.rawValue)) not extracted: \(problem)") }
            }
            // Every file staged so far goes if a later step fails.
            var staged: [String] = []
            do {
                let thumbnail = try pixels.map { try writeThumbnail($0, in: stagingDirectory) }
                if let thumbnail { staged.append(thumbnail.temporaryPath) }
                let aux = auxiliaryFacts(extras.auxiliaryImages)
                let movie = try extras.movie.flatMap {
                    try stageMovie($0, of: bytes, in: stagingDirectory, staged: &staged, warnings: &warnings)
                }
                let copy = try AtomicFile.writeTemporary(bytes, in: stagingDirectory, readOnly: true, sha256: sha, durable: false)
                analysis = MediaAnalysis(
                    path: path, format: format, bytes: Int64(bytes.count), sha256: sha, crc32: copy.crc32, stagedCopy: copy.url.path,
                    metadata: metadata, thumbnail: thumbnail, warnings: warnings, auxiliaryImages: aux, embeddedMovie: movie)
            } catch {
                for file in staged { unlink(file) }
                throw error
            }
        } else {
            // Copied into the library's tmp/ as it is hashed: one read of the source, and
            // FFmpeg reads the copy. A movie the library holds already is not decoded, and
            // its copy goes.
            let copy = try source.copy(into: stagingDirectory, readOnly: true, durable: false)
            let sha = copy.sha256
            if isKnown(sha) {
                unlink(copy.url.path)
                return .alreadyInLibrary(path: path, sha256: sha, format: format)
            }
            do {
                analysis = try analyzeMovie(
                    copy, of: path, format: format, warnings: warnings, stagingDirectory: stagingDirectory, decodePictures: decodePictures)
            } catch {
                unlink(copy.url.path)
                throw error
            }
        }
        return .analyzed(analysis)
    }

    /// A movie, from its copy in tmp/ (`copy`, of the file at `path`): metadata, and its
    /// poster frame as its thumbnail.
    private static func analyzeMovie(
        _ copy: AtomicFile.Temporary, of path: String, format: MediaFormat, warnings: [String], stagingDirectory: URL, decodePictures: Bool
    ) throws -> MediaAnalysis {
        let staged = copy.url.path
        AnalysisStep.begin("reading it as a movie (FFmpeg)")
        let movie = try MovieFile(path: staged)
        guard let video = movie.video else { throw Failure(reason: "cannot read movie: it has no video stream") }
        guard video.width > 0, video.height > 0 else { throw Failure(reason: "cannot read movie: its video has no size") }
        var metadata = movieMetadata(movie, video: video)
        if metadata.contentIdentifier != nil {
            // A Live Photo's movie (a few MB): when its still was taken.
            metadata.stillImageTime = stillImageTime(staged)
        }
        guard decodePictures else {
            return MediaAnalysis(
                path: path, format: format, bytes: copy.bytes, sha256: copy.sha256, crc32: copy.crc32, stagedCopy: staged, metadata: metadata,
                thumbnail: nil, warnings: warnings)
        }
        let frame: PixelBuffer<UInt8>
        do {
            AnalysisStep.begin("decoding its poster frame (FFmpeg)")
            frame = try movie.posterFrame(maxSide: thumbnailSide)
        } catch let e as FFmpegError {
            throw Failure(reason: "cannot decode any frame of its \(video.codec) video: \(e.message)")
        }
        let poster = try writeThumbnail((frame, "decoded"), in: stagingDirectory)
        return MediaAnalysis(
            path: path, format: format, bytes: copy.bytes, sha256: copy.sha256, crc32: copy.crc32, stagedCopy: staged, metadata: metadata,
            thumbnail: poster, warnings: warnings)
    }

    // MARK: Stills

    /// Metadata, thumbnail pixels (oriented, not yet scaled; nil when they would take
    /// decoding the picture and `decodePictures` is false), warnings, and the auxiliary
    /// images and embedded movie (decoded, not yet staged).
    static func readStill(format: MediaFormat, bytes: [UInt8], decodePictures: Bool = true) throws
        -> (MediaMetadata, (PixelBuffer<UInt8>, String)?, [String], StillExtras)
    {
        var warnings: [String] = []
        var metadata = MediaMetadata()
        switch format {
        case .jpeg:
            AnalysisStep.begin("reading its JPEG segments and XMP (camlib's parser, Foundation's XML parser)")
            let segments = try JPEGSegments(parsing: bytes)
            guard let frame = segments.frame else { throw Failure(reason: "damaged JPEG: no frame header before the image data") }
            AnalysisStep.begin("reading its Exif (libexif)")
            let exif = readEXIF(segments.exifTIFF, warnings: &warnings)
            let orientation = EXIFOrientation(exifValue: exif?.orientation ?? 1)
            apply(exif, to: &metadata)
            metadata.orientation = orientation.rawValue
            (metadata.width, metadata.height) = orientation.displayedSize(width: frame.width, height: frame.height)
            AnalysisStep.begin("reading its auxiliary images' headers (camlib's parser, libpng for GDepth maps)")
            let extras = AuxiliaryExtractor.scanJPEG(bytes, segments: segments, orientation: orientation, decode: .none)
            AnalysisStep.begin("decoding its picture for the thumbnail (libturbojpeg)")
            if let thumb = exif?.thumbnailJPEG, let decoded = try? JPEGCodec.decode(thumb),
                max(decoded.pixels.width, decoded.pixels.height) >= smallestUsableEmbeddedThumbnail
            {
                return (metadata, (decoded.pixels.applying(orientation), "embedded"), warnings, extras)
            }
            // An MPF large thumbnail (a camera's screen-size preview), when there is one.
            if let preview = mpfPreview(bytes, segments: segments), let decoded = try? JPEGCodec.decode(preview, atLeast: thumbnailSide),
                max(decoded.pixels.width, decoded.pixels.height) >= smallestUsableEmbeddedThumbnail
            {
                return (metadata, (decoded.pixels.applying(orientation), "embedded"), warnings, extras)
            }
            guard decodePictures else { return (metadata, nil, warnings, extras) }
            let decoded = try JPEGCodec.decode(bytes, atLeast: thumbnailSide)
            if let w = decoded.warning { warnings.append("the JPEG data is damaged but decodable (\(w))") }
            return (metadata, (decoded.pixels.applying(orientation), "decoded"), warnings, extras)

        case .heif, .avif:
            AnalysisStep.begin("opening it (libheif)")
            // libheif reads the bytes already in memory, in place.
            return try HEIFFile.reading(bytes) { file in
                let image = try file.primaryImage()
                guard image.width > 0, image.height > 0 else { throw Failure(reason: "cannot read HEIF: the primary image has no size") }
                AnalysisStep.begin("reading its Exif (libexif)")
                let exif = readEXIF(image.exifTIFF(), warnings: &warnings)
                apply(exif, to: &metadata)
                // irot/imir, not the EXIF tag, orient a HEIF image (libheif already applied
                // them to width/height and to decoded pixels).
                metadata.orientation = image.orientation.rawValue
                metadata.width = image.width
                metadata.height = image.height
                AnalysisStep.begin("listing its auxiliary images and reading their XMP (libheif, Foundation's XML parser)")
                let extras = AuxiliaryExtractor.scanHEIF(bytes, primary: image, decode: .none)
                AnalysisStep.begin("decoding its picture for the thumbnail (libheif)")
                if let thumb = image.thumbnail(), max(thumb.width, thumb.height) >= smallestUsableEmbeddedThumbnail,
                    let pixels = try? thumb.decodeScaled(maxSide: thumbnailSide)
                {
                    return (metadata, (pixels, "embedded"), warnings, extras)
                }
                guard decodePictures else { return (metadata, nil, warnings, extras) }
                return (metadata, (try image.decodeScaled(maxSide: thumbnailSide), "decoded"), warnings, extras)
            }

        case .png:
            AnalysisStep.begin("reading and decoding it (libpng)")
            let chunks = try PNGChunks(parsing: bytes)
            let exif = readEXIF(chunks.exifTIFF, warnings: &warnings)
            let orientation = EXIFOrientation(exifValue: exif?.orientation ?? 1)
            apply(exif, to: &metadata)
            metadata.orientation = orientation.rawValue
            (metadata.width, metadata.height) = orientation.displayedSize(width: chunks.width, height: chunks.height)
            guard decodePictures else { return (metadata, nil, warnings, StillExtras()) }
            return (metadata, (try PNGCodec.decodeScaled(bytes, maxSide: thumbnailSide).applying(orientation), "decoded"), warnings, StillExtras())

        default:
            throw Failure(reason: "\(format.displayName) is not a still")
        }
    }

    /// The smallest MPF large thumbnail (MP Type 0x010001 VGA, 0x010002 full HD) of a JPEG
    /// that is at least thumbnail-sized, as its JPEG bytes.
    static func mpfPreview(_ bytes: [UInt8], segments: JPEGSegments) -> [UInt8]? {
        guard let segment = segments.mpfSegment, let index = try? MPFIndex(segment: segment) else { return nil }
        return index.entries
            .filter { ($0.type == 0x010001 || $0.type == 0x010002) && $0.offset > 0 && $0.size > 0 && $0.offset + $0.size <= bytes.count }
            .sorted { $0.size < $1.size }
            .lazy.map { Array(bytes[$0.offset..<($0.offset + $0.size)]) }
            .first { (try? JPEGCodec.dimensions($0)).map { max($0.width, $0.height) >= smallestUsableEmbeddedThumbnail } ?? false }
    }

    static func readEXIF(_ tiff: ArraySlice<UInt8>?, warnings: inout [String]) -> EXIFMetadata? {
        guard let tiff else { return nil }
        do {
            return try EXIFMetadata(tiff: tiff)
        } catch {
            warnings.append("EXIF unreadable: \(error)")
            return nil
        }
    }

    static func apply(_ exif: EXIFMetadata?, to m: inout MediaMetadata) {
        guard let exif else { return }
        m.make = exif.make
        m.model = exif.model
        m.software = exif.software
        m.lensMake = exif.lensMake
        m.lensModel = exif.lensModel
        m.capturedAt = exif.captureTime
        m.location = exif.location
        m.contentIdentifier = exif.appleMakerNote?.contentIdentifier
        m.livePhotoVideoIndex = exif.appleMakerNote?.livePhotoVideoIndex
    }

    // MARK: Movies

    /// The still-image-time of a Live Photo movie; nil when absent or unreadable (the track
    /// is optional). Only the movie's `moov` box is read: the time lives in its sample
    /// tables, not in the media data.
    static func stillImageTime(_ path: String) -> Double? {
        guard let moov = FileReading.topLevelBox("moov", of: path) else { return nil }
        return (try? LivePhotoMovie.stillImageTime(in: moov.box, fileSize: moov.fileSize)) ?? nil
    }

    /// QuickTime keys as Apple devices write them, with the `mvhd` time and ©xyz
    /// location (FFmpeg's "creation_time" and "location") as fallbacks.
    static func movieMetadata(_ movie: MovieFile, video: MovieFile.VideoStream) -> MediaMetadata {
        var m = MediaMetadata()
        let keys = movie.metadata
        func key(_ names: String...) -> String? {
            for n in names {
                if let v = keys[n]?.trimmingCharacters(in: .whitespacesAndNewlines), !v.isEmpty { return v }
            }
            return nil
        }
        m.contentIdentifier = key("com.apple.quicktime.content.identifier")
        m.make = key("com.apple.quicktime.make", "make")
        m.model = key("com.apple.quicktime.model", "model")
        m.software = key("com.apple.quicktime.software", "encoder")
        m.lensModel = key("com.apple.quicktime.camera.lens_model")
        if let local = key("com.apple.quicktime.creationdate").flatMap(CaptureTime.init(iso8601:)) {
            m.capturedAt = local
        } else if let utc = key("creation_time").flatMap(CaptureTime.init(iso8601:)), !utc.isQuickTimeEpoch {
            m.capturedAt = utc
        }
        // "+00.0000+000.0000/" is what a phone writes when it had no fix (Samsung's Motion
        // Photo movies do): not a place.
        m.location = key("com.apple.quicktime.location.ISO6709", "location").flatMap(GeoLocation.init(iso6709:)).flatMap {
            $0.isNoFixPlaceholder ? nil : $0
        }
        m.orientation = video.orientation.rawValue
        (m.width, m.height) = video.displayedSize
        m.durationSeconds = movie.durationSeconds
        m.videoCodec = video.codec
        m.audioCodec = movie.audio?.codec
        m.frameRate = video.frameRate
        return m
    }

    // MARK: Auxiliary images and embedded movies

    /// What import records of a still's auxiliary images: their facts, read from the
    /// container without decoding them; their PNGs are made when first asked for
    /// (``PhotoLibrary/auxiliaryPNG(_:)``).
    static func auxiliaryFacts(_ found: [FoundAuxiliaryImage]) -> [StagedAuxiliaryImage] {
        found.map { aux in
            StagedAuxiliaryImage(
                type: aux.type, urn: aux.urn, source: aux.source, width: aux.width, height: aux.height, bitDepth: aux.bitDepth,
                channels: aux.channels, encoding: aux.encoding, problem: aux.problem)
        }
    }

    /// Cuts a Motion Photo's movie out of the still into tmp/ and reads its metadata; a
    /// movie FFmpeg cannot read is left in the original with a warning.
    static func stageMovie(_ movie: EmbeddedMovie, of bytes: [UInt8], in directory: URL, staged: inout [String], warnings: inout [String])
        throws -> StagedMovie?
    {
        let data = Array(bytes[movie.range])
        let file = try AtomicFile.writeTemporary(data, in: directory, readOnly: true, durable: false)
        do {
            AnalysisStep.begin("reading the movie inside it (FFmpeg)")
            let reader = try MovieFile(path: file.url.path)
            guard let video = reader.video, video.width > 0, video.height > 0 else {
                throw Failure(reason: "it has no video stream")
            }
            staged.append(file.url.path)
            var poster: Thumbnail?
            if let frame = try? reader.posterFrame(maxSide: thumbnailSide) {
                poster = try writeThumbnail((frame, "decoded"), in: directory)
                staged.append(poster!.temporaryPath)
            } else {
                warnings.append("the Motion Photo movie has no decodable frame for a thumbnail")
            }
            let format = MediaFormat.sniff(Array(data.prefix(64))) ?? .mp4
            return StagedMovie(
                temporaryPath: file.url.path, sha256: file.sha256, bytes: file.bytes, crc32: file.crc32, format: format.isMovie ? format : .mp4,
                offset: Int64(movie.range.lowerBound), declaredBy: movie.declaredBy, note: movie.note,
                metadata: movieMetadata(reader, video: video), thumbnail: poster)
        } catch {
            unlink(file.url.path)
            warnings.append(
                "the Motion Photo movie (\(movie.range.count) bytes at offset \(movie.range.lowerBound)) cannot be read: \(describe(error)); it stays in the original only")
            return nil
        }
    }

    // MARK: Thumbnails

    static func writeThumbnail(_ source: (PixelBuffer<UInt8>, String), in directory: URL) throws -> Thumbnail {
        let pixels = try PixelScaler.scaledToFit(source.0, maxSide: thumbnailSide)
        let jpeg = try JPEGCodec.encode(pixels, quality: thumbnailQuality)
        let file = try AtomicFile.writeTemporary(jpeg, in: directory, durable: false)
        return Thumbnail(
            temporaryPath: file.url.path, sha256: file.sha256, bytes: file.bytes, width: pixels.width, height: pixels.height,
            source: source.1)
    }

    static func describeMagic(_ header: [UInt8]) -> String {
        header.isEmpty ? "none" : header.prefix(8).map { [$0].hexString }.joined(separator: " ")
    }
}

extension CaptureTime {
    /// QuickTime's epoch (1904-01-01) or Unix's, written when the camera had no clock.
    var isQuickTimeEpoch: Bool {
        (year == 1904 || year == 1970) && month == 1 && day == 1 && hour == 0 && minute == 0 && second == 0
    }
}

extension MediaFormat {
    /// "a JPEG", "an AVIF", …
    var withArticle: String {
        (self == .avif || self == .mp4 || self == .appleAdjustment ? "an " : "a ") + displayName
    }

    /// "JPEG", "HEIF", "QuickTime movie", …
    public var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .heif: "HEIF"
        case .avif: "AVIF"
        case .quicktime: "QuickTime movie"
        case .mp4: "MP4 movie"
        case .appleAdjustment: "Apple adjustment sidecar"
        }
    }
}
