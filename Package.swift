// swift-tools-version:6.1
import PackageDescription

// camlib: a camera and photo library for Linux. The folders under Sources/ are the
// modules of docs/architecture.md: C wrappers -> Imaging -> Containers -> Codecs
// -> Capture, Library -> Gallery -> the camlib executable.
// Pixel loops (rendering the virtual scene, merging frames, filters) are 20-50x slower
// unoptimised, which made debug builds - `swift run`, `swift test` - too slow to capture
// or edit at camera sizes. These modules are optimised in every configuration.
let optimisedPixels: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "camlib",
    products: [
        .executable(name: "camlib", targets: ["camlib"]),
        .library(name: "CamlibLibrary", targets: ["Library"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // A library's catalog on a PostgreSQL server (SQLite, through GRDB, is the default).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The gallery's HTTP server. Without its swift-configuration support (a trait on
        // by default): camlib reads its own options.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // `swift package generate-documentation --target Library`: the DocC catalog of
        // CamlibLibrary (Sources/Library/Library.docc). A command plugin: nothing of it
        // is built into camlib.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C libraries from Debian: module maps and shims only.
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        // FFmpeg is loaded with dlopen when first needed, not linked: a C target (the
        // loader, cffmpeg_loader.c) over Debian's headers (libavformat-dev, libavcodec-dev,
        // libavutil-dev, libswscale-dev, libavdevice-dev, installed by setup.sh), on its
        // include path; no pkgConfig, whose flags would link the libraries.
        .target(name: "CFFmpeg", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // libpng's full API, whose errors longjmp, in C (the encoder and exact decoder).
        .target(name: "CPNGCodec", dependencies: ["CPNG"]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        // glibc's mallopt, for how renders allocate.
        .systemLibrary(name: "CMalloc"),
        // Vector minimum and maximum as single instructions, for pixel loops.
        .systemLibrary(name: "CVector"),

        // Per-pixel loops over rows (the comic's colours, reading working rows back,
        // halving a Y'CbCr picture), in C: compiled for SSE2 and for AVX2, the processor's
        // choice made when the program loads.
        .target(name: "CRowLoops"),

        // Pixel buffers, EXIF orientation, resampling; their hottest row loops in CRowLoops.
        .target(name: "Imaging", dependencies: ["CVector", "CRowLoops"], swiftSettings: optimisedPixels),
        // Pure functions over pixel buffers: comic, noir, mono, sepia, posterize, vignette.
        .target(name: "Filters", dependencies: ["Imaging", "CRowLoops"], swiftSettings: optimisedPixels),
        // Byte-level formats: ISOBMFF boxes, JPEG segments, TIFF/IFD, Apple MakerNote.
        .target(name: "Containers", dependencies: ["Imaging", "CZlib"]),
        // Stills and movies through libheif, libexif, libturbojpeg, libpng, libav*.
        .target(
            name: "Codecs",
            dependencies: ["Imaging", "Containers", "CHeif", "CExif", "CFFmpeg", "CTurboJPEG", "CPNG", "CPNGCodec", "CZlib"]),
        // Cameras and capture: V4L2 devices (libv4l2), the virtual and file cameras, the
        // session, photo and movie outputs, events. Writes files; the library imports them.
        .target(name: "Capture", dependencies: ["Imaging", "Containers", "Codecs", "CV4L2"], swiftSettings: optimisedPixels),
        // The library: store layout, catalog, import, pairing, query.
        .target(
            name: "Library",
            dependencies: [
                "Imaging", "Containers", "Codecs", "Filters", "CMalloc",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            plugins: ["EmbedMigrations", "EmbedPlaces"]),
        // `camlib serve`: HTTP routes, the JSON API, files by id, and the page (Web/, compiled in).
        .target(
            name: "Gallery",
            dependencies: [
                "Library", "Codecs", "Containers", "Filters", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [
                .embedInCode("Web/index.html"), .embedInCode("Web/gallery.js"), .embedInCode("Web/upload.js"), .embedInCode("Web/download.js"),
                .embedInCode("Web/scrubber.js"), .embedInCode("Web/memories.js"), .embedInCode("Web/slideshow.js"), .embedInCode("Web/editor.js"), .embedInCode("Web/gallery.css"),
            ]),
        .executableTarget(
            name: "camlib",
            dependencies: [
                "Library", "Capture", "Codecs", "Containers", "Filters", "Gallery",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // Build step: migrations/*.sql become a Swift table compiled into Library, so the
        // schema lives only in migrations/ and the binary needs no files beside it.
        .executableTarget(name: "MigrationEmbedder"),
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["MigrationEmbedder"]),
        // Build step: data/places/places.tsv.gz (GeoNames' places) compiled into Library, so
        // reverse geocoding needs no network and no file beside the binary.
        .executableTarget(name: "PlaceEmbedder"),
        .plugin(name: "EmbedPlaces", capability: .buildTool(), dependencies: ["PlaceEmbedder"]),

        // bench/query.py's helper: pages of the catalog timed in one long-lived process.
        .executableTarget(name: "catalog-bench", dependencies: ["Library"], path: "bench/CatalogBench"),
        // bench/jobs.py's helper: the job queue's claim, completion and wake-up timed.
        .executableTarget(name: "jobs-bench", dependencies: ["Library"], path: "bench/JobsBench"),
        // bench/places.py's helper: the offline geocoder's load and lookups timed.
        .executableTarget(name: "places-bench", dependencies: ["Library"], path: "bench/PlacesBench"),

        // Test helpers: where ../shared/media is, the CI rule for it, temporary folders.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging"]),
        .testTarget(name: "FiltersTests", dependencies: ["Filters", "Imaging", "CRowLoops"]),
        .testTarget(name: "ContainersTests", dependencies: ["Containers", "TestSupport"]),
        .testTarget(name: "CodecsTests", dependencies: ["Codecs", "CPNGCodec", "Containers", "Imaging", "TestSupport"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "Codecs", "Containers", "Imaging", "CV4L2", "TestSupport"]),
        .testTarget(
            name: "LibraryTests",
            dependencies: [
                "Library", "Codecs", "Filters", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        .testTarget(
            name: "GalleryTests",
            dependencies: [
                "Gallery", "Library", "Codecs", "Filters", "TestSupport", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
        .testTarget(
            name: "CLITests",
            dependencies: ["camlib", "Library", "Capture", "Containers", "TestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "GRDB", package: "GRDB.swift")],
            // Read through #filePath by HelpSnapshotTests, not bundled.
            exclude: ["HelpSnapshots"]),
    ]
)
