import Containers
import Testing

@testable import Library

private func t(_ iso: String) -> CaptureTime { CaptureTime(iso8601: iso)! }

@Test func stemPairingWantsSameStemShortMovieAndCloseTimes() {
    let still = t("2024-03-01T10:00:00+01:00")
    #expect(
        PairingRules.stemConfidence(
            stillName: "IMG_0001.JPG", stillTime: still, movieName: "img_0001.mov", movieTime: t("2024-03-01T09:00:02Z"),
            movieDuration: 2.5) == 0.9)
    // Another stem, a long movie, times a minute apart, or a missing time: no pairing.
    #expect(
        PairingRules.stemConfidence(
            stillName: "IMG_0001.JPG", stillTime: still, movieName: "IMG_0002.MOV", movieTime: t("2024-03-01T09:00:02Z"),
            movieDuration: 2.5) == nil)
    #expect(
        PairingRules.stemConfidence(
            stillName: "IMG_0001.JPG", stillTime: still, movieName: "IMG_0001.MOV", movieTime: t("2024-03-01T09:00:02Z"),
            movieDuration: 30) == nil)
    #expect(
        PairingRules.stemConfidence(
            stillName: "IMG_0001.JPG", stillTime: still, movieName: "IMG_0001.MOV", movieTime: t("2024-03-01T09:01:00Z"),
            movieDuration: 2.5) == nil)
    #expect(
        PairingRules.stemConfidence(
            stillName: "IMG_0001.JPG", stillTime: nil, movieName: "IMG_0001.MOV", movieTime: t("2024-03-01T09:00:02Z"),
            movieDuration: 2.5) == nil)
}

@Test func aFloatingStillTimeMatchesAUTCMovieTimeUpToAZoneOffset() {
    // Still without OffsetTimeOriginal at 19:01:15 local; movie mvhd 03:01:13 UTC (8 h later: UTC-8).
    #expect(
        PairingRules.stemConfidence(
            stillName: "IMG_1.HEIC", stillTime: t("2019-12-29T19:01:15"), movieName: "IMG_1.MOV",
            movieTime: t("2019-12-30T03:01:13Z"), movieDuration: 2.6) == 0.7)
    // India is UTC+5:30: half-hour zones work too.
    #expect(
        PairingRules.stemConfidence(
            stillName: "IMG_1.HEIC", stillTime: t("2019-12-29T19:01:15"), movieName: "IMG_1.MOV",
            movieTime: t("2019-12-29T13:31:14Z"), movieDuration: 2.6) == 0.7)
    // 7 minutes off is no time zone.
    #expect(
        PairingRules.stemConfidence(
            stillName: "IMG_1.HEIC", stillTime: t("2019-12-29T19:01:15"), movieName: "IMG_1.MOV",
            movieTime: t("2019-12-30T03:08:13Z"), movieDuration: 2.6) == nil)
}

@Test func appleSidecarNamesPointAtTheirPhoto() {
    #expect(AppleSidecarName.renderTarget(stem: "IMG_E4120") == "IMG_4120")
    #expect(AppleSidecarName.renderTarget(stem: "IMG_4120") == nil)
    #expect(AppleSidecarName.renderTarget(stem: "IMG_Edit") == nil)
    #expect(AppleSidecarName.renderTarget(stem: "IMG_3582_edited") == "IMG_3582")
    #expect(AppleSidecarName.renderTarget(stem: "_edited") == nil)
    #expect(AppleSidecarName.adjustmentTarget(stem: "IMG_O3582") == "IMG_3582")
    #expect(AppleSidecarName.adjustmentTarget(stem: "IMG_3582") == "IMG_3582")
}
