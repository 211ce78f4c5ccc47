import Foundation

/// The catalog row of what an analysed file says about itself.
extension MetadataRecord {
    init(_ a: MediaAnalysis, resourceID: Int64, place: Int64? = nil) {
        let m = a.metadata
        self.init(
            resourceId: resourceID, format: a.format.rawValue, capturedAt: m.capturedAt?.iso8601,
            utcOffsetMinutes: m.capturedAt?.utcOffsetMinutes, make: m.make, model: m.model, software: m.software,
            lensMake: m.lensMake, lensModel: m.lensModel, latitude: m.location?.latitude, longitude: m.location?.longitude,
            altitude: m.location?.altitude, width: m.width, height: m.height, orientation: m.orientation,
            duration: m.durationSeconds, videoCodec: m.videoCodec, audioCodec: m.audioCodec, frameRate: m.frameRate,
            contentIdentifier: m.contentIdentifier, livePhotoVideoIndex: m.livePhotoVideoIndex, stillImageTime: m.stillImageTime,
            warnings: a.warnings.isEmpty ? nil : a.warnings.joined(separator: "\n"), placeId: place)
    }
}
