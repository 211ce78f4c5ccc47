import Testing

@testable import Containers

@Test func exifDateWithSubsecondsAndOffset() throws {
    let t = try #require(CaptureTime(exif: "2025:05:26 09:27:06", subseconds: "603", offset: "-05:00"))
    #expect(t.iso8601 == "2025-05-26T09:27:06.603-05:00")
    #expect(t.utcOffsetMinutes == -300)
    // 14:27:06.603 UTC
    #expect(abs(t.secondsSinceEpoch - 1_748_269_626.603) < 0.001)
}

@Test func exifDateWithoutOffsetStaysFloating() throws {
    let t = try #require(CaptureTime(exif: "2019:12:29 19:01:15", subseconds: "505"))
    #expect(t.iso8601 == "2019-12-29T19:01:15.505")
    #expect(t.utcOffsetMinutes == nil)
}

@Test func blankAndZeroExifDatesAreAbsent() {
    #expect(CaptureTime(exif: "0000:00:00 00:00:00") == nil)
    #expect(CaptureTime(exif: "    :  :     :  :  ") == nil)
    #expect(CaptureTime(exif: "") == nil)
}

@Test func quickTimeDatesKeepTheirZone() throws {
    let local = try #require(CaptureTime(iso8601: "2025-05-26T09:27:06-0500"))
    #expect(local.iso8601 == "2025-05-26T09:27:06-05:00")
    let utc = try #require(CaptureTime(iso8601: "2025-05-26T14:27:06.000000Z"))
    #expect(utc.iso8601 == "2025-05-26T14:27:06.000000Z")
    #expect(utc.secondsSinceEpoch.rounded() == local.secondsSinceEpoch)
}

@Test func iso6709LocationsParse() throws {
    let loc = try #require(GeoLocation(iso6709: "+34.6648-086.4704+197.095/"))
    #expect(loc.latitude == 34.6648 && loc.longitude == -86.4704 && loc.altitude == 197.095)
    let withCRS = try #require(GeoLocation(iso6709: "+48.8577+002.2950+035.000CRSWGS_84/"))
    #expect(withCRS.longitude == 2.295 && withCRS.altitude == 35)
    #expect(GeoLocation(iso6709: "garbage") == nil)
}
